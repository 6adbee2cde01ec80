"""Python custom operators (``mx.operator`` + ``mx.sym.Custom`` / ``mx.nd.Custom``) in the
style of detection code: a proposal layer without gradient feeding ROIPooling, a softmax
loss layer with its own gradient, symbol JSON round trips, aux states, write requests."""
import ast
import json

import numpy as np
import pytest

import mxtorch as mx


# -- a proposal-like layer (Faster R-CNN style): no gradient, string attributes -------------------
def make_anchors(stride, scales, ratios):
    anchors = []
    centre = (stride - 1) / 2.0
    for ratio in ratios:
        for scale in scales:
            width = stride * scale / np.sqrt(ratio)
            height = stride * scale * np.sqrt(ratio)
            anchors.append([centre - (width - 1) / 2, centre - (height - 1) / 2,
                            centre + (width - 1) / 2, centre + (height - 1) / 2])
    return np.array(anchors, np.float32)


def reference_proposals(scores, deltas, info, stride, scales, ratios, keep):
    """Independent numpy version of what ProposalOp computes (batch 1)."""
    base = make_anchors(stride, scales, ratios)
    count = len(base)
    height, width = scores.shape[2:]
    boxes, values = [], []
    for y in range(height):
        for x in range(width):
            for a in range(count):
                anchor = base[a] + [x * stride, y * stride, x * stride, y * stride]
                d = deltas[0, 4 * a:4 * a + 4, y, x]
                w, h = anchor[2] - anchor[0] + 1, anchor[3] - anchor[1] + 1
                cx, cy = anchor[0] + 0.5 * (w - 1), anchor[1] + 0.5 * (h - 1)
                px, py = d[0] * w + cx, d[1] * h + cy
                pw, ph = np.exp(d[2]) * w, np.exp(d[3]) * h
                box = [px - 0.5 * (pw - 1), py - 0.5 * (ph - 1), px + 0.5 * (pw - 1), py + 0.5 * (ph - 1)]
                box = np.clip(box, 0, [info[0, 1] - 1, info[0, 0] - 1] * 2)
                boxes.append(box)
                values.append(scores[0, count + a, y, x])
    order = np.argsort(-np.array(values), kind="stable")[:keep]
    rois = np.hstack([np.zeros((keep, 1)), np.array(boxes)[order]]).astype(np.float32)
    return rois, np.array(values, np.float32)[order].reshape(-1, 1)


class ProposalOp(mx.operator.CustomOp):
    def __init__(self, stride, scales, ratios, keep):
        super().__init__()
        self.stride, self.scales, self.ratios, self.keep = stride, scales, ratios, keep

    def forward(self, is_train, req, in_data, out_data, aux):
        scores, deltas, info = (a.asnumpy() for a in in_data)
        rois, values = reference_proposals(scores, deltas, info, self.stride, self.scales, self.ratios, self.keep)
        self.assign(out_data[0], req[0], mx.nd.array(rois))
        self.assign(out_data[1], req[1], mx.nd.array(values))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        for grad, request in zip(in_grad, req):
            self.assign(grad, request, 0)


RECEIVED = {}


@mx.operator.register("test_proposal")
class ProposalProp(mx.operator.CustomOpProp):
    def __init__(self, feat_stride="16", scales="(8, 16, 32)", ratios="(0.5, 1, 2)", rpn_post_nms_top_n="5",
                 output_score="False"):
        super().__init__(need_top_grad=False)
        RECEIVED["proposal"] = dict(feat_stride=feat_stride, scales=scales, ratios=ratios,
                                    rpn_post_nms_top_n=rpn_post_nms_top_n, output_score=output_score)
        self.stride = int(feat_stride)
        self.scales = list(ast.literal_eval(scales))
        self.ratios = list(ast.literal_eval(ratios))
        self.keep = int(rpn_post_nms_top_n)

    def list_arguments(self):
        return ["cls_prob", "bbox_pred", "im_info"]

    def list_outputs(self):
        return ["output", "score"]

    def infer_shape(self, in_shape):
        return in_shape, [(self.keep, 5), (self.keep, 1)]

    def create_operator(self, ctx, shapes, dtypes):
        RECEIVED["create"] = (ctx, shapes, dtypes)
        return ProposalOp(self.stride, self.scales, self.ratios, self.keep)


def proposal_graph():
    cls_prob = mx.sym.var("cls_prob")
    bbox_pred = mx.sym.var("bbox_pred")
    im_info = mx.sym.var("im_info")
    proposals = mx.sym.Custom(cls_prob, bbox_pred, im_info, op_type="test_proposal", feat_stride=4,
                              scales=(2, 4), ratios=(0.5, 1.0), rpn_post_nms_top_n=6, name="rois")
    features = mx.sym.var("features")
    pooled = mx.sym.ROIPooling(features, proposals[0], pooled_size=(2, 2), spatial_scale=0.25, name="pool")
    return mx.sym.Group([pooled, proposals[1]])


