"""Detection operators: Proposal, MultiProposal, PSROIPooling, DeformablePSROIPooling,
DeformableConvolution, box_nms, box_iou, box_encode, box_decode, bipartite_matching,
BilinearResize2D and AdaptiveAvgPooling2D.

- reference cases recorded with MXNet 1.9.1 (tests/data/ops_detection, made by
  tools/gen_ops_detection.py): outputs and input gradients, including the zero gradients
  of the operators MXNet does not differentiate;
- finite-difference gradient checks in float64 through the executor;
- independent checks (Faster R-CNN anchors, deformable convolution with zero offsets equals
  Convolution, IoU by formula), names, hidden outputs and aliases;
- shape inference, and shape errors that name the operator, the argument and the shapes.
"""
import json
import os

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.ops.detection import rpn_anchors
from op_checks import bind, numeric_gradient_check, symbol_for

DATA = os.path.join(os.path.dirname(__file__), "data", "ops_detection")
with open(os.path.join(DATA, "index.json")) as handle:
    REFERENCE = json.load(handle)["cases"]

# operators whose outputs are selections or exact float32 formulas of their inputs
EXACT = ("_contrib_box_nms", "_contrib_box_iou", "_contrib_bipartite_matching", "_contrib_box_decode")


@pytest.mark.parametrize("case", REFERENCE, ids=[c["name"] for c in REFERENCE])
def test_reference_case(case):
    arrays = np.load(os.path.join(DATA, case["name"] + ".npz"))
    values = {n: arrays["arg:" + n] for n in case["inputs"]}
    symbol = symbol_for(case["op"], case["inputs"], case["attrs"])
    assert symbol.list_arguments() == case["inputs"]
    assert symbol.list_outputs() == case["outputs"]
    executor = bind(symbol, values, case["grad_req"])
    outputs = executor.forward(is_train=case["backward"])
    assert len(outputs) == len(case["outputs"])
    rtol, atol = (0, 0) if case["op"] in EXACT else (1e-5, 1e-5)
    for i, output in enumerate(outputs):
        expected = arrays[f"out:{i}"]
        if expected.dtype == np.float64:    # float64 cases: MXNet's float32 steps show at 1e-6
            rtol, atol = min(rtol, 1e-12), min(atol, 1e-12)
        assert output.shape == expected.shape
        assert output.dtype == expected.dtype
        np.testing.assert_allclose(output.asnumpy(), expected, rtol=rtol, atol=atol, err_msg=f"output {i}")
    if not case["backward"]:
        return
    executor.backward([mx.nd.array(arrays[f"head:{i}"]) for i in range(len(outputs))])
    for n in case["inputs"]:
        if case["grad_req"][n] == "write":
            np.testing.assert_allclose(executor.grad_dict[n].asnumpy(), arrays["grad:" + n], rtol=1e-4, atol=1e-5,
                                       err_msg=f"gradient of {n}")


def test_reference_covers_zero_gradients_of_box_operators():
    """MXNet gives these operators zero input gradients; the recorded cases hold them."""
    ops = {c["op"] for c in REFERENCE if c["backward"] and all(
        not np.load(os.path.join(DATA, c["name"] + ".npz"))["grad:" + n].any()
        for n in c["inputs"] if c["grad_req"][n] == "write")}
    assert {"_contrib_Proposal", "_contrib_MultiProposal", "_contrib_box_iou", "_contrib_box_encode",
            "_contrib_box_decode", "_contrib_bipartite_matching"} <= ops


