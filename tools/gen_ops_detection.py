"""Reference cases for tests/test_ops_detection.py, made with real MXNet 1.9.1.

Run with the reference interpreter: ``~/mxref/bin/python tools/gen_ops_detection.py``.
Each case builds ``op(*variables, name='op', **attrs)``, binds it on the CPU, runs
``forward(is_train=backward)`` and, for cases with ``backward``, ``backward(head gradients)``;
it stores inputs, outputs, head gradients and input gradients in
``tests/data/ops_detection/<case>.npz`` and lists op, attributes, input and output names and
gradient requests in ``index.json``.

Proposal inputs are drawn so that the result does not depend on how MXNet's CPU kernel
orders equal scores (it sorts with ``std::sort``): either no box with score -1 reaches the
output, or there are at most 16 boxes (``std::sort`` then runs an insertion sort, which
keeps ties in their original order).
"""
import json
import os

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "ops_detection")
RANDOM = np.random.RandomState(20240917)
CASES = []


def normal(*shape, scale=1.0):
    return (RANDOM.randn(*shape) * scale).astype(np.float32)


def uniform(low, high, *shape):
    return RANDOM.uniform(low, high, shape).astype(np.float32)


def case(name, op, attrs, inputs, no_grad=(), backward=True, ties_checked=False):
    CASES.append(dict(name=name, op=op, attrs=attrs, inputs=inputs, no_grad=list(no_grad), backward=backward,
                      ties_checked=ties_checked))


def resolve(op):
    if op.startswith("_contrib_"):
        return getattr(mx.sym.contrib, op[len("_contrib_"):])
    return getattr(mx.sym, op)


def rois(count, batch, width, height, scale=1.0):
    """Random (batch_index, x1, y1, x2, y2) rows in image pixels, some reaching outside."""
    rows = []
    for _ in range(count):
        x1, x2 = sorted(RANDOM.uniform(-2, width / scale + 2, 2))
        y1, y2 = sorted(RANDOM.uniform(-2, height / scale + 2, 2))
        rows.append([RANDOM.randint(batch), x1, y1, x2, y2])
    return np.array(rows, np.float32)


def corner_boxes(count, low=0.0, high=1.0, min_size=0.05, max_size=0.5):
    x = RANDOM.uniform(low, high - min_size, count)
    y = RANDOM.uniform(low, high - min_size, count)
    w = RANDOM.uniform(min_size, max_size, count)
    h = RANDOM.uniform(min_size, max_size, count)
    return np.stack([x, y, x + w, y + h], axis=1).astype(np.float32)


def clustered_boxes(count, centres=3):
    """Corner boxes around a few centres, so that many overlap."""
    middle = RANDOM.uniform(0.2, 0.8, (centres, 2))
    pick = RANDOM.randint(centres, size=count)
    centre = middle[pick] + RANDOM.randn(count, 2) * 0.04
    half = RANDOM.uniform(0.08, 0.16, (count, 2))
    return np.concatenate([centre - half, centre + half], axis=1).astype(np.float32)


def proposal_inputs(batch, anchors, height, width, spread=0.3):
    scores = RANDOM.permutation(batch * 2 * anchors * height * width).astype(np.float32)
    scores = (scores / scores.size + 0.01).reshape(batch, 2 * anchors, height, width)   # distinct, positive
    return scores, normal(batch, 4 * anchors, height, width, scale=spread)