def proposal_inputs():
    rng = np.random.RandomState(0)
    return {"cls_prob": rng.rand(1, 8, 3, 4).astype(np.float32),
            "bbox_pred": (rng.randn(1, 16, 3, 4) * 0.2).astype(np.float32),
            "im_info": np.array([[12, 16, 1]], np.float32),
            "features": rng.randn(1, 2, 3, 4).astype(np.float32)}


def bind(symbol, values, grad_req="write"):
    executor = symbol.simple_bind(mx.cpu(), grad_req=grad_req, **{k: v.shape for k, v in values.items()})
    for name, value in values.items():
        executor.arg_dict[name][:] = value
    return executor


def test_proposal_layer_feeds_roi_pooling_without_gradient():
    net = proposal_graph()
    assert net.list_arguments() == ["features", "cls_prob", "bbox_pred", "im_info"]
    assert net.list_outputs() == ["pool_output", "rois_score"]
    values = proposal_inputs()
    arg_shapes, out_shapes, _ = net.infer_shape(**{k: v.shape for k, v in values.items()})
    assert out_shapes == [(6, 2, 2, 2), (6, 1)]
    assert RECEIVED["proposal"] == dict(feat_stride="4", scales="(2, 4)", ratios="(0.5, 1.0)",
                                        rpn_post_nms_top_n="6", output_score="False")
    executor = bind(net, values)
    pooled, scores = executor.forward(is_train=True)
    context, shapes, dtypes = RECEIVED["create"]
    assert context == mx.cpu() and shapes == [[1, 8, 3, 4], [1, 16, 3, 4], [1, 3]] and dtypes == [0, 0, 0]
    rois, expected_scores = reference_proposals(values["cls_prob"], values["bbox_pred"], values["im_info"],
                                                4, [2, 4], [0.5, 1.0], 6)
    np.testing.assert_allclose(scores.asnumpy(), expected_scores, rtol=1e-6)
    # the pooled features equal ROIPooling on the reference boxes
    direct = mx.nd.ROIPooling(mx.nd.array(values["features"]), mx.nd.array(rois), pooled_size=(2, 2),
                              spatial_scale=0.25)
    np.testing.assert_allclose(pooled.asnumpy(), direct.asnumpy(), rtol=1e-6)
    head = np.random.RandomState(1).randn(6, 2, 2, 2).astype(np.float32)
    executor.backward([mx.nd.array(head), mx.nd.ones((6, 1))])
    for name in ("cls_prob", "bbox_pred", "im_info"):
        np.testing.assert_array_equal(executor.grad_dict[name].asnumpy(), 0)
    reference = bind(mx.sym.ROIPooling(mx.sym.var("features"), mx.sym.var("rois"), pooled_size=(2, 2),
                                       spatial_scale=0.25),
                     {"features": values["features"], "rois": rois}, {"features": "write", "rois": "null"})
    reference.forward(is_train=True)
    reference.backward(mx.nd.array(head))
    np.testing.assert_allclose(executor.grad_dict["features"].asnumpy(),
                               reference.grad_dict["features"].asnumpy(), rtol=1e-6)


def test_proposal_graph_json_round_trip():
    net = proposal_graph()
    text = net.tojson()
    node = next(n for n in json.loads(text)["nodes"] if n["op"] == "Custom")
    assert node["attrs"] == {"feat_stride": "4", "op_type": "test_proposal", "ratios": "(0.5, 1.0)",
                             "rpn_post_nms_top_n": "6", "scales": "(2, 4)"}
    loaded = mx.sym.load_json(text)
    assert loaded.tojson() == text
    assert loaded.list_arguments() == net.list_arguments() and loaded.list_outputs() == net.list_outputs()
    values = proposal_inputs()
    first = [o.asnumpy() for o in bind(net, values, "null").forward()]
    second = [o.asnumpy() for o in bind(loaded, values, "null").forward()]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