# -- finite differences ----------------------------------------------------------------------------
RNG = np.random.RandomState(11)
ROIS = np.array([[0, 0.3, 0.8, 6.2, 5.1], [0, 2.1, 1.2, 4.4, 3.3]])          # no corner at a rounding tie
GRADIENT_CASES = [
    ("_contrib_DeformableConvolution",
     {"data": RNG.randn(1, 2, 4, 5), "offset": RNG.uniform(-1.4, 1.4, (1, 8, 5, 4)), "weight": RNG.randn(3, 2, 2, 2),
      "bias": RNG.randn(3)}, {"kernel": "(2, 2)", "pad": "(1, 0)", "num_filter": "3"}, None),
    ("_contrib_DeformableConvolution",
     {"data": RNG.randn(1, 4, 5, 4), "offset": RNG.uniform(-1.2, 1.2, (1, 16, 2, 2)), "weight": RNG.randn(2, 2, 2, 2)},
     {"kernel": "(2, 2)", "stride": "(2, 2)", "dilate": "(2, 1)", "num_filter": "2", "num_group": "2",
      "num_deformable_group": "2", "no_bias": "True"}, None),
    ("_contrib_PSROIPooling", {"data": RNG.randn(1, 8, 7, 7), "rois": ROIS},
     {"spatial_scale": "1.0", "output_dim": "2", "pooled_size": "2"}, ["data"]),
    ("_contrib_DeformablePSROIPooling",
     {"data": RNG.randn(1, 8, 7, 7), "rois": ROIS, "trans": RNG.randn(2, 2, 2, 2)},
     {"spatial_scale": "1.0", "output_dim": "2", "group_size": "2", "pooled_size": "2", "sample_per_part": "2",
      "trans_std": "0.1"}, ["data", "trans"]),
    ("_contrib_BilinearResize2D", {"data": RNG.randn(1, 2, 3, 4)}, {"height": "5", "width": "3"}, None),
    ("_contrib_BilinearResize2D", {"data": RNG.randn(1, 1, 3, 4)},
     {"height": "1", "width": "7", "align_corners": "False"}, None),
    ("_contrib_AdaptiveAvgPooling2D", {"data": RNG.randn(1, 2, 5, 4)}, {"output_size": "(2, 3)"}, None),
    ("_contrib_box_nms",
     {"data": np.concatenate([RNG.permutation(6)[:, None] / 6.0 + 0.05,
                              np.tile([[0.1, 0.1, 0.5, 0.5]], (6, 1)) + RNG.uniform(0, 0.3, (6, 4))], axis=1)},
     {"score_index": "0", "coord_start": "1", "overlap_thresh": "0.4"}, None),
]


@pytest.mark.parametrize("op, inputs, attrs, wrt", GRADIENT_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(GRADIENT_CASES)])
def test_finite_difference_gradient(op, inputs, attrs, wrt):
    numeric_gradient_check(op, inputs, attrs, wrt)


def test_box_nms_gradient_routes_rows_and_ignores_the_format_conversion():
    data = np.array([[0.9, 0.1, 0.1, 0.4, 0.4], [0.8, 0.12, 0.1, 0.42, 0.4], [0.7, 0.6, 0.6, 0.9, 0.8],
                     [0.05, 0.5, 0.5, 0.6, 0.6]])
    attrs = {"score_index": 0, "coord_start": 1, "valid_thresh": 0.1, "out_format": "center"}
    executor = bind(symbol_for("_contrib_box_nms", ["data"], attrs), {"data": data})
    output = executor.forward(is_train=True)[0].asnumpy()
    np.testing.assert_allclose(output[0], [0.9, 0.25, 0.25, 0.3, 0.3], rtol=1e-12)
    np.testing.assert_array_equal(output[2:], -1)
    head = np.arange(20.0).reshape(4, 5)
    executor.backward(mx.nd.array(head, dtype=np.float64))
    grad = executor.grad_dict["data"].asnumpy()
    np.testing.assert_array_equal(grad[0], head[0])
    np.testing.assert_array_equal(grad[2], head[1])                  # row 2 is the second kept row
    np.testing.assert_array_equal(grad[[1, 3]], 0)                   # suppressed / below valid_thresh


def test_box_nms_suppresses_within_a_class_and_empties_items_without_valid_boxes():
    data = mx.nd.array([[[0, 0.01, 0.1, 0.1, 0.5, 0.6], [1, 0.02, 0.12, 0.1, 0.5, 0.6], [1, 0.03, 0.1, 0.1, 0.5, 0.6]],
                        [[0, 0.9, 0.1, 0.1, 0.5, 0.6], [1, 0.8, 0.12, 0.1, 0.5, 0.6], [1, 0.7, 0.1, 0.1, 0.5, 0.6]]])
    output = mx.nd.contrib.box_nms(data, id_index=0, valid_thresh=0.5).asnumpy()
    np.testing.assert_array_equal(output[0], -1)
    np.testing.assert_array_equal(output[1, :2], data.asnumpy()[1, :2])   # overlapping, but different classes
    np.testing.assert_array_equal(output[1, 2], -1)                       # same class as row 1: suppressed
    forced = mx.nd.contrib.box_nms(data, id_index=0, valid_thresh=0.5, force_suppress=True).asnumpy()
    np.testing.assert_array_equal(forced[1, 0], data.asnumpy()[1, 0])
    np.testing.assert_array_equal(forced[1, 1:], -1)