def build():
    # -- region proposals
    scores, deltas = proposal_inputs(1, 6, 5, 6)
    case("Proposal_padding_min_size", "_contrib_Proposal",
         {"scales": "(2, 4)", "ratios": "(0.5, 1, 2)", "feature_stride": "8", "rpn_pre_nms_top_n": "50",
          "rpn_post_nms_top_n": "10", "threshold": "0.5", "rpn_min_size": "6", "output_score": "True"},
         [("cls_prob", scores), ("bbox_pred", deltas), ("im_info", np.array([[36, 44, 1.0]], np.float32))],
         ties_checked=True)
    scores, deltas = proposal_inputs(1, 1, 3, 4, spread=0.2)
    case("Proposal_ties_repeat", "_contrib_Proposal",
         {"scales": "(3,)", "ratios": "(1,)", "feature_stride": "4", "rpn_post_nms_top_n": "12",
          "threshold": "0.3", "rpn_min_size": "1", "output_score": "True"},
         [("cls_prob", scores), ("bbox_pred", deltas), ("im_info", np.array([[8, 12, 1.0]], np.float32))],
         backward=False)
    scores, deltas = proposal_inputs(1, 2, 4, 4, spread=2.0)
    case("Proposal_iou_loss", "_contrib_Proposal",
         {"scales": "(2,)", "ratios": "(0.5, 2)", "feature_stride": "8", "rpn_pre_nms_top_n": "20",
          "rpn_post_nms_top_n": "6", "threshold": "0.6", "rpn_min_size": "2", "iou_loss": "True",
          "output_score": "True"},
         [("cls_prob", scores), ("bbox_pred", deltas), ("im_info", np.array([[32, 32, 2.0]], np.float32))],
         backward=False, ties_checked=True)
    scores, deltas = proposal_inputs(2, 3, 4, 5)
    case("MultiProposal_two_images", "_contrib_MultiProposal",
         {"scales": "(2,)", "ratios": "(0.5, 1, 2)", "feature_stride": "8", "rpn_pre_nms_top_n": "30",
          "rpn_post_nms_top_n": "8", "threshold": "0.5", "rpn_min_size": "2", "output_score": "True"},
         [("cls_prob", scores), ("bbox_pred", deltas),
          ("im_info", np.array([[32, 40, 1.0], [24, 32, 0.5]], np.float32))], ties_checked=True)
    # -- position-sensitive ROI pooling
    case("PSROIPooling_scaled", "_contrib_PSROIPooling",
         {"spatial_scale": "0.5", "output_dim": "2", "pooled_size": "3"},
         [("data", normal(2, 18, 6, 7)), ("rois", rois(5, 2, 7, 6, 0.5))], no_grad=["rois"])
    small = np.array([[0, 2.2, 2.6, 2.4, 2.9]], np.float32)                      # a roi of one pixel
    case("PSROIPooling_group2", "_contrib_PSROIPooling",
         {"spatial_scale": "1.0", "output_dim": "3", "pooled_size": "3", "group_size": "2"},
         [("data", normal(1, 12, 5, 5)), ("rois", np.concatenate([rois(3, 1, 5, 5), small]))], no_grad=["rois"])
    case("DeformablePSROIPooling_trans", "_contrib_DeformablePSROIPooling",
         {"spatial_scale": "0.5", "output_dim": "4", "group_size": "2", "pooled_size": "3", "part_size": "3",
          "sample_per_part": "2", "trans_std": "0.1"},
         [("data", normal(2, 16, 6, 7)), ("rois", rois(4, 2, 7, 6, 0.5)), ("trans", normal(4, 4, 3, 3))],
         no_grad=["rois"])
    case("DeformablePSROIPooling_parts", "_contrib_DeformablePSROIPooling",
         {"spatial_scale": "1.0", "output_dim": "2", "group_size": "3", "pooled_size": "3", "part_size": "2",
          "sample_per_part": "3", "trans_std": "0.2"},
         [("data", normal(1, 18, 6, 6)), ("rois", rois(3, 1, 6, 6)), ("trans", normal(3, 2, 2, 2))],
         no_grad=["rois"])
    case("DeformablePSROIPooling_no_trans", "_contrib_DeformablePSROIPooling",
         {"spatial_scale": "1.0", "output_dim": "2", "group_size": "2", "pooled_size": "2", "no_trans": "True"},
         [("data", normal(1, 8, 5, 5)), ("rois", rois(3, 1, 5, 5))], no_grad=["rois"])
    # -- deformable convolution
    case("DeformableConvolution_pad_bias", "_contrib_DeformableConvolution",
         {"kernel": "(3, 3)", "pad": "(1, 1)", "num_filter": "4"},
         [("data", normal(2, 3, 6, 7)), ("offset", normal(2, 18, 6, 7, scale=1.5)), ("weight", normal(4, 3, 3, 3)),
          ("bias", normal(4))])
    case("DeformableConvolution_groups", "_contrib_DeformableConvolution",
         {"kernel": "(2, 3)", "stride": "(2, 1)", "dilate": "(2, 1)", "pad": "(1, 0)", "num_filter": "4",
          "num_group": "2", "num_deformable_group": "2", "no_bias": "True"},
         [("data", normal(1, 4, 7, 8)), ("offset", normal(1, 24, 4, 6, scale=1.2)), ("weight", normal(4, 2, 2, 3))])
    # -- box_nms
    data = np.zeros((2, 8, 6), np.float32)
    data[:, :, 0] = RANDOM.randint(3, size=(2, 8))
    data[:, :, 1] = RANDOM.permutation(16).reshape(2, 8) / 16.0 + 0.01
    data[:, :, 2:] = clustered_boxes(16).reshape(2, 8, 4)
    case("box_nms_classes_topk", "_contrib_box_nms",
         {"overlap_thresh": "0.3", "valid_thresh": "0.1", "topk": "6", "id_index": "0"}, [("data", data)])
    centre = clustered_boxes(7)
    boxes = np.stack([(centre[:, 0] + centre[:, 2]) / 2, (centre[:, 1] + centre[:, 3]) / 2,
                      centre[:, 2] - centre[:, 0], centre[:, 3] - centre[:, 1]], axis=1)
    data = np.concatenate([RANDOM.permutation(7)[:, None] / 7.0 + 0.05, boxes,
                           np.array([[0], [1], [2], [1], [0], [2], [1]])], axis=1).astype(np.float32)[None]
    case("box_nms_center_force_background", "_contrib_box_nms",
         {"score_index": "0", "coord_start": "1", "id_index": "5", "background_id": "0", "force_suppress": "True",
          "in_format": "center", "out_format": "corner", "overlap_thresh": "0.2"}, [("data", data)])
    data = np.concatenate([RANDOM.permutation(7)[:, None] / 7.0 + 0.05, clustered_boxes(7)], axis=1)
    data[2, 1] = -0.05                                                          # negative x1: not converted
    case("box_nms_2d_to_center", "_contrib_box_nms",
         {"score_index": "0", "coord_start": "1", "out_format": "center", "overlap_thresh": "0.25"},
         [("data", data.astype(np.float32))])
    data = np.concatenate([np.zeros((2, 2, 5, 1)), RANDOM.permutation(20).reshape(2, 2, 5, 1) / 20.0,
                           clustered_boxes(20, centres=2).reshape(2, 2, 5, 4)], axis=3).astype(np.float32)
    case("box_nms_4d", "_contrib_box_nms", {}, [("data", data)], backward=False)
    case("box_nms_topk0", "_contrib_box_nms", {"topk": "0"}, [("data", data[0])])
    # -- box_iou, box_encode, box_decode
    lhs = np.concatenate([corner_boxes(5), [[0.5, 0.5, 0.3, 0.9]]]).astype(np.float32).reshape(2, 3, 4)
    rhs = np.concatenate([corner_boxes(3), [[0.1, 0.1, 0.3, 0.3], [0.3, 0.1, 0.6, 0.3]]]).astype(np.float32)
    case("box_iou_corner", "_contrib_box_iou", {}, [("lhs", lhs), ("rhs", rhs)])
    centre = np.concatenate([uniform(0.2, 0.8, 4, 2), uniform(0.1, 0.5, 4, 2)], axis=1)
    case("box_iou_center", "_contrib_box_iou", {"format": "center"},
         [("lhs", centre), ("rhs", np.concatenate([uniform(0.2, 0.8, 1, 3, 2), uniform(0.1, 0.5, 1, 3, 2)], 2))],
         backward=False)
    samples = np.array([[1, 0, -1, 1, 1, 0], [0, 1, 1, -1, 1, 1]], np.float32)
    matches = RANDOM.randint(3, size=(2, 6)).astype(np.float32)
    case("box_encode", "_contrib_box_encode", {},
         [("samples", samples), ("matches", matches), ("anchors", corner_boxes(12).reshape(2, 6, 4)),
          ("refs", corner_boxes(6).reshape(2, 3, 4)), ("means", np.array([0, 0.1, 0, -0.1], np.float32)),
          ("stds", np.array([0.1, 0.1, 0.2, 0.2], np.float32))])
    anchors = np.concatenate([uniform(0.2, 0.8, 1, 5, 2), uniform(0.1, 0.4, 1, 5, 2)], axis=2)
    case("box_decode_center_clip", "_contrib_box_decode",
         {"std0": "0.1", "std1": "0.1", "std2": "0.2", "std3": "0.2", "clip": "0.25"},
         [("data", normal(2, 5, 4, scale=2.0)), ("anchors", anchors)])
    case("box_decode_corner", "_contrib_box_decode", {"format": "corner", "std2": "0.5"},
         [("data", normal(2, 5, 4)), ("anchors", corner_boxes(5)[None])], backward=False)
    # -- bipartite_matching
    case("bipartite_matching_descend", "_contrib_bipartite_matching", {"threshold": "0.3"},
         [("data", uniform(0, 1, 2, 4, 5))])
    case("bipartite_matching_ascend_topk", "_contrib_bipartite_matching",
         {"threshold": "0.8", "is_ascend": "True", "topk": "2"}, [("data", uniform(0, 1, 1, 5, 4))], backward=False)
    case("bipartite_matching_ties", "_contrib_bipartite_matching", {"threshold": "0.1"},
         [("data", (RANDOM.randint(4, size=(4, 5)) / 4.0).astype(np.float32))], backward=False)
    # -- resizing
    case("BilinearResize2D_size", "_contrib_BilinearResize2D", {"height": "4", "width": "9"},
         [("data", normal(2, 3, 5, 7))])
    case("BilinearResize2D_area_single_row", "_contrib_BilinearResize2D",
         {"height": "1", "width": "10", "align_corners": "False"}, [("data", normal(1, 2, 4, 6))])
    case("BilinearResize2D_scale", "_contrib_BilinearResize2D",
         {"scale_height": "1.5", "scale_width": "0.6", "align_corners": "False"}, [("data", normal(1, 2, 5, 7))])
    case("BilinearResize2D_odd_scale", "_contrib_BilinearResize2D",
         {"mode": "odd_scale", "scale_height": "2", "scale_width": "3"}, [("data", normal(1, 2, 5, 6))])
    # MXNet 1.9.1 corrupts its heap in this mode's backward: forward only
    case("BilinearResize2D_like", "_contrib_BilinearResize2D", {"mode": "like"},
         [("data", normal(2, 2, 4, 5)), ("like", normal(1, 1, 7, 3))], backward=False)
    case("BilinearResize2D_to_odd_up", "_contrib_BilinearResize2D", {"mode": "to_odd_up"},
         [("data", normal(1, 1, 4, 7))])
    case("AdaptiveAvgPooling2D_default", "_contrib_AdaptiveAvgPooling2D", {}, [("data", normal(2, 3, 5, 7))])
    case("AdaptiveAvgPooling2D_3x4", "_contrib_AdaptiveAvgPooling2D", {"output_size": "(3, 4)"},
         [("data", normal(1, 2, 7, 9))])
    case("AdaptiveAvgPooling2D_larger", "_contrib_AdaptiveAvgPooling2D", {"output_size": "6"},
         [("data", normal(1, 1, 4, 5))])
    # -- box_nms on exactly tied scores (last, with its own random state: the cases above keep
    # their draws).  MXNet 1.9.1 ranks with std::stable_sort by descending score, so tied rows
    # keep their input order; 2 x 24 rows of 3 distinct scores, boxes around 2 centres (the
    # kept set depends on the order of the ties), topk cutting inside a tie group, 2 classes.
    tied = np.random.RandomState(21)
    data = np.zeros((2, 24, 6), np.float32)
    data[:, :, 0] = tied.randint(2, size=(2, 24))
    data[:, :, 1] = tied.choice([0.25, 0.5, 0.75], size=(2, 24))
    middle = tied.uniform(0.3, 0.7, (2, 2))[tied.randint(2, size=48)]
    size = tied.uniform(0.1, 0.3, (48, 2))
    data[:, :, 2:] = np.concatenate([middle - size / 2, middle + size / 2], axis=1).reshape(2, 24, 4)
    case("box_nms_tied_scores_topk", "_contrib_box_nms",
         {"overlap_thresh": "0.3", "topk": "11", "id_index": "0"}, [("data", data)], backward=False)
    # float64 data: MXNet still computes the sampling positions in float32
    case("BilinearResize2D_float64_down", "_contrib_BilinearResize2D", {"height": "48", "width": "29"},
         [("data", tied.uniform(0, 1, (1, 2, 96, 61)))], backward=False)
    case("BilinearResize2D_float64_up_no_align", "_contrib_BilinearResize2D",
         {"height": "37", "width": "23", "align_corners": "False"}, [("data", tied.uniform(0, 1, (1, 2, 7, 6)))],
         backward=False)
    case("box_nms_tied_scores_force", "_contrib_box_nms",
         {"overlap_thresh": "0.4", "id_index": "0", "force_suppress": "True"}, [("data", data)], backward=False)


