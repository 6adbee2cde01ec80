"""The mechanisms the executor, the exporter and the operators share: one reachable-variable
walk (executor/reachability.py), the executor's recorded forward as explicit state taken by
backward, channels-last memory as operator state (ops/memory_format.py), and box_nms / Custom
gradients declared through ``Operator.backward``."""
import numpy as np
import pytest
import torch

import mxtorch as mx
from mxtorch.executor import inference
from mxtorch.executor.reachability import gradient_inputs, inference_inputs, reached_variables
from mxtorch.export.graph import _label_inputs
from mxtorch.ops.registry import get_operator


def _net_with_blocked_branch():
    data, label, side = mx.sym.Variable("data"), mx.sym.Variable("softmax_label"), mx.sym.Variable("side")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    head = mx.sym.SoftmaxOutput(fc, mx.sym.Reshape(label, shape=(-1,)), name="softmax")
    blocked = mx.sym.BlockGrad(mx.sym.FullyConnected(side, num_hidden=2, name="fc_side"), name="stop")
    return mx.sym.Group([head, blocked])


def test_one_walk_gives_gradient_reach_and_inference_reads():
    net = _net_with_blocked_branch()
    assert reached_variables(net, gradient_inputs) == {"data", "fc_weight", "fc_bias", "softmax_label"}
    assert reached_variables(net, inference_inputs) == {"data", "fc_weight", "fc_bias", "side",
                                                        "fc_side_weight", "fc_side_bias"}
    # the exporter's unused label inputs: the label, also when reshaped before the loss head
    assert _label_inputs(net, net.list_arguments()) == {"softmax_label"}


def test_executor_records_only_arguments_a_gradient_reaches():
    net = _net_with_blocked_branch()
    executor = net.simple_bind(mx.cpu(), data=(2, 4), softmax_label=(2,), side=(2, 5))
    recorded = {executor._arg_names[i] for i in executor._recorded_indices}
    assert recorded == {"data", "fc_weight", "fc_bias", "softmax_label"}
    executor.arg_dict["fc_side_weight"][:] = 1.0
    executor.grad_dict["fc_side_weight"][:] = 7.0
    executor.forward(is_train=True)
    executor.backward()
    np.testing.assert_array_equal(executor.grad_dict["fc_side_weight"].asnumpy(), 0.0)   # BlockGrad: zeros


def _monitored_executor():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
    net = mx.sym.sum(net * net, name="total")
    executor = net.simple_bind(mx.cpu(), data=(3, 4), grad_req={"data": "null", "fc_weight": "write",
                                                                "fc_bias": "write"})
    rng = np.random.RandomState(1)
    executor.arg_dict["data"][:] = rng.randn(3, 4)
    executor.arg_dict["fc_weight"][:] = rng.randn(2, 4)
    executor.arg_dict["fc_bias"][:] = rng.randn(2)
    return executor


def test_recorded_forward_is_state_taken_by_backward():
    executor = _monitored_executor()
    seen = {}
    executor.set_monitor_callback(lambda name, array: seen.__setitem__(name, array.asnumpy()))
    assert not hasattr(executor, "_record_inference") and not hasattr(executor, "_monitored_inputs")
    executor.forward(is_train=True)
    recording = executor._recorded
    assert [name for name, _ in recording.monitored] == ["fc", "_mul0", "total"]
    assert [index for index, _ in recording.leaves] == [1, 2]
    executor.backward()
    assert executor._recorded is None                       # taken by backward
    fc_out = seen["fc_output"]
    # d(sum(y * y)) / dy = 2 y reaches both inputs of the product
    np.testing.assert_allclose(seen["_mul0_backward_output0"], 2 * fc_out, rtol=1e-6)
    np.testing.assert_allclose(executor.grad_dict["fc_bias"].asnumpy(), (2 * fc_out).sum(0), rtol=1e-5)


def test_backward_after_an_inference_forward_records_that_forward_again():
    executor = _monitored_executor()
    executor.forward(is_train=False)
    assert executor._recorded is None
    executor.backward()
    y = executor.outputs[0].asnumpy()
    assert executor._recorded is None
    data, weight, bias = (executor.arg_dict[n].asnumpy() for n in ("data", "fc_weight", "fc_bias"))
    fc = data @ weight.T + bias
    np.testing.assert_allclose(y, (fc * fc).sum(), rtol=1e-5)
    np.testing.assert_allclose(executor.grad_dict["fc_weight"].asnumpy(), 2 * fc.T @ data, rtol=1e-5)


