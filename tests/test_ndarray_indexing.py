"""NDArray indexing and assignment against numpy (the behaviour MXNet 1.9.1 mirrors): negative
slice steps, numpy-integer keys, None / Ellipsis, advanced (list, numpy, NDArray) indices,
assignment of lists, numpy scalars and arrays with extra unit axes, the contiguity rule of basic
slicing, moveaxis, and the autograd restriction on assignment."""
from itertools import permutations

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

SHAPE = (4, 5, 3, 6)
BASE = np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE)

KEYS = [
    0, np.int64(-1), slice(3, 0, -1), slice(None, None, -2), (slice(np.int32(1), None, 2), np.int64(2)),
    (1, Ellipsis, -1), (None, slice(1, 3), 2, None), (slice(None), slice(4, 0, -3), slice(None), slice(5, 1, -2)),
    [2, 0], np.array([[1, 3], [0, 2]]), (1, [2, 3], np.array([[1], [0]])), (slice(0, 2), [[1], [4]], slice(0, 2)),
    ([1, 2], slice(3, 5), None, [0, 1]), ([[[1]]], 3, slice(0, 3), 0), (slice(None), 1, slice(None), [0, 5]),
    (np.array([True, False, True, False]),),
]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_getitem_matches_numpy(key):
    got = mx.nd.array(BASE)[key].asnumpy()
    expected = BASE[key]
    np.testing.assert_array_equal(got, expected.reshape(got.shape) if expected.ndim == 0 else expected)


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_setitem_matches_numpy(key):
    rng = np.random.RandomState(0)
    region = BASE[key].shape
    for value in (rng.randint(-100, 0, size=region).astype(np.float32), np.float32(-7.5), -3):
        expected, array = BASE.copy(), mx.nd.array(BASE)
        expected[key] = value
        array[key] = value
        np.testing.assert_array_equal(array.asnumpy(), expected)
    if region:
        row = [float(v) for v in rng.randint(-50, 0, size=region[-1])]
        expected, array = BASE.copy(), mx.nd.array(BASE)
        expected[key] = row
        array[key] = row
        np.testing.assert_array_equal(array.asnumpy(), expected)


def test_setitem_drops_leading_unit_axes_and_casts():
    array = mx.nd.zeros((3, 4), dtype="int32")
    array[1] = np.arange(4).reshape(1, 1, 4) + 0.7
    np.testing.assert_array_equal(array.asnumpy()[1], [0, 1, 2, 3])
    array = mx.nd.zeros(1)
    array[0] = np.array([47.844944], dtype=np.float32)[0]
    assert array.asnumpy()[0] == np.float32(47.844944)
    with pytest.raises(MXNetError, match="cannot assign a value of shape"):
        array = mx.nd.zeros((3, 4))
        array[1:3] = np.ones((3, 4))


def test_key_errors():
    array = mx.nd.zeros((2, 3))
    with pytest.raises(IndexError):
        array[2]
    with pytest.raises(MXNetError, match="too many indices"):
        array[0, 0, 0]
    with pytest.raises(MXNetError, match="slice step cannot be zero"):
        array[::0]
    with pytest.raises(MXNetError, match="unsupported index"):
        array["a"]


def test_contiguity_rule_matches_numpy_flags_and_views():
    shape = (3, 4, 5)
    slices = [slice(None), slice(1), slice(1, 3), slice(None, None, 2), slice(None, None, -1), slice(0, 1)]
    array = np.arange(60).reshape(shape)
    for combo in permutations(slices, 3):
        assert mx.nd.NDArray._basic_indexing_slice_is_contiguous(combo, shape) == \
            array[combo].flags.contiguous, combo
    # a basic key gives a view: writing through it changes the array
    x = mx.nd.array(array)
    view = x[1:2]
    view[:] = -1
    assert (x.asnumpy()[1] == -1).all()


def test_moveaxis():
    x = mx.nd.zeros((4, 1, 2, 3))
    assert mx.nd.moveaxis(x, [3, 0], [1, 0]).shape == np.moveaxis(np.zeros((4, 1, 2, 3)), [3, 0], [1, 0]).shape
    assert mx.nd.moveaxis(x, range(4), range(4)).shape == (4, 1, 2, 3)
    for source, destination in ((4, 0), ([0, 0], [0, 1]), (0, [0, 1])):
        with pytest.raises(ValueError):
            mx.nd.moveaxis(x, source, destination)


def test_assignment_of_recorded_value_inside_record_raises():
    x = mx.nd.zeros((3, 4))
    y = mx.nd.ones((4,))
    y.attach_grad()
    with pytest.raises(MXNetError, match="Inplace operations"):
        with mx.autograd.record():
            x[1] = y
    with mx.autograd.record():
        x[1] = mx.nd.ones((4,))      # a value outside the graph is fine
    assert x.asnumpy()[1].tolist() == [1, 1, 1, 1]


def test_public_indexing_helpers_match_mxnet():
    # values from MXNet 1.9.1's mxnet.ndarray.ndarray helpers
    from mxtorch.ndarray import ndarray as nd_module
    dispatch = nd_module.get_indexing_dispatch_code
    assert [dispatch((slice(None), 1, None)), dispatch((np.array([1]),)), dispatch(((),)), dispatch(([0, 1], 2))] \
        == [0, 1, 2, 1]
    with pytest.raises(ValueError, match="key 1.5 of type"):
        dispatch((1.5,))
    expand = nd_module.indexing_key_expand_implicit_axes
    full = slice(None, None, None)
    assert expand(np.s_[0], (3, 4, 5)) == ((0, full, full), -1)
    assert expand(np.s_[:2, None, 0, ...], (3, 4, 5)) == ((slice(None, 2, None), None, 0, full), -1)
    assert expand(np.s_[..., 1], (3, 4, 5)) == ((full, full, 1), -1)
    assert expand((mx.nd.array(2),), (3, 4)) == ((2, full), -1)     # MXNet 1.9.1 failed on NDArray.item
    with pytest.raises(IndexError, match="more than one ellipsis"):
        expand(np.s_[..., ...], (3,))
    assert nd_module.get_oshape_of_gather_nd_op((3, 4, 5), (2, 6)) == (6, 5)
    assert nd_module.get_oshape_of_gather_nd_op((3, 4), (2, 6, 7)) == (6, 7)
    with pytest.raises(IndexError, match="along axis 1; size is 4 but corresponding boolean size is 5"):
        nd_module.check_boolean_array_dimension((3, 4), 0, (3, 5))
    assert mx.nd.get_indexing_dispatch_code is dispatch