# -- a softmax loss layer with its own gradient --------------------------------------------------
class SoftmaxLoss(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        y = np.exp(x - x.max(axis=1, keepdims=True))
        self.assign(out_data[0], req[0], mx.nd.array(y / y.sum(axis=1, keepdims=True)))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        label = in_data[1].asnumpy().astype(int)
        gradient = out_data[0].asnumpy().copy()
        gradient[np.arange(len(label)), label] -= 1.0
        self.assign(in_grad[0], req[0], mx.nd.array(gradient / len(label)))
        self.assign(in_grad[1], req[1], mx.nd.ones(in_grad[1].shape) * 99)   # 'null': must be ignored


@mx.operator.register("test_softmax")
class SoftmaxLossProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ["data", "label"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shape):
        data = in_shape[0]
        return [data, (data[0],)], [data], []

    def create_operator(self, ctx, shapes, dtypes):
        return SoftmaxLoss()


def softmax_net(custom):
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    if custom:
        return mx.sym.Custom(net, mx.sym.var("softmax_label"), op_type="test_softmax", name="softmax")
    return mx.sym.SoftmaxOutput(net, mx.sym.var("softmax_label"), normalization="batch", name="softmax")


def test_softmax_loss_layer_gradient_matches_softmax_output():
    rng = np.random.RandomState(2)
    values = {"data": rng.randn(4, 5).astype(np.float32), "fc_weight": rng.randn(3, 5).astype(np.float32),
              "fc_bias": rng.randn(3).astype(np.float32), "softmax_label": np.array([0, 2, 1, 2], np.float32)}
    custom = softmax_net(True)
    arg_shapes, _, _ = custom.infer_shape(data=(4, 5))          # label shape comes from the prop
    assert dict(zip(custom.list_arguments(), arg_shapes))["softmax_label"] == (4,)
    grad_req = {"data": "write", "fc_weight": "write", "fc_bias": "write", "softmax_label": "null"}
    results = []
    for net in (custom, softmax_net(False)):
        executor = bind(net, values, grad_req)
        output = executor.forward(is_train=True)[0].asnumpy()
        executor.backward()
        results.append((output, {k: v.asnumpy() for k, v in executor.grad_dict.items()}))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5)
    for name in ("data", "fc_weight", "fc_bias"):
        np.testing.assert_allclose(results[0][1][name], results[1][1][name], rtol=1e-5, atol=1e-7)
    # a loss layer ignores head gradients
    executor = bind(custom, values, grad_req)
    executor.forward(is_train=True)
    executor.backward(mx.nd.ones((4, 3)) * 7)
    np.testing.assert_allclose(executor.grad_dict["fc_bias"].asnumpy(), results[0][1]["fc_bias"], rtol=1e-5)


def test_softmax_loss_layer_label_gradient_request_write_is_honoured():
    values = {"data": np.zeros((2, 3), np.float32), "label": np.array([0, 1], np.float32)}
    net = mx.sym.Custom(mx.sym.var("data"), mx.sym.var("label"), op_type="test_softmax")
    executor = bind(net, values, "write")
    executor.forward(is_train=True)
    executor.backward()
    np.testing.assert_array_equal(executor.grad_dict["label"].asnumpy(), [99, 99])
    np.testing.assert_allclose(executor.grad_dict["data"].asnumpy(),
                               (np.full((2, 3), 1 / 3) - np.eye(3)[[0, 1]]) / 2, rtol=1e-6)


# -- head gradients, accumulation, aux states, imperative use ------------------------------------
class Cube(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] ** 3)
        aux[0][:] = aux[0] + 1                     # counts forward calls
        RECEIVED["is_train"] = is_train

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], 3 * in_data[0] ** 2 * out_grad[0])


@mx.operator.register("test_cube")
class CubeProp(mx.operator.CustomOpProp):
    def list_auxiliary_states(self):
        return ["calls"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], [(1,)]

    def create_operator(self, ctx, shapes, dtypes):
        return Cube()


def test_head_gradients_add_request_and_aux_state():
    net = mx.sym.Custom(mx.sym.var("x"), op_type="test_cube", name="cube")
    assert net.list_auxiliary_states() == ["cube_calls"]
    x = np.array([[1.0, -2.0, 0.5]], np.float32)
    executor = net.simple_bind(mx.cpu(), grad_req="add", x=(1, 3))
    executor.arg_dict["x"][:] = x
    head = np.array([[1.0, 2.0, 3.0]], np.float32)
    for _ in range(2):
        output = executor.forward(is_train=True)[0].asnumpy()
        executor.backward(mx.nd.array(head))
    assert RECEIVED["is_train"] is True
    np.testing.assert_allclose(output, x ** 3)
    np.testing.assert_allclose(executor.grad_dict["x"].asnumpy(), 2 * 3 * x ** 2 * head, rtol=1e-6)
    np.testing.assert_array_equal(executor.aux_dict["cube_calls"].asnumpy(), [2])
    executor.forward(is_train=False)
    assert RECEIVED["is_train"] is False


def test_imperative_custom_with_autograd():
    x = mx.nd.array([1.0, 2.0, 3.0])
    calls = mx.nd.zeros((1,))
    np.testing.assert_allclose(mx.nd.Custom(x, calls, op_type="test_cube").asnumpy(), [1, 8, 27])
    np.testing.assert_array_equal(calls.asnumpy(), [1])
    rois, scores = mx.nd.Custom(*[mx.nd.array(v) for k, v in proposal_inputs().items() if k != "features"],
                                op_type="test_proposal", feat_stride="4", scales="(2, 4)", ratios="(1,)",
                                rpn_post_nms_top_n="3")
    assert rois.shape == (3, 5) and scores.shape == (3, 1)