def test_imperative_calls_check_shapes():
    with pytest.raises(mx.MXNetError, match="DeformablePSROIPooling.*trans.*(1, 2, 1, 1)"):
        mx.nd.contrib.DeformablePSROIPooling(mx.nd.ones((1, 8, 5, 5)), mx.nd.array([[0, 1, 1, 3, 3]]),
                                             mx.nd.ones((1, 2, 1, 1)), spatial_scale=1.0, output_dim=2, group_size=2,
                                             pooled_size=2)
    with pytest.raises(mx.MXNetError, match="DeformableConvolution.*offset"):
        mx.nd.contrib.DeformableConvolution(mx.nd.ones((1, 2, 5, 5)), mx.nd.ones((1, 18, 5, 5)),
                                            mx.nd.ones((2, 2, 3, 3)), mx.nd.ones((2,)), kernel=(3, 3), num_filter=2)
    with pytest.raises(mx.MXNetError, match="box_decode.*anchors"):
        mx.nd.contrib.box_decode(mx.nd.ones((2, 5, 4)), mx.nd.ones((1, 3, 4)))


# -- independent checks ----------------------------------------------------------------------------
def test_rpn_anchors_are_faster_rcnn_anchors():
    expected = [[-84, -40, 99, 55], [-176, -88, 191, 103], [-360, -184, 375, 199], [-56, -56, 71, 71],
                [-120, -120, 135, 135], [-248, -248, 263, 263], [-36, -80, 51, 95], [-80, -168, 95, 183],
                [-168, -344, 183, 359]]
    np.testing.assert_array_equal(rpn_anchors(16, (0.5, 1, 2), (8, 16, 32)), expected)


def test_deformable_convolution_with_zero_offsets_is_convolution():
    rng = np.random.RandomState(4)
    data, weight, bias = rng.randn(2, 4, 6, 7), rng.randn(6, 2, 3, 2), rng.randn(6)
    attrs = dict(kernel=(3, 2), stride=(2, 1), dilate=(1, 2), pad=(1, 1), num_filter=6, num_group=2)
    expected = mx.nd.Convolution(mx.nd.array(data), mx.nd.array(weight), mx.nd.array(bias), **attrs).asnumpy()
    offset = mx.nd.zeros((2, 2 * 2 * 6) + expected.shape[2:])
    result = mx.nd.contrib.DeformableConvolution(mx.nd.array(data), offset, mx.nd.array(weight), mx.nd.array(bias),
                                                 num_deformable_group=2, **attrs).asnumpy()
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-5)


def test_deformable_convolution_offsets_move_the_sampling_point():
    data = np.arange(20.0).reshape(1, 1, 4, 5)
    offset = np.zeros((1, 2, 4, 5))
    offset[0, 0], offset[0, 1] = 0.5, 0.25                            # down half a row, right a quarter column
    offset[0, :, 3, 4] = [0.5, 0.5]                                  # last row and column: held at the border
    output = mx.nd.contrib.DeformableConvolution(mx.nd.array(data), mx.nd.array(offset), mx.nd.ones((1, 1, 1, 1)),
                                                 kernel=(1, 1), num_filter=1, no_bias=True).asnumpy()[0, 0]
    expected = data[0, 0] + 0.5 * 5 + 0.25
    expected[3, :4] = data[0, 0, 3, :4] + 0.25                         # rows beyond the last read the last row
    expected[:3, 4] = data[0, 0, :3, 4] + 2.5
    expected[3, 4] = data[0, 0, 3, 4]
    np.testing.assert_allclose(output, expected, rtol=1e-6)


