"""MXNet 1.9.1's box_nms outputs for tests/test_export_detection.py (box_nms exported to ONNX).

Run with a Python that has mxnet 1.9.1 (not mxtorch)::

    ~/mxref/bin/python tools/gen_box_nms_export_reference.py

Writes tests/data/export/box_nms.npz: ``data`` (2, 12, 6) rows ``(class id, score, x1, y1,
x2, y2)`` of overlapping boxes (scores on a coarse grid, so some tie; class -1 rows, rows
below the score threshold and a box of negative width among them), and for each case of
``CASES`` (box_nms keyword arguments, stored as JSON in ``attrs:NAME``) MXNet's output
``out:NAME``; ``roi_data`` (1, 2, 8, 8), ``rois`` (2, 5) and ROIAlign's output ``roi_align``
(pooled 2x2, spatial_scale 1, sample_ratio 2).
"""
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "export", "box_nms.npz")

CASES = {
    "per_class": dict(overlap_thresh=0.3, valid_thresh=0.15, topk=-1, coord_start=2, score_index=1,
                      id_index=0, background_id=-1, force_suppress=False),
    "force_topk": dict(overlap_thresh=0.4, valid_thresh=0.0, topk=7, coord_start=2, score_index=1,
                       id_index=0, force_suppress=True),
    "no_ids_center": dict(overlap_thresh=0.25, valid_thresh=0.05, topk=-1, coord_start=2, score_index=1,
                          id_index=-1, in_format="center", out_format="corner"),
}


def make_data():
    rng = np.random.RandomState(7)
    batch, count = 2, 12
    corner = rng.uniform(0, 6, (batch, count, 2))
    size = rng.uniform(1, 4, (batch, count, 2))
    boxes = np.concatenate([corner, corner + size], axis=-1)
    scores = np.round(rng.uniform(0, 1, (batch, count)) * 8) / 8        # ties on a 1/8 grid
    ids = rng.randint(-1, 3, (batch, count)).astype(np.float64)
    data = np.concatenate([ids[..., None], scores[..., None], boxes], axis=-1).astype(np.float32)
    data[0, 3, 4] = data[0, 3, 2] - 1.0          # negative width: area 0 for MXNet
    return data


def main():
    import mxnet as mx
    assert mx.__version__ == "1.9.1", mx.__file__
    data = make_data()
    arrays = {"data": data}
    for name, attrs in CASES.items():
        arrays[f"out:{name}"] = mx.nd.contrib.box_nms(mx.nd.array(data), **attrs).asnumpy()
        arrays[f"attrs:{name}"] = np.array(json.dumps(attrs))
    feature = np.random.RandomState(0).uniform(0, 1, (1, 2, 8, 8)).astype(np.float32)
    rois = np.array([[0, 0.5, 1.0, 6.0, 7.5], [0, 2.0, 2.0, 4.0, 5.0]], dtype=np.float32)
    arrays.update(roi_data=feature, rois=rois,
                  roi_align=mx.nd.contrib.ROIAlign(mx.nd.array(feature), mx.nd.array(rois), pooled_size=(2, 2),
                                                   spatial_scale=1.0, sample_ratio=2).asnumpy())
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    np.savez(OUT, **arrays)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