def test_channels_last_memory_is_operator_state():
    torch.manual_seed(0)
    op = get_operator("Convolution")({"kernel": "(3, 3)", "num_filter": "4", "pad": "(1, 1)"})
    x, w, b = torch.rand(2, 3, 8, 8), torch.rand(4, 3, 3, 3), torch.rand(4)
    eager = op.apply(False, [x, w, b], [])[0]
    assert eager.is_contiguous(memory_format=torch.channels_last) and not eager.is_contiguous()
    plain = op.on_plain_memory()
    assert plain is not op and op.channels_last_memory and not plain.channels_last_memory
    out = plain.apply(False, [x, w, b], [])[0]
    assert out.is_contiguous()
    torch.testing.assert_close(out, eager)
    traced = torch.jit.trace(lambda *t: plain.forward(False, list(t), [])[0], (x, w, b))
    assert "contiguous" not in str(traced.graph)
    pool = get_operator("Pooling")({"kernel": "(2, 2)", "stride": "(2, 2)"})
    assert pool.apply(False, [x], [])[0].is_contiguous(memory_format=torch.channels_last)
    assert pool.on_plain_memory().apply(False, [x], [])[0].is_contiguous()
    dense = get_operator("FullyConnected")({"num_hidden": "2"})
    assert dense.on_plain_memory() is dense


def test_traced_inference_graph_runs_plain_memory_copies(monkeypatch):
    monkeypatch.setenv("MXTORCH_COMPILE", "1")
    data = mx.sym.Variable("data")
    net = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, name="conv")
    net = mx.sym.Pooling(mx.sym.Activation(net, act_type="relu"), kernel=(2, 2), stride=(2, 2), pool_type="max")
    executor = net.simple_bind(mx.cpu(), data=(1, 3, 8, 8), grad_req="null")
    plan = executor._inference
    if not plan._traceable:
        pytest.skip("this torch build does not trace the inference plan")
    module = inference._TracedGraph(plan, [])
    eager_ops = [entry.op for entry in plan._entries]
    traced_ops = [entry.op for entry in module._entries]
    assert all(getattr(op, "channels_last_memory", False) is False for op in traced_ops)
    assert any(getattr(op, "channels_last_memory", False) for op in eager_ops)
    executor.arg_dict["data"][:] = np.random.RandomState(0).rand(1, 3, 8, 8)
    first = executor.forward()[0].asnumpy()
    # the eager operators kept their own choice through the trace
    assert any(getattr(op, "channels_last_memory", False) for op in eager_ops)
    np.testing.assert_allclose(executor.forward()[0].asnumpy(), first, rtol=1e-5)


def test_box_nms_gradient_is_declared():
    data = mx.nd.array([[[0.9, 0.1, 0.1, 0.4, 0.4], [0.8, 0.12, 0.1, 0.42, 0.4], [0.7, 0.6, 0.6, 0.9, 0.8]],
                        [[0.2, 0.1, 0.1, 0.2, 0.2], [0.6, 0.5, 0.5, 0.9, 0.9], [0.0, 0.1, 0.1, 0.3, 0.3]]])
    data.attach_grad()
    with mx.autograd.record():
        out = mx.nd.contrib.box_nms(data, score_index=0, coord_start=1, valid_thresh=0.1, out_format="center")
    assert type(out._tensor.grad_fn).__name__ == "_DeclaredGradientBackward"
    np.testing.assert_allclose(out.asnumpy()[0, 0], [0.9, 0.25, 0.25, 0.3, 0.3], rtol=1e-6)
    head = np.arange(30.0, dtype=np.float32).reshape(2, 3, 5)
    out.backward(mx.nd.array(head))
    grad = data.grad.asnumpy()
    np.testing.assert_array_equal(grad[0, 0], head[0, 0])
    np.testing.assert_array_equal(grad[0, 2], head[0, 1])      # the second kept row of item 0
    np.testing.assert_array_equal(grad[0, 1], 0)               # suppressed
    np.testing.assert_array_equal(grad[1, 1], head[1, 0])      # item 1 ranks row 1 first
    np.testing.assert_array_equal(grad[1, 0], head[1, 1])
    np.testing.assert_array_equal(grad[1, 2], 0)               # below valid_thresh


class _TimesThreeBackward(mx.operator.CustomOp):
    requests = []

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * in_data[1])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        type(self).requests.append(list(req))
        self.assign(in_grad[0], req[0], out_grad[0] * 3)       # not the derivative of forward
        self.assign(in_grad[1], req[1], out_grad[0] * 5)


@mx.operator.register("test_layer_mechanisms_times_three")
class _TimesThreeProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def list_arguments(self):
        return ["a", "b"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return _TimesThreeBackward()


def test_custom_backward_is_the_declared_gradient():
    a, b = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 4.0])
    a.attach_grad()
    _TimesThreeBackward.requests.clear()
    with mx.autograd.record():
        y = mx.nd.Custom(a, b, op_type="test_layer_mechanisms_times_three")
    assert type(y._tensor.grad_fn).__name__ == "_DeclaredGradientBackward"
    np.testing.assert_array_equal(y.asnumpy(), [3.0, 8.0])
    y.backward(mx.nd.array([1.0, 10.0]))
    np.testing.assert_array_equal(a.grad.asnumpy(), [3.0, 30.0])
    assert _TimesThreeBackward.requests == [["write", "null"]]     # b records no gradient