def test_box_iou_by_formula():
    rng = np.random.RandomState(2)
    lhs = np.sort(rng.uniform(0, 1, (4, 2, 2)), axis=1).transpose(0, 2, 1).reshape(4, 4)[:, [0, 2, 1, 3]]
    rhs = np.sort(rng.uniform(0, 1, (3, 2, 2)), axis=1).transpose(0, 2, 1).reshape(3, 4)[:, [0, 2, 1, 3]]
    result = mx.nd.contrib.box_iou(mx.nd.array(lhs, dtype=np.float64), mx.nd.array(rhs, dtype=np.float64)).asnumpy()
    for i, a in enumerate(lhs):
        for j, b in enumerate(rhs):
            w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
            h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
            union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
            assert result[i, j] == pytest.approx(w * h / union, rel=1e-12)


def test_bipartite_matching_makes_topk_plus_one_matches_like_mxnet():
    scores = mx.nd.array([[0.5, 0.9, 0.9], [0.9, 0.2, 0.6], [0.7, 0.9, 0.1]])
    rows, cols = mx.nd.contrib.bipartite_matching(scores, threshold=0.1, topk=1)
    np.testing.assert_array_equal(rows.asnumpy(), [1, 0, -1])
    np.testing.assert_array_equal(cols.asnumpy(), [1, 0, -1])
    rows, _ = mx.nd.contrib.bipartite_matching(scores, threshold=0.65, is_ascend=True)
    np.testing.assert_array_equal(rows.asnumpy(), [0, 1, 2])


def test_proposal_refuses_batches_and_oversized_image_info():
    cls_prob, bbox_pred = mx.nd.ones((2, 2, 3, 3)), mx.nd.zeros((2, 4, 3, 3))
    im_info = mx.nd.array([[12, 12, 1], [12, 12, 1]])
    attrs = dict(scales=(2,), ratios=(1,), feature_stride=4, rpn_min_size=1)
    with pytest.raises(mx.MXNetError, match="Proposal.*batch of 2.*MultiProposal"):
        mx.nd.contrib.Proposal(cls_prob, bbox_pred, im_info, **attrs)
    rows = mx.nd.contrib.MultiProposal(cls_prob, bbox_pred, im_info, rpn_post_nms_top_n=4, **attrs).asnumpy()
    np.testing.assert_array_equal(rows[:, 0], [0] * 4 + [1] * 4)
    with pytest.raises(mx.MXNetError, match="im_info.*exceeds the feature map"):
        mx.nd.contrib.Proposal(cls_prob[:1], bbox_pred[:1], mx.nd.array([[20, 12, 1]]), **attrs)


def test_proposal_repeats_the_kept_boxes_and_keeps_ties_in_order():
    # four equal scores: the boxes come out in (row, column, anchor) order, then cyclically
    cls_prob = mx.nd.ones((1, 2, 2, 2))
    output, score = mx.nd.contrib.Proposal(cls_prob, mx.nd.zeros((1, 4, 2, 2)), mx.nd.array([[8, 8, 1]]),
                                           scales=(1,), ratios=(1,), feature_stride=4, rpn_min_size=1,
                                           threshold=0.7, rpn_post_nms_top_n=6, output_score=True)
    corners = [[0, 0, 3, 3], [4, 0, 7, 3], [0, 4, 3, 7], [4, 4, 7, 7]]
    np.testing.assert_array_equal(output.asnumpy()[:, 1:], corners + corners[:2])
    np.testing.assert_array_equal(score.asnumpy(), np.ones((6, 1)))


