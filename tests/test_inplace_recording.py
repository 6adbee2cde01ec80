"""Writes inside ``autograd.record()``: MXNet 1.9.1 refuses to write into an array the recorded
graph holds (its imperative.cc check "Assigning to NDArrays that are already in a computational
graph"), and records a write of a recorded value into a fresh array.  Expected outcomes from
tools/gen_input_validation_reference.py run with MXNet 1.9.1."""
import pytest

import mxtorch as mx

nd = mx.nd


def _in_graph_write(kind):
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = x * 2
        if kind == "index":
            y[0] = 7
        elif kind == "slice":
            y[:] = 0
        elif kind == "imul":
            y *= y
        elif kind == "iadd":
            y += 1
        elif kind == "relu_out":
            nd.relu(y, out=y)
        elif kind == "leaf_slice":
            x[:] = 3
        elif kind == "leaf_iadd":
            x += 1
        elif kind == "copyto":
            (x + 1).copyto(y)


@pytest.mark.parametrize("kind", ["index", "slice", "imul", "iadd", "relu_out", "leaf_slice",
                                  "leaf_iadd", "copyto"])
def test_writing_into_an_array_of_the_graph_raises(kind):
    with pytest.raises(mx.MXNetError, match="already in a computational graph"):
        _in_graph_write(kind)


def test_out_names_the_operator():
    x = nd.array([1.0, -2.0])
    x.attach_grad()
    with mx.autograd.record():
        h = x * 1
        with pytest.raises(mx.MXNetError, match="relu"):
            nd.relu(h, out=h)


def test_out_into_a_read_only_array_names_the_operator_and_leaves_it_unchanged():
    target = nd.array([5.0, 5.0])
    target.writable = False
    with pytest.raises(mx.MXNetError, match=r"Operator relu \(out=\): the array is read-only"):
        nd.relu(nd.array([1.0, -2.0]), out=target)
    assert target.asnumpy().tolist() == [5.0, 5.0]
    fresh = nd.zeros((2,))
    assert nd.relu(nd.array([1.0, -2.0]), out=fresh) is fresh and fresh.asnumpy().tolist() == [1.0, 0.0]


@pytest.mark.parametrize("write", ["iadd", "index"])
def test_partial_write_of_a_recorded_value_into_a_fresh_array_raises(write):
    # MXNet 1.9.1: "Inplace operations (+=, -=, x[:]=, etc) are not supported when recording"
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = x * 2
        a = nd.zeros(2)
        with pytest.raises(mx.MXNetError, match="Inplace operations"):
            if write == "iadd":
                a += y
            else:
                a[1] = y[0]


def test_writing_a_recorded_value_into_a_fresh_array_is_recorded():
    # MXNet 1.9.1: x.grad == [8, 16] (z = sum((2x)^2), dz/dx = 8x)
    for write in ("slice", "out"):
        x = nd.array([1.0, 2.0])
        x.attach_grad()
        with mx.autograd.record():
            y = x * 2
            a = nd.zeros(2)
            if write == "slice":
                a[:] = y
            else:
                nd.identity(y, out=a)
            z = (a * a).sum()
        z.backward()
        assert x.grad.asnumpy().tolist() == [8.0, 16.0], write


def test_writes_outside_record_still_work():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = x * 2
    y[0] = 7
    x += 1
    assert y.asnumpy().tolist() == [7.0, 4.0]
    assert x.asnumpy().tolist() == [2.0, 3.0]
