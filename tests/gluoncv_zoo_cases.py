"""GluonCV 0.10.5's model zoo on mxtorch: one network per family (classification,
YOLOv3, Faster R-CNN, Mask R-CNN, CenterNet, segmentation, pose, action recognition, depth)
built by unmodified GluonCV after ``mxtorch.install_as_mxnet()``, filled with the
name-derived parameters of tests/gluoncv_cases.py (BatchNorm statistics measured by
MXNet on the input, stored with the reference), gives MXNet 1.9.1's inference outputs
(tests/data/gluoncv/NAME.npz, written by tools/gen_gluoncv_reference.py) to relative 1e-3;
hybridized and exported to ONNX (``mxtorch.export.to_onnx``) the networks give the same
numbers in onnxruntime.

GluonCV is a test dependency (the ``test`` extra)."""
import os

import numpy as np
import pytest

import mxtorch

mxtorch.install_as_mxnet()
import mxnet as mx  # noqa: E402  (mxtorch, installed under the name GluonCV imports)
import gluoncv  # noqa: E402,F401
from gluoncv import model_zoo  # noqa: E402

from gluoncv_cases import CASES, fill_parameters, flatten_outputs, inputs_for, set_statistics  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "data", "gluoncv")


# detectors: outputs (ids, scores, boxes[, masks]) of one row per detection, sorted by score
DETECTORS = ("ssd_", "yolo3_", "faster_rcnn", "mask_rcnn", "center_net")


def _tolerance(want):
    """Elementwise bound on ``|ours - mxnet|``: relative 1e-3, scaled by the output's
    magnitude for values near zero."""
    return 1e-3 * (np.abs(want) + (np.abs(want).max() if want.size else 0.0))


def _assert_same_detections(outputs, wants, name):
    """Detections equal as rows up to the order of rows whose scores tie within the
    tolerance: each of our rows is matched to an unused MXNet row with a score within the
    tolerance whose every output agrees (a near-tie of two scores may order them either way
    after float rounding; any other difference fails)."""
    count = wants[0].shape[1]
    ours = [np.asarray(out, dtype="float64").reshape(count, -1) for out in outputs]
    theirs = [want.reshape(count, -1) for want in wants]
    bounds = [_tolerance(want) for want in theirs]
    scores, their_scores = ours[1][:, 0], theirs[1][:, 0]
    unused = np.ones(count, dtype=bool)
    for row in range(count):
        near = np.nonzero(unused & (np.abs(their_scores - scores[row]) <= bounds[1][:, 0]))[0]
        match = next((i for i in near if all((np.abs(o[row] - t[i]) <= b[i]).all()
                                             for o, t, b in zip(ours, theirs, bounds))), None)
        assert match is not None, (f"{name}: detection {row} (id {ours[0][row, 0]}, score {scores[row]:.6g}) "
                                   f"matches no MXNet detection; MXNet row {row}: id {theirs[0][row, 0]}, "
                                   f"score {their_scores[row]:.6g}")
        unused[match] = False


def assert_close_to_mxnet(outputs, name):
    """``outputs`` (NumPy arrays) against the reference of ``name``: same count and shapes,
    ``|ours - mxnet| <= 1e-3 * (|mxnet| + max|mxnet|)`` elementwise (detectors: row by row,
    see ``_assert_same_detections``)."""
    reference = _reference(name)
    assert len(outputs) == len([key for key in reference.files if key.startswith("out")])
    wants = [reference[f"out{index}"].astype("float64") for index in range(len(outputs))]
    for index, (have, want) in enumerate(zip(outputs, wants)):
        assert np.shape(have) == want.shape, (index, np.shape(have), want.shape)
    if name.startswith(DETECTORS):
        _assert_same_detections(outputs, wants, name)
        return
    for index, (have, want) in enumerate(zip(outputs, wants)):
        difference = np.abs(np.asarray(have, dtype="float64") - want)
        bad = difference > _tolerance(want)
        assert not bad.any(), (f"{name} output {index}: {int(bad.sum())}/{bad.size} values differ, "
                               f"max difference {difference.max():.3g}, max |MXNet| {np.abs(want).max():.3g}")


def _reference(name):
    return np.load(os.path.join(DATA, f"{name}.npz"))


def _filled_network(name):
    """The network ``name`` with the generator's parameters: name-derived values, then the
    BatchNorm statistics MXNet measured (``stat:NAME`` entries of the reference)."""
    kwargs, _ = CASES[name]
    net = model_zoo.get_model(name, pretrained=False, **kwargs)
    inputs = inputs_for(name)
    fill_parameters(net, mx, inputs)
    reference = _reference(name)
    set_statistics(net, mx, {key[5:]: reference[key] for key in reference.files if key.startswith("stat:")})
    return net, inputs


@pytest.mark.parametrize("name", sorted(CASES))
def test_imperative_outputs_match_mxnet(name):
    net, inputs = _filled_network(name)
    outputs = flatten_outputs(net(*[mx.nd.array(x) for x in inputs]))
    assert_close_to_mxnet([out.asnumpy() for out in outputs], name)


# the cases whose hybridized network exports to ONNX and runs in onnxruntime
ONNX_CASES = ["resnet18_v1b", "simple_pose_resnet18_v1b", "r2plus1d_resnet18_kinetics400",
              "monodepth2_resnet18_kitti_stereo_640x192"]


def onnx_outputs(name, folder):
    """The case network of ``name`` hybridized, ``export``-ed (-symbol.json + .params) into
    ``folder``, that checkpoint ``to_onnx``-ed, run by onnxruntime on the case's input:
    ``(network, outputs)``."""
    import onnxruntime
    from mxtorch.export import to_onnx
    net, inputs = _filled_network(name)
    net.hybridize()
    net(*[mx.nd.array(x) for x in inputs])
    prefix = str(folder / "net")
    net.export(prefix)
    symbol, arg_params, aux_params = mx.model.load_checkpoint(prefix, 0)
    data_names = [arg for arg in symbol.list_arguments() if arg not in arg_params]
    path = to_onnx(symbol, arg_params, aux_params, [(data, x.shape) for data, x in zip(data_names, inputs)],
                   str(folder / "net.onnx"))
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    return net, session.run(None, dict(zip(data_names, inputs)))


@pytest.mark.parametrize("name", ONNX_CASES)
def test_onnx_export_matches_mxnet(name, tmp_path):
    """Hybridize, ``export``, ``to_onnx`` the checkpoint; onnxruntime's outputs on the case's
    input are MXNet's."""
    assert_close_to_mxnet(onnx_outputs(name, tmp_path)[1], name)