# -- names, hidden outputs, aliases ----------------------------------------------------------------
def test_outputs_arguments_and_aliases():
    v = mx.sym.var
    proposal = mx.sym.Proposal(v("cls_prob"), v("bbox_pred"), v("im_info"), name="rpn")
    assert proposal.list_outputs() == ["rpn_output"]
    scored = mx.sym.contrib.Proposal(v("cls_prob"), v("bbox_pred"), v("im_info"), output_score=True, name="rpn")
    assert scored.list_outputs() == ["rpn_output", "rpn_score"]
    assert mx.sym.MultiProposal(v("a"), v("b"), v("c"), name="m").list_arguments() == ["a", "b", "c"]
    pooled = mx.sym.contrib.DeformablePSROIPooling(data=v("data"), rois=v("rois"), spatial_scale=0.0625,
                                                   output_dim=2, group_size=2, pooled_size=2, no_trans=True, name="p")
    assert pooled.list_arguments() == ["data", "rois"] and pooled.list_outputs() == ["p_output"]
    deform = mx.sym.contrib.DeformableConvolution(v("data"), v("offset"), kernel=(3, 3), num_filter=2, name="dc")
    assert deform.list_arguments() == ["data", "offset", "dc_weight", "dc_bias"]
    nms = mx.sym.contrib.box_non_maximum_suppression(v("data"), name="nms")
    assert nms.list_outputs() == ["nms_output0"]
    assert json.loads(nms.tojson())["nodes"][-1]["op"] == "_contrib_box_nms"
    assert mx.sym.contrib.bipartite_matching(v("s"), threshold=0.5, name="b").list_outputs() == ["b_output0",
                                                                                                   "b_output1"]
    assert mx.sym.contrib.BilinearResize2D(v("data"), v("like"), mode="like").list_arguments() == ["data", "like"]
    assert mx.sym.contrib.BilinearResize2D(v("data"), height=2, width=2).list_arguments() == ["data"]
    data = mx.nd.array([[0, 0.9, 0.1, 0.1, 0.5, 0.6], [0, 0.8, 0.12, 0.1, 0.5, 0.6]])
    np.testing.assert_array_equal(mx.nd.contrib.box_non_maximum_suppression(data).asnumpy(),
                                  mx.nd.contrib.box_nms(data).asnumpy())


def test_json_round_trip_of_an_rfcn_head():
    data, rois = mx.sym.var("data"), mx.sym.var("rois")
    offset = mx.sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=18, name="offset")
    net = mx.sym.contrib.DeformableConvolution(data, offset, kernel=(3, 3), pad=(1, 1), num_filter=8, name="dconv")
    net = mx.sym.contrib.PSROIPooling(net, rois, spatial_scale=0.0625, output_dim=2, pooled_size=2, name="psroi")
    net = mx.sym.contrib.AdaptiveAvgPooling2D(net, name="gap")
    loaded = mx.sym.load_json(net.tojson())
    assert loaded.tojson() == net.tojson()
    assert loaded.infer_shape(data=(1, 4, 8, 8), rois=(3, 5))[1] == [(3, 2, 1, 1)]


def test_imperative_equals_symbolic():
    rng = np.random.RandomState(5)
    values = {"data": rng.randn(1, 8, 6, 6).astype(np.float32), "rois": np.array([[0, 1, 1, 40, 30]], np.float32),
              "trans": rng.randn(1, 2, 2, 2).astype(np.float32)}
    attrs = dict(spatial_scale=0.125, output_dim=2, group_size=2, pooled_size=2, sample_per_part=2, trans_std=0.1)
    symbolic = bind(symbol_for("_contrib_DeformablePSROIPooling", list(values), attrs), values, "null").forward()
    imperative = mx.nd.contrib.DeformablePSROIPooling(*[mx.nd.array(v) for v in values.values()], **attrs)
    np.testing.assert_array_equal(imperative.asnumpy(), symbolic[0].asnumpy())


def test_float16_and_float64_follow_the_data():
    rng = np.random.RandomState(3)
    data = rng.randn(1, 2, 4, 4)
    for dtype in (np.float16, np.float64):
        resized = mx.nd.contrib.BilinearResize2D(mx.nd.array(data, dtype=dtype), height=3, width=5)
        pooled = mx.nd.contrib.AdaptiveAvgPooling2D(mx.nd.array(data, dtype=dtype), output_size=2)
        assert resized.dtype == dtype and pooled.dtype == dtype
        np.testing.assert_allclose(pooled.asnumpy(), data.reshape(1, 2, 2, 2, 2, 2).mean(axis=(3, 5)), rtol=1e-3)