def run(spec):
    symbol = resolve(spec["op"])(*[mx.sym.Variable(n) for n, _ in spec["inputs"]], name="op", **spec["attrs"])
    names = symbol.list_arguments()
    values = dict(spec["inputs"])
    assert names == [n for n, _ in spec["inputs"]], (names, spec["name"])
    grad_req = {n: ("null" if (n in spec["no_grad"] or not spec["backward"]) else "write") for n in names}
    executor = symbol.simple_bind(mx.cpu(), grad_req=grad_req, type_dict={n: values[n].dtype for n in names},
                                  **{n: values[n].shape for n in names})
    for n in names:
        executor.arg_dict[n][:] = values[n]
    arrays = {f"arg:{n}": values[n] for n in names}
    outputs = executor.forward(is_train=spec["backward"])
    for i, output in enumerate(outputs):
        arrays[f"out:{i}"] = output.asnumpy()
    if spec["ties_checked"]:
        # a box with score -1 in the output would make the result depend on std::sort's order of ties
        scores = arrays["out:1"] if len(outputs) > 1 else None
        assert scores is None or (scores > 0).all(), spec["name"]
    if spec["backward"]:
        heads = [normal(*o.shape).astype(o.dtype) for o in outputs]
        executor.backward([mx.nd.array(h, dtype=h.dtype) for h in heads])
        for i, head in enumerate(heads):
            arrays[f"head:{i}"] = head
        for n in names:
            if grad_req[n] == "write":
                arrays[f"grad:{n}"] = executor.grad_dict[n].asnumpy()
    np.savez(os.path.join(OUT, spec["name"] + ".npz"), **arrays)
    return dict(name=spec["name"], op=spec["op"], attrs=spec["attrs"], inputs=names, grad_req=grad_req,
                backward=spec["backward"], outputs=symbol.list_outputs())


def main(argv=None):
    """Writes every case, or (``--only NAME ...``) only those, updating their index entries."""
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="+")
    args = parser.parse_args(argv)
    os.makedirs(OUT, exist_ok=True)
    build()
    if args.only:
        with open(os.path.join(OUT, "index.json")) as handle:
            index = json.load(handle)["cases"]
        fresh = {spec["name"]: run(spec) for spec in CASES if spec["name"] in args.only}
        index = [fresh.pop(entry["name"], entry) for entry in index] + list(fresh.values())
    else:
        index = [run(spec) for spec in CASES]
    with open(os.path.join(OUT, "index.json"), "w") as handle:
        json.dump({"mxnet_version": mx.__version__, "generator": "tools/gen_ops_detection.py", "cases": index},
                  handle, indent=1)
    print(f"wrote {len(index)} cases to {OUT}")


if __name__ == "__main__":
    main()