def test_assign_requests():
    op = mx.operator.CustomOp()
    target = mx.nd.ones((2,))
    op.assign(target, "null", mx.nd.array([5, 6]))
    np.testing.assert_array_equal(target.asnumpy(), [1, 1])
    op.assign(target, "write", mx.nd.array([5, 6]))
    np.testing.assert_array_equal(target.asnumpy(), [5, 6])
    op.assign(target, "add", mx.nd.array([1, 1]))
    np.testing.assert_array_equal(target.asnumpy(), [6, 7])
    op.assign(target, "inplace", mx.nd.array([0, 1]))
    np.testing.assert_array_equal(target.asnumpy(), [0, 1])
    with pytest.raises(mx.MXNetError, match="req"):
        op.assign(target, "bogus", mx.nd.array([0, 1]))


def test_default_prop_and_dependencies():
    prop = mx.operator.CustomOpProp()
    assert prop.list_arguments() == ["data"] and prop.list_outputs() == ["output"]
    assert prop.infer_shape([[2, 3]]) == ([[2, 3]], ([2, 3],), ())
    assert prop.infer_type([np.float32]) == ([np.float32], [np.float32], [])
    assert prop.declare_backward_dependency([1], [2], [3]) == [1, 2, 3]
    assert mx.operator.CustomOpProp(need_top_grad=False).declare_backward_dependency([1], [2], [3]) == [2, 3]


def test_custom_errors():
    with pytest.raises(mx.MXNetError, match="not_registered.*not registered"):
        mx.sym.Custom(mx.sym.var("x"), op_type="not_registered")
    with pytest.raises(mx.MXNetError, match="test_softmax.*does not accept"):
        mx.sym.Custom(mx.sym.var("x"), op_type="test_softmax", unexpected=1)

    @mx.operator.register("test_bad_shape")
    class BadShape(mx.operator.CustomOpProp):
        def infer_shape(self, in_shape):
            return in_shape, []

    with pytest.raises(mx.MXNetError, match="test_bad_shape.*output entries, expected 1"):
        mx.sym.Custom(mx.sym.var("x"), op_type="test_bad_shape").infer_shape(x=(2,))

    @mx.operator.register("test_conflict")
    class Conflict(mx.operator.CustomOpProp):
        def infer_shape(self, in_shape):
            return [(5,)], [(5,)]

    with pytest.raises(mx.MXNetError, match=r"test_conflict.*'data'.*\(2,\).*\(5,\)"):
        mx.sym.Custom(mx.sym.var("x"), op_type="test_conflict").infer_shape(x=(2,))
    with pytest.raises(mx.MXNetError, match="CustomOpProp subclass"):
        mx.operator.register("test_not_a_prop")(object)


def test_legacy_numpy_op():
    class Double(mx.operator.NumpyOp):
        def __init__(self):
            super().__init__(need_top_grad=True)

        def forward(self, in_data, out_data):
            out_data[0][:] = in_data[0] * 2

        def backward(self, out_grad, in_data, out_data, in_grad):
            in_grad[0][:] = out_grad[0] * 2

    net = Double()(mx.sym.var("x"), name="double")
    executor = net.simple_bind(mx.cpu(), x=(3,))
    executor.arg_dict["x"][:] = np.array([1, 2, 3], np.float32)
    np.testing.assert_allclose(executor.forward(is_train=True)[0].asnumpy(), [2, 4, 6])
    executor.backward(mx.nd.array([1, 1, 2]))
    np.testing.assert_allclose(executor.grad_dict["x"].asnumpy(), [2, 2, 4])


def test_operator_listing():
    names = mx.operator.get_all_registered_operators()
    assert {"Custom", "RNN", "Deconvolution", "_contrib_ROIAlign"} <= set(names)
    arguments = mx.operator.get_operator_arguments("LRN")
    assert arguments.names[0] == "data" and "nsize" in arguments.names
    assert arguments.narg == len(arguments.names) == len(arguments.types)
    # MXNet 1.9.1: the five activation types, listed sorted
    activation = mx.operator.get_operator_arguments("Activation")
    assert activation.names == ["data", "act_type"]
    assert activation.types == ["NDArray-or-Symbol", "{'relu', 'sigmoid', 'softrelu', 'softsign', 'tanh'}, required"]
    with pytest.raises(mx.base.MXNetError, match="act_type"):
        mx.nd.Activation(mx.nd.ones((2,)), act_type="mish")     # not an MXNet 1.9.1 activation
