"""Module functions of ``mx.nd`` / ``mx.sym`` (checklist 3.1, 5.1), Symbol and NDArray methods that
are not operators (3.2, 3.3, 5.2), ``mx.autograd`` recording with ``attach_grad`` / ``backward``,
and the Executor names of 4.1.  Reference values come from MXNet 1.9.1 (``tests/data/fluent``,
written by tools/gen_fluent_reference.py) or from NumPy / torch computations stated in each test."""
import copy
import json

import numpy as np
import pytest
import torch

import mxtorch as mx
from mxtorch.base import MXNetError, NotImplementedForSymbol

from fluent_reference import INPUTS, cases, check_head, check_result, evaluate, params, to_nd, to_sym

# -- reference calls ---------------------------------------------------------------------------------


@pytest.mark.parametrize("case", params(cases("nd_function")))
def test_nd_function_matches_mxnet(case):
    function = getattr(mx.nd, case["function"])
    args = to_nd(case["args"])
    kwargs = {key: to_nd(value) for key, value in case["kwargs"].items()}
    if case["result"].get("error"):
        with pytest.raises(MXNetError):
            function(*args, **kwargs)
        return
    check_result(case["name"], function(*args, **kwargs), case["result"])


@pytest.mark.parametrize("case", params(cases("sym_function")))
def test_sym_function_matches_mxnet(case):
    function = getattr(mx.sym, case["function"])
    used = set()
    args = to_sym(case["args"], used)
    kwargs = {key: to_sym(value, used) for key, value in case["kwargs"].items()}
    expected = case["result"]
    if expected.get("error"):
        with pytest.raises(MXNetError):
            function(*args, **kwargs)
        return
    result = function(*args, **kwargs)
    if "head" not in expected:
        check_result(case["name"], result, expected)
        return
    check_head(case["name"], result, expected["head"])
    check_result(case["name"], evaluate(result, used), {**expected, "is_list": True})


def _inputs():
    return {key: mx.nd.array(value) for key, value in INPUTS.items() if value.dtype == np.float32}


def _elementwise(x):
    x["m"].attach_grad()
    with mx.autograd.record():
        y = (x["m"] * x["m"] + mx.nd.exp(x["m"])).sum()
    y.backward()
    return [y, x["m"].grad]


def _fluent_chain(x):
    x["a"].attach_grad()
    with mx.autograd.record():
        y = x["a"].transpose(axes=(1, 0, 2)).reshape((3, -1)).softmax(axis=1).max(axis=1)
    y.backward(out_grad=mx.nd.array([1.0, 2.0, 3.0]))
    return [y, x["a"].grad]


def _two_inputs(x):
    x["m"].attach_grad()
    x["b"].attach_grad()
    with mx.autograd.record():
        y = mx.nd.broadcast_mul(x["m"], x["b"]) / 2 - mx.nd.maximum(x["m"], 0.1)
    y.backward()
    return [y, x["m"].grad, x["b"].grad]


def _accumulate(x):
    x["p"].attach_grad(grad_req="add")
    for _ in range(2):
        with mx.autograd.record():
            y = mx.nd.log(x["p"]) * 3
        y.backward()
    return [y, x["p"].grad]


def _write_twice(x):
    x["p"].attach_grad()
    for scale in (1.0, 5.0):
        with mx.autograd.record():
            y = x["p"].square() * scale
        y.backward()
    return [y, x["p"].grad]


def _retain_graph(x):
    x["m"].attach_grad(grad_req="add")
    with mx.autograd.record():
        y = x["m"].sigmoid().sum(axis=0)
    y.backward(retain_graph=True)
    y.backward()
    return [y, x["m"].grad]


PROGRAMS = {"elementwise": _elementwise, "fluent_chain": _fluent_chain, "two_inputs": _two_inputs,
            "accumulate": _accumulate, "write_twice": _write_twice, "retain_graph": _retain_graph}


@pytest.mark.parametrize("case", params(cases("autograd")))
def test_autograd_program_matches_mxnet(case):
    """The same recorded computations as the generator's, compared value by value."""
    check_result(case["name"], PROGRAMS[case["program"]](_inputs()), case["result"])