# -- shape inference -------------------------------------------------------------------------------
def test_inferred_shapes():
    v = mx.sym.var
    cases = [
        (mx.sym.contrib.Proposal(v("cls_prob"), v("bbox_pred"), v("im_info"), rpn_post_nms_top_n=7,
                                 output_score=True), {"cls_prob": (1, 24, 5, 6)},
         [(1, 24, 5, 6), (1, 48, 5, 6), (1, 3)], [(7, 5), (7, 1)]),
        (mx.sym.contrib.MultiProposal(v("cls_prob"), v("bbox_pred"), v("im_info"), rpn_post_nms_top_n=7),
         {"bbox_pred": (3, 48, 5, 6)}, [(3, 24, 5, 6), (3, 48, 5, 6), (3, 3)], [(21, 5)]),
        (mx.sym.contrib.DeformableConvolution(v("data"), v("offset"), kernel=(3, 3), num_filter=4, stride=(2, 2),
                                              pad=(1, 1), dilate=(2, 1), num_deformable_group=3, name="d"),
         {"data": (2, 6, 7, 8)}, [(2, 6, 7, 8), (2, 54, 3, 4), (4, 6, 3, 3), (4,)], [(2, 4, 3, 4)]),
        (mx.sym.contrib.PSROIPooling(v("data"), v("rois"), spatial_scale=1.0, output_dim=2, pooled_size=3,
                                     group_size=2), {"data": (1, 8, 5, 5), "rois": (4, 5)},
         [(1, 8, 5, 5), (4, 5)], [(4, 2, 3, 3)]),
        (mx.sym.contrib.DeformablePSROIPooling(v("data"), v("rois"), v("trans"), spatial_scale=1.0, output_dim=4,
                                               group_size=2, pooled_size=3, part_size=3),
         {"data": (1, 16, 5, 5), "rois": (4, 5), "trans": (4, 4, 3, 3)}, [(1, 16, 5, 5), (4, 5), (4, 4, 3, 3)],
         [(4, 4, 3, 3)]),
        (mx.sym.contrib.box_nms(v("data")), {"data": (2, 2, 5, 6)}, [(2, 2, 5, 6)], [(2, 2, 5, 6)]),
        (mx.sym.contrib.box_iou(v("lhs"), v("rhs")), {"lhs": (2, 3, 4), "rhs": (5, 4)}, [(2, 3, 4), (5, 4)],
         [(2, 3, 5)]),
        (mx.sym.contrib.box_encode(*[v(n) for n in ("samples", "matches", "anchors", "refs", "means", "stds")]),
         {"samples": (2, 5), "matches": (2, 5), "anchors": (2, 5, 4), "refs": (2, 3, 4)},
         [(2, 5), (2, 5), (2, 5, 4), (2, 3, 4), (4,), (4,)], [(2, 5, 4), (2, 5, 4)]),
        (mx.sym.contrib.box_decode(v("data"), v("anchors")), {"data": (2, 5, 4), "anchors": (1, 5, 4)},
         [(2, 5, 4), (1, 5, 4)], [(2, 5, 4)]),
        (mx.sym.contrib.bipartite_matching(v("data"), threshold=0.5), {"data": (2, 2, 3, 5)}, [(2, 2, 3, 5)],
         [(2, 2, 3), (2, 2, 5)]),
        (mx.sym.contrib.AdaptiveAvgPooling2D(v("data"), output_size=3), {"data": (2, 3, 5, 5)}, [(2, 3, 5, 5)],
         [(2, 3, 3, 3)]),
    ]
    for symbol, given, arguments, outputs in cases:
        arg_shapes, out_shapes, _ = symbol.infer_shape(**given)
        assert arg_shapes == arguments, symbol.list_arguments()
        assert out_shapes == outputs


@pytest.mark.parametrize("attrs, data, expected", [
    # sizes MXNet 1.9.1 infers
    ({"height": 4, "width": 6}, (2, 3, 5, 5), (4, 6)),
    ({"scale_height": 1.5, "scale_width": 0.5}, (2, 3, 5, 7), (7, 3)),
    ({"scale_height": 0.1, "scale_width": 0.7}, (1, 1, 30, 10), (3, 7)),
    ({"scale_width": 2.0, "height": 3, "width": 4}, (1, 1, 5, 7), (3, 4)),
    ({"mode": "odd_scale", "scale_height": 2.0, "scale_width": 3.0}, (1, 1, 5, 6), (9, 18)),
    ({"mode": "odd_scale", "scale_height": 2.0, "scale_width": 3.0}, (1, 1, 4, 7), (8, 19)),
    ({"mode": "to_even_down"}, (1, 1, 5, 6), (4, 6)),
    ({"mode": "to_even_up"}, (1, 1, 4, 7), (4, 8)),
    ({"mode": "to_odd_down"}, (1, 1, 4, 7), (3, 7)),
    ({"mode": "to_odd_up"}, (1, 1, 5, 6), (5, 7)),
])
def test_bilinear_resize_output_sizes(attrs, data, expected):
    symbol = mx.sym.contrib.BilinearResize2D(mx.sym.var("data"), **attrs)
    assert symbol.infer_shape(data=data)[1] == [data[:2] + expected]


