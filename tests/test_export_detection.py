"""Detection operators exported to ONNX (run in onnxruntime) give MXNet 1.9.1's outputs:
box_nms under a graph capture takes its fixed-shape route (``greedy_nms``, ONNX
NonMaxSuppression), the index bounds check of gather_nd stays an eager MXNet error but is no
part of the captured graph, ROIAlign's adaptive sampling (data-dependent) is refused by name.

Data: tests/data/export/box_nms.npz (tools/gen_box_nms_export_reference.py, MXNet 1.9.1: box_nms
and ROIAlign outputs)."""
import json
import os

import numpy as np
import pytest
import torch

import mxtorch as mx
from mxtorch import export
from mxtorch.base import MXNetError

onnxruntime = pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

BOX_NMS = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "export", "box_nms.npz"))
NMS_CASES = sorted(key[len("attrs:"):] for key in BOX_NMS.files if key.startswith("attrs:"))


def _run_onnx(path, feeds):
    return onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)


@pytest.mark.parametrize("case", NMS_CASES)
def test_box_nms_onnx_matches_mxnet(case, tmp_path):
    """Ties of scores (kept in row order), classes, background rows, the score threshold,
    topk, force_suppress, centre input and a box of negative width: the ONNX model's output
    and the eager operator's are MXNet's."""
    data = BOX_NMS["data"]
    attrs = json.loads(str(BOX_NMS[f"attrs:{case}"]))
    want = BOX_NMS[f"out:{case}"]
    np.testing.assert_allclose(mx.nd.contrib.box_nms(mx.nd.array(data), **attrs).asnumpy(), want, rtol=1e-6)
    symbol = mx.sym.contrib.box_nms(mx.sym.var("data"), **attrs)
    path = export.to_onnx(symbol, {}, {}, [("data", data.shape)], str(tmp_path / "nms.onnx"))
    np.testing.assert_allclose(_run_onnx(path, {"data": data})[0], want, rtol=1e-6)


def test_greedy_nms_keeps_mxnet_ranking():
    """The fixed-shape greedy pass: candidates by priority, suppression within a class at IoU
    above the threshold; zero-area boxes neither suppress nor are suppressed."""
    from mxtorch.ops.boxes import greedy_nms
    boxes = torch.tensor([[[0, 0, 2, 2], [0, 0, 2, 1.9], [0, 0, 2, 2], [5, 5, 6, 6], [1, 1, 1, 1]]],
                         dtype=torch.float32)
    priority = torch.tensor([[4.0, 5.0, 3.0, 0.0, 2.0]])     # box 1 first; box 3 is no candidate
    classes = torch.tensor([[0.0, 0.0, 1.0, 0.0, 0.0]])
    keep = greedy_nms(boxes, priority, classes, 0.5)
    # box 0 (IoU 0.95 with box 1) goes; box 2 is of another class; box 4 has area 0
    assert keep.tolist() == [[False, True, True, False, True]]


def test_gather_nd_checks_bounds_eagerly_and_exports(tmp_path):
    """gather_nd raises MXNet's index error for an out-of-range index when run; the captured
    graph gathers (negative indices from the end), onnxruntime gives NumPy's values."""
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    indices = np.array([[0, 2, -1], [1, -4, 3]], dtype=np.float32)
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 3"):
        mx.nd.gather_nd(mx.nd.array(data), mx.nd.array([[3.0], [0.0]])).asnumpy()
    symbol = mx.sym.gather_nd(mx.sym.var("data"), mx.sym.var("indices"))
    path = export.to_onnx(symbol, {}, {}, [("data", data.shape), ("indices", indices.shape)],
                          str(tmp_path / "gather.onnx"))
    got = _run_onnx(path, {"data": data, "indices": indices})[0]
    np.testing.assert_array_equal(got, data[indices[0].astype(int), indices[1].astype(int)])


def test_roialign_adaptive_sampling_is_refused_by_name(tmp_path):
    """ROIAlign with sample_ratio=-1 samples ceil(bin size) points per bin, a count that
    depends on the ROI values: to_onnx names the operator; sample_ratio=2 exports and gives
    MXNet's output."""
    feature, rois = BOX_NMS["roi_data"], BOX_NMS["rois"]
    shapes = [("data", feature.shape), ("rois", rois.shape)]
    adaptive = mx.sym.contrib.ROIAlign(mx.sym.var("data"), mx.sym.var("rois"), pooled_size=(2, 2),
                                       spatial_scale=1.0, sample_ratio=-1)
    with pytest.raises(MXNetError, match="ROIAlign.*sample_ratio > 0"):
        export.to_onnx(adaptive, {}, {}, shapes, str(tmp_path / "adaptive.onnx"))
    fixed = mx.sym.contrib.ROIAlign(mx.sym.var("data"), mx.sym.var("rois"), pooled_size=(2, 2),
                                    spatial_scale=1.0, sample_ratio=2)
    path = export.to_onnx(fixed, {}, {}, shapes, str(tmp_path / "fixed.onnx"))
    np.testing.assert_allclose(_run_onnx(path, {"data": feature, "rois": rois})[0], BOX_NMS["roi_align"],
                               rtol=1e-5, atol=1e-6)