def test_every_autograd_reference_has_a_program():
    assert {case["program"] for case in cases("autograd")} == set(PROGRAMS)


# -- autograd behaviour --------------------------------------------------------------------------------
def test_nothing_is_recorded_outside_record():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    y = x * 2
    with pytest.raises(MXNetError, match="record"):
        y.backward()
    assert not y._tensor.requires_grad


def test_backward_twice_without_retain_graph_raises():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = (x * x).sum()
    y.backward()
    with pytest.raises(MXNetError, match="retain_graph"):
        y.backward()


def test_backward_checks_out_grad_shape():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = x * 3
    # a smaller head gradient is refused (MXNet read past its end; a larger one it read from
    # its start, see test_autograd_api.test_backward_reads_a_larger_head_gradient_from_its_start)
    with pytest.raises(MXNetError, match="out_grad"):
        y.backward(out_grad=mx.nd.ones((1,)))


def test_null_grad_req_and_detach_stop_gradients():
    x = mx.nd.array([1.0, 2.0])
    w = mx.nd.array([3.0, 4.0])
    x.attach_grad()
    w.attach_grad(grad_req="null")
    with mx.autograd.record():
        y = (x * w + x.detach() * 10).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [3.0, 4.0])
    assert w.grad is None      # MXNet 1.9.1 drops a reached 'null' variable's gradient array


def test_attached_array_stays_writable_and_shares_its_memory():
    x = mx.nd.array([1.0, 2.0])
    view = x.reshape((2, 1))
    x.attach_grad()
    x[:] = 5
    np.testing.assert_array_equal(view.asnumpy().ravel(), [5.0, 5.0])
    with mx.autograd.record():
        y = (x * x).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [10.0, 10.0])


def test_training_flag_inside_record():
    x = mx.nd.ones((200,))
    x.attach_grad()
    with mx.autograd.record():
        dropped = mx.nd.Dropout(x, p=0.5)
    assert 0 < float((dropped == 0).sum().asscalar()) < 200
    with mx.autograd.record(train_mode=False):
        kept = mx.nd.Dropout(x, p=0.5)
    np.testing.assert_array_equal(kept.asnumpy(), x.asnumpy())


# -- mx.nd functions without MXNet reference data -------------------------------------------------------
def test_from_numpy_shares_memory_and_locks_the_numpy_array():
    source = np.arange(6, dtype=np.int64).reshape(2, 3)
    array = mx.nd.from_numpy(source)
    assert array.dtype == np.int64 and array.shape == (2, 3)
    array[:] = 7
    np.testing.assert_array_equal(source, np.full((2, 3), 7))
    assert not source.flags["WRITEABLE"]
    copied = mx.nd.from_numpy(np.ones((2, 2), np.float64), zero_copy=False)
    assert copied.dtype == np.float64
    with pytest.raises(MXNetError, match="C-contiguous"):
        mx.nd.from_numpy(np.ones((3, 4), np.float32)[:, ::2])
    with pytest.raises(MXNetError, match="dtype"):
        mx.nd.from_numpy(np.ones(3, np.complex64))


def test_dlpack_round_trip_shares_memory():
    array = mx.nd.array([[1.0, 2.0], [3.0, 4.0]])
    view = mx.nd.from_dlpack(array.to_dlpack_for_write())
    view[:] = 9
    np.testing.assert_array_equal(array.asnumpy(), np.full((2, 2), 9.0))
    tensor = torch.utils.dlpack.from_dlpack(mx.nd.to_dlpack_for_read(array))
    assert tensor.data_ptr() == array._tensor.data_ptr()
    capsule = array.to_dlpack_for_read()
    mx.nd.from_dlpack(capsule)
    with pytest.raises(MXNetError, match="from_dlpack"):
        mx.nd.from_dlpack(capsule)
    foreign = torch.arange(4, dtype=torch.int32)
    np.testing.assert_array_equal(mx.nd.from_dlpack(foreign).asnumpy(), [0, 1, 2, 3])