def _contrib(name, *inputs, **attrs):
    return getattr(mx.sym.contrib, name)(*[mx.sym.var(n) for n in inputs], name="op", **attrs)


@pytest.mark.parametrize("build, given, words", [
    (lambda: _contrib("Proposal", "cls_prob", "bbox_pred", "im_info"), {"cls_prob": (1, 23, 5, 6)},
     ["Proposal", "cls_prob", "23", "24", "(1, 23, 5, 6)"]),
    (lambda: _contrib("Proposal", "cls_prob", "bbox_pred", "im_info"),
     {"cls_prob": (1, 24, 5, 6), "bbox_pred": (1, 44, 5, 6)},
     ["Proposal", "bbox_pred", "(1, 44, 5, 6)", "(1, 48, 5, 6)"]),
    (lambda: _contrib("Proposal", "cls_prob", "bbox_pred", "im_info"), {"cls_prob": (1, 24, 5)},
     ["Proposal", "cls_prob", "4-D", "(1, 24, 5)"]),
    (lambda: _contrib("PSROIPooling", "data", "rois", spatial_scale=1.0, output_dim=2, pooled_size=3),
     {"data": (1, 18, 5, 5), "rois": (4, 4)}, ["PSROIPooling", "rois", "(4, 4)"]),
    (lambda: _contrib("PSROIPooling", "data", "rois", spatial_scale=1.0, output_dim=2, pooled_size=3),
     {"data": (1, 17, 5, 5), "rois": (4, 5)}, ["PSROIPooling", "17", "18", "(1, 17, 5, 5)"]),
    (lambda: _contrib("DeformablePSROIPooling", "data", "rois", "trans", spatial_scale=1.0, output_dim=4,
                      group_size=2, pooled_size=3),
     {"data": (1, 16, 5, 5), "rois": (4, 5), "trans": (4, 3, 3, 3)}, ["DeformablePSROIPooling", "trans", "3"]),
    (lambda: _contrib("DeformablePSROIPooling", "data", "rois", "trans", spatial_scale=1.0, output_dim=4,
                      group_size=2, pooled_size=3),
     {"data": (1, 16, 5, 5), "rois": (4, 5), "trans": (4, 4, 2, 2)},
     ["DeformablePSROIPooling", "trans", "(4, 4, 2, 2)", "(4, 4, 3, 3)"]),
    (lambda: _contrib("DeformableConvolution", "data", "offset", kernel=(3, 3), num_filter=4),
     {"data": (2, 3, 7, 8), "offset": (2, 36, 5, 6)}, ["DeformableConvolution", "offset", "(2, 36, 5, 6)",
                                                        "(2, 18, 5, 6)"]),
    (lambda: _contrib("DeformableConvolution", "data", "offset", kernel=(3, 3), num_filter=4),
     {"data": (2, 3, 7, 8), "offset": (2, 18, 5, 7)}, ["DeformableConvolution", "offset", "(2, 18, 5, 7)"]),
    (lambda: _contrib("DeformableConvolution", "data", "offset", kernel=(3, 3), num_filter=4,
                      num_deformable_group=4), {"data": (2, 6, 7, 8)},
     ["DeformableConvolution", "num_deformable_group=4", "(2, 6, 7, 8)"]),
    (lambda: _contrib("DeformableConvolution", "data", "offset", kernel=(3, 3), num_filter=4, num_group=4),
     {"data": (2, 6, 7, 8)}, ["DeformableConvolution", "num_group=4", "(2, 6, 7, 8)"]),
    (lambda: _contrib("DeformableConvolution", "data", "offset", kernel=(3, 3), num_filter=4),
     {"data": (2, 3, 2, 2)}, ["DeformableConvolution", "kernel", "(2, 2)"]),
    (lambda: _contrib("DeformableConvolution", "data", "offset", kernel=(3, 3), num_filter=4),
     {"data": (2, 3, 7, 8), "op_weight": (4, 2, 3, 3)}, ["DeformableConvolution", "weight", "(4, 2, 3, 3)",
                                                          "(4, 3, 3, 3)"]),
    (lambda: _contrib("box_nms", "data"), {"data": (6,)}, ["box_nms", "(6,)"]),
    (lambda: _contrib("box_nms", "data"), {"data": (2, 5, 3)}, ["box_nms", "5", "(2, 5, 3)"]),
    (lambda: _contrib("box_nms", "data", id_index=5), {"data": (2, 5, 6)}, ["box_nms", "id_index=5",
                                                                            "coordinates"]),
    (lambda: _contrib("box_iou", "lhs", "rhs"), {"lhs": (2, 3, 5), "rhs": (5, 4)}, ["box_iou", "lhs", "(2, 3, 5)"]),
    (lambda: _contrib("box_encode", "samples", "matches", "anchors", "refs", "means", "stds"),
     {"samples": (2, 5), "matches": (2, 5), "anchors": (2, 6, 4), "refs": (2, 3, 4)},
     ["box_encode", "samples (2, 5)", "anchors (2, 6, 4)"]),
    (lambda: _contrib("box_decode", "data", "anchors"), {"data": (5, 4), "anchors": (1, 5, 4)},
     ["box_decode", "data", "3-D", "(5, 4)"]),
    (lambda: _contrib("box_decode", "data", "anchors"), {"data": (2, 5, 4), "anchors": (1, 4, 4)},
     ["box_decode", "anchors", "(1, 4, 4)", "(2, 5, 4)"]),
    (lambda: _contrib("bipartite_matching", "data", threshold=0.5), {"data": (5,)}, ["bipartite_matching", "(5,)"]),
    (lambda: _contrib("BilinearResize2D", "data", mode="to_even_down"), {"data": (1, 1, 1, 1)},
     ["BilinearResize2D", "to_even_down", "(0, 0)"]),
    (lambda: _contrib("BilinearResize2D", "data", height=2, width=2), {"data": (3, 5, 5)},
     ["BilinearResize2D", "data", "(3, 5, 5)"]),
    (lambda: _contrib("AdaptiveAvgPooling2D", "data", output_size=(2, 3)), {"data": (3, 5, 5)},
     ["AdaptiveAvgPooling2D", "data", "(3, 5, 5)"]),
])
def test_shape_errors_name_operator_argument_and_shapes(build, given, words):
    with pytest.raises(mx.MXNetError) as error:
        build().infer_shape(**given)
    message = str(error.value)
    for word in words:
        assert word in message, message