def test_c_api_from_dlpack_takes_over_a_capsule_opened_by_hand():
    # MXNet 1.9.1's older from_dlpack: open the 'dltensor' capsule with ctypes, hand the
    # DLManagedTensor pointer to MXNDArrayFromDLPack, mark the capsule used, wrap the handle
    import ctypes
    from mxtorch.base import _LIB, NDArrayHandle, c_str, check_call
    source = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    capsule = ctypes.py_object(torch.utils.dlpack.to_dlpack(source))
    assert ctypes.pythonapi.PyCapsule_IsValid(capsule, c_str("dltensor"))
    pointer = ctypes.c_void_p(ctypes.pythonapi.PyCapsule_GetPointer(capsule, c_str("dltensor")))
    handle = NDArrayHandle()
    check_call(_LIB.MXNDArrayFromDLPack(pointer, ctypes.byref(handle)))
    ctypes.pythonapi.PyCapsule_SetName(capsule, c_str("used_dltensor"))
    ctypes.pythonapi.PyCapsule_SetDestructor(capsule, None)
    array = mx.nd.NDArray(handle=handle)
    np.testing.assert_array_equal(array.asnumpy(), [[0, 1, 2], [3, 4, 5]])
    source[0, 0] = 7   # the same memory
    assert array.asnumpy()[0, 0] == 7
    assert array._tensor.data_ptr() == source.data_ptr()
    with pytest.raises(AttributeError, match="MXNDArrayFromDLPack"):
        _LIB.MXNDArrayCreate
    with pytest.raises(MXNetError, match="NULL"):
        _LIB.MXNDArrayFromDLPack(ctypes.c_void_p(), ctypes.byref(handle))


def test_deepcopy_gives_what_a_pickle_round_trip_gives():
    import pickle
    source = mx.nd.array(np.arange(6).reshape(2, 3), dtype="float16").T   # a strided view
    copied, unpickled = copy.deepcopy(source), pickle.loads(pickle.dumps(source))
    for array in (copied, unpickled):
        assert type(array) is mx.nd.NDArray and array.dtype == np.float16 and array.shape == (3, 2)
        assert array.context == mx.cpu(0) and array.writable and array._tensor.is_contiguous()
        np.testing.assert_array_equal(array.asnumpy(), np.arange(6).reshape(2, 3).T)
    copied[:] = 5   # its own memory
    np.testing.assert_array_equal(source.asnumpy(), np.arange(6).reshape(2, 3).T)
    shared = copy.deepcopy({"a": source, "b": source})
    assert shared["a"] is shared["b"]
    failed = mx.nd.random.uniform(low=2.0, high=1.0, shape=(2,))   # MXNet raises at the next wait
    with pytest.raises(MXNetError, match="low"):
        copy.deepcopy(failed)

def test_writable_false_rejects_assignment():
    array = mx.nd.NDArray(torch.zeros(2, 2), writable=False)
    assert array.writable is False and mx.nd.ones((1,)).writable is True
    with pytest.raises(MXNetError, match="read-only"):
        array[:] = 1
    with pytest.raises(MXNetError, match="read-only"):
        array += 1
    with pytest.raises(MXNetError, match="read-only"):
        array.slice_assign_scalar(1.0, (0,), (1,), ())
    assert array.reshape((4,)).writable is False


def test_slice_assign_returns_the_array_itself():
    array = mx.nd.zeros((2, 3))
    assert array.slice_assign(mx.nd.ones((1, 3)), (0, 0), (1, 3), (1, 1)) is array
    assert array.slice_assign_scalar(2.0, (1,), (2,), (None,)) is array
    np.testing.assert_array_equal(array.asnumpy(), [[1, 1, 1], [2, 2, 2]])


def test_operator_results_own_their_memory():
    """Imperative operator outputs are new arrays, also for view-like operators."""
    source = mx.nd.array(INPUTS["a"])
    for result in (mx.nd.Flatten(source), mx.nd.reshape(source, shape=(4, 6)), source.transpose(),
                   mx.nd.expand_dims(source, axis=0), source.squeeze(), mx.nd.identity(source)):
        result[:] = 0
    np.testing.assert_array_equal(source.asnumpy(), INPUTS["a"])


def test_namespaces_op_internal_and_utils():
    x = mx.nd.array([1.0, -2.0])
    np.testing.assert_array_equal(mx.nd.op.broadcast_add(x, x).asnumpy(), [2.0, -4.0])
    np.testing.assert_array_equal(mx.nd._internal._plus_scalar(x, scalar=1.0).asnumpy(), [2.0, -1.0])
    with pytest.raises(AttributeError):
        mx.nd.op.no_such_operator
    assert mx.nd.utils.zeros((2,)).shape == (2,)
    assert mx.sym.op.FullyConnected(mx.sym.var("d"), num_hidden=2).list_arguments() == [
        "d", "fullyconnected0_weight", "fullyconnected0_bias"]


def test_cached_op_runs_a_symbol_on_arrays():
    data, weight = mx.sym.var("data"), mx.sym.var("weight")
    graph = mx.sym.FullyConnected(data, weight, num_hidden=2, no_bias=True)
    cached = mx.nd.CachedOp(graph)
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    w = np.array([[1.0, 0.0], [1.0, 1.0]], np.float32)
    result = cached(mx.nd.array(x), mx.nd.array(w))
    np.testing.assert_allclose(result.asnumpy(), x @ w.T)
    again = cached(mx.nd.array(x * 2), mx.nd.array(w))
    np.testing.assert_allclose(again.asnumpy(), 2 * x @ w.T)
    np.testing.assert_allclose(result.asnumpy(), x @ w.T)
    with pytest.raises(MXNetError, match="CachedOp"):
        cached(mx.nd.array(x))


def test_cached_op_records_gradients_inside_autograd_record():
    # MXNet 1.9.1 (test_ndarray's test_cached): o = 2 * (conv(ones, weight, bias + 1) + 2) with
    # data (3, 4, 10, 10) of ones gives weight.grad a sum of 138240 (2 * 3 * 64 positions * 10 filters * 36 weights)
    graph = mx.sym.Convolution(kernel=(3, 3), num_filter=10) + 2
    cached = mx.nd.CachedOp(graph)
    data, weight, bias = mx.nd.ones((3, 4, 10, 10)), mx.nd.ones((10, 4, 3, 3)), mx.nd.ones((10,))
    weight.attach_grad()
    bias.attach_grad()
    with mx.autograd.record():
        out = cached(data, weight, bias + 1) * 2
        out.backward()
    assert float(weight.grad.asnumpy().sum()) == 138240.0
    # each output pixel has a bias: the bias gradient is 2 * 3 * 8 * 8 per filter
    np.testing.assert_array_equal(bias.grad.asnumpy(), np.full(10, 2 * 3 * 8 * 8, np.float32))


def test_imdecode_decodes_like_mxnet_cpp_decoder():
    # MXNet's C++ Imdecode: (channels, height, width) float32, OpenCV's BGR order kept
    cv2 = pytest.importorskip("cv2")
    pixels = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
    ok, encoded = cv2.imencode(".png", pixels)
    assert ok
    decoded = mx.nd.imdecode(encoded.tobytes())
    np.testing.assert_array_equal(decoded.asnumpy(), pixels.transpose(2, 0, 1).astype(np.float32))
    cropped = mx.nd.imdecode(encoded.tobytes(), clip_rect=(1, 1, 3, 4))
    np.testing.assert_array_equal(cropped.asnumpy(), pixels[1:4, 1:3].transpose(2, 0, 1))


# -- Symbol methods that are not operators ---------------------------------------------------------------
def test_symbol_eval_binds_and_runs():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    outputs = (x * 2 + y).eval(mx.cpu(), x=mx.nd.array([1.0, 2.0]), y=mx.nd.array([10.0, 20.0]))
    assert isinstance(outputs, list) and len(outputs) == 1
    np.testing.assert_array_equal(outputs[0].asnumpy(), [12.0, 24.0])
    group = mx.sym.Group([x + 1, x * 3]).eval(x=mx.nd.array([2.0]))
    assert [float(o.asscalar()) for o in group] == [3.0, 6.0]
    with pytest.raises(MXNetError):
        (x + y).eval(x=mx.nd.array([1.0]))