def test_attribute_errors():
    v = mx.sym.var
    with pytest.raises(mx.MXNetError, match="DeformableConvolution.*2-D"):
        mx.sym.contrib.DeformableConvolution(v("data"), v("offset"), kernel=(3,), num_filter=2)
    with pytest.raises(mx.MXNetError, match="BilinearResize2D.*odd_scale.*scale_height and scale_width"):
        mx.sym.contrib.BilinearResize2D(v("data"), mode="odd_scale", scale_height=2.0)
    with pytest.raises(mx.MXNetError, match="BilinearResize2D.*scale_width"):
        mx.sym.contrib.BilinearResize2D(v("data"), scale_height=2.0)
    with pytest.raises(mx.MXNetError, match="bipartite_matching.*threshold"):
        mx.sym.contrib.bipartite_matching(v("data"))
    with pytest.raises(mx.MXNetError, match="box_nms.*in_format"):
        mx.sym.contrib.box_nms(v("data"), in_format="xywh")


def test_multibox_prior_uses_the_first_ratio_for_every_size_as_mxnet():
    # values from MXNet 1.9.1: ratios[0] = 4 stretches the boxes of every size
    boxes = mx.contrib.nd.MultiBoxPrior(mx.nd.zeros((1, 1, 2, 3)), sizes=[0.5, 0.25], ratios=[4, 1])
    expected = [[-0.1666666716337204, 0.125, 0.5, 0.375], [0.0, 0.1875, 0.3333333432674408, 0.3125],
                [0.0, 0.0, 0.3333333432674408, 0.5]]
    np.testing.assert_allclose(boxes.asnumpy().reshape(-1, 4)[:3], expected, rtol=1e-6, atol=1e-7)