def test_symbol_gradient_is_not_supported_as_in_mxnet():
    with pytest.raises(MXNetError, match="not implemented"):
        (mx.sym.var("x") * 2).gradient(["x"])


def test_optimize_for_and_backend_symbol_partition_with_the_default_backend():
    from mxtorch.base import _LIB, c_str, c_str_array, check_call, mx_uint
    data = mx.sym.var("data")
    net = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=3, name="fc"), act_type="relu", name="act")
    check_call(_LIB.MXSetSubgraphPropertyOpNamesV2(c_str("default"), mx_uint(1), c_str_array(["FullyConnected"])))
    try:
        for result in (net.optimize_for("default"), net.optimize_for("default", args={}, aux={}),
                       net.get_backend_symbol("default")):
            nodes = json.loads(result.tojson())["nodes"]
            assert [(node["op"], node["name"]) for node in nodes] == [
                ("null", "data"), ("null", "fc_weight"), ("null", "fc_bias"), ("_CachedOp", "_CachedOp0"),
                ("Activation", "act")]
            assert [n["name"] for n in nodes[3]["subgraphs"][0]["nodes"]] == ["data0", "fc_weight0", "fc_bias0", "fc"]
            assert result.list_arguments() == net.list_arguments()
        assert net.tojson().count("_CachedOp") == 0          # the symbol given is left as it was
    finally:
        check_call(_LIB.MXRemoveSubgraphPropertyOpNamesV2(c_str("default")))
    with pytest.raises(MXNetError, match="op_names"):
        net.optimize_for("default")
    with pytest.raises(MXNetError, match="TensorRT"):
        net.get_backend_symbol("TensorRT")
    with pytest.raises(MXNetError, match="args"):
        net.optimize_for("default", args=[1])


def test_symbol_dunders_abs_idiv_and_truth_value():
    x = mx.sym.var("x")
    graph = json.loads(abs(x).tojson())
    assert graph["nodes"][-1]["op"] == "abs" and graph["nodes"][-1]["name"] == "abs0"
    y = x
    y /= 4
    assert json.loads(y.tojson())["nodes"][-1]["op"] == "_div_scalar"
    np.testing.assert_array_equal(y.eval(x=mx.nd.array([2.0]))[0].asnumpy(), [0.5])
    with pytest.raises(NotImplementedForSymbol):
        bool(x)
    with pytest.raises(NotImplementedForSymbol):
        x.__nonzero__()
    assert x.as_nd_ndarray() is x
    np_symbol = x.as_np_ndarray()
    assert type(np_symbol).__name__ == "_Symbol" and np_symbol._outputs == x._outputs


def test_symbol_attribute_none_is_written_as_mxnet_does():
    """An optional attribute passed as None is kept as "None"; None for a required-type attribute
    or an input means "not given"."""
    x = mx.sym.var("x")
    node = json.loads(mx.sym.slice_axis(x, axis=0, begin=1, end=None).tojson())["nodes"][-1]
    assert node["attrs"] == {"axis": "0", "begin": "1", "end": "None"}
    node = json.loads(mx.sym.FullyConnected(x, num_hidden=2, bias=None, no_bias=True).tojson())["nodes"][-1]
    assert node["attrs"] == {"no_bias": "True", "num_hidden": "2"}


# -- Executor (4.1) ----------------------------------------------------------------------------------------
def test_executor_outputs_optimized_symbol_and_handle():
    x = mx.sym.var("x")
    net = mx.sym.exp(x) * 2
    executor = net.bind(mx.cpu(), {"x": mx.nd.array([0.0, 1.0])})
    executor.forward()
    outputs = executor._get_outputs()
    assert len(outputs) == 1 and outputs[0] is executor.outputs[0]
    np.testing.assert_allclose(outputs[0].asnumpy(), [2.0, 2 * np.e], rtol=1e-6)
    optimized = executor.get_optimized_symbol()
    assert optimized is not net and optimized.tojson() == net.tojson()
    assert len(executor.handle) == 2
    assert copy.copy(executor.handle) == executor.handle
