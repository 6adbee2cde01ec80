"""GluonCV model-zoo cases shared by tools/gen_gluoncv_reference.py (run under MXNet 1.9.1),
tools/check_gluoncv_zoo.py and tests/test_gluoncv_zoo.py (run under mxtorch).

Only NumPy and the framework's public Gluon API are used here, so the same code runs on both
sides.  ``fill_parameters`` gives every parameter a value that depends only on its structural
name (the key ``save_parameters`` writes) and shape, so the reference outputs need no stored
parameters: both sides fill the network the same way.
"""
from __future__ import annotations

import zlib

import numpy as np

# one model per family: name -> (build keyword arguments, input shapes)
CASES = {
    "resnet18_v1b": ({}, [(1, 3, 64, 64)]),
    "yolo3_mobilenet0.25_voc": ({"pretrained_base": False}, [(1, 3, 128, 128)]),
    "faster_rcnn_resnet50_v1b_voc": ({"pretrained_base": False}, [(1, 3, 128, 128)]),
    # Mask R-CNN keeps 100 RPN proposals (not 1000): its per-ROI heads dominate the time,
    # and a hundred ROIs exercise every operator as well as a thousand
    "mask_rcnn_resnet18_v1b_coco": ({"pretrained_base": False, "rpn_test_post_nms": 100}, [(1, 3, 224, 224)]),
    "center_net_resnet18_v1b_voc": ({"pretrained_base": False}, [(1, 3, 128, 128)]),
    "fcn_resnet50_voc": ({"pretrained_base": False, "crop_size": 64}, [(1, 3, 64, 64)]),
    "simple_pose_resnet18_v1b": ({"pretrained_base": False}, [(1, 3, 64, 48)]),
    "r2plus1d_resnet18_kinetics400": ({"pretrained_base": False}, [(1, 3, 8, 64, 64)]),
    "monodepth2_resnet18_kitti_stereo_640x192": ({"pretrained_base": False}, [(1, 3, 64, 64)]),
}


def _uniform(name, shape, low, high):
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    return rng.uniform(low, high, shape).astype("float32")


def parameter_value(name, shape):
    """The value of the parameter ``name`` (structural name) of ``shape``: weights uniform with
    variance ``1 / fan_in`` (fan_in: the product of all but the first dimension), BatchNorm
    scales and variances in [0.9, 1.1], biases, shifts and means in [-0.1, 0.1]."""
    shape = tuple(int(d) for d in shape)
    if name.endswith(("gamma", "running_var", "moving_var")):
        return _uniform(name, shape, 0.4, 0.6) if name.endswith("gamma") else _uniform(name, shape, 0.9, 1.1)
    if len(shape) <= 1:
        return _uniform(name, shape, -0.1, 0.1)
    fan_in = int(np.prod(shape[1:]))
    bound = float(np.sqrt(3.0 / fan_in))
    return _uniform(name, shape, -bound, bound)


def inputs_for(name):
    """The fixed inputs of the case ``name`` (float32, uniform in [0, 1), RandomState(0))."""
    rng = np.random.RandomState(0)
    return [rng.uniform(0, 1, shape).astype("float32") for shape in CASES[name][1]]


def fill_parameters(net, mx, inputs):
    """Initialise ``net``, then set every parameter but the constants (``gluon.Constant``:
    anchors, grid offsets) to ``parameter_value`` of its structural name.  The deferred shapes
    are resolved by ``HybridBlock.infer_shape`` on ``inputs`` (no computation: a tenth of a
    forward's time for the R-CNNs), or by one forward where that raises (MXNet 1.9.1's
    infer_shape refuses a parameter the graph never reads, as monodepth2's unused dense layer)."""
    arrays = [mx.nd.array(x) for x in inputs]
    try:
        net.infer_shape(*arrays)
        inferred = True
    except Exception:       # noqa: BLE001 - any refusal: the forward below resolves the shapes
        inferred = False
    net.initialize()
    if not inferred:
        net(*arrays)
    for name, parameter in net._collect_params_with_prefix().items():
        if isinstance(parameter, mx.gluon.Constant):    # anchors, offsets: part of the model
            continue
        parameter.set_data(mx.nd.array(parameter_value(name, parameter.shape)))


def calibrate_batchnorm(net, mx, inputs):
    """Set every BatchNorm's moving mean and variance to the per-channel mean and variance
    of its input on ``inputs`` (layer by layer, in the order the forward reaches them), so
    the filled network's activations neither vanish nor explode and its detections are not
    ties of saturated scores.  Returns ``{structural name: array}`` of the statistics set
    (the reference files store them; ``set_statistics`` puts them back).  ``inputs`` keep
    their dtype (float64 for a network cast to float64, tools/check_gluoncv_zoo.py).  Runs
    under MXNet (forward pre-hooks of Gluon blocks)."""
    names = {id(parameter): name for name, parameter in net._collect_params_with_prefix().items()}
    statistics = {}

    def hook(block, args):
        data = args[0].asnumpy().astype("float64")
        axis = block._kwargs.get("axis", 1) % data.ndim
        others = tuple(i for i in range(data.ndim) if i != axis)
        variance = data.var(axis=others)
        # a floor at a tenth of the mean variance: a channel measured on a few positions (the
        # last stages of a small input) must not amplify rounding differences by 1/sqrt(tiny)
        variance = variance + 0.1 * variance.mean() + 1e-3
        for parameter, value in ((block.running_mean, data.mean(axis=others)),
                                 (block.running_var, variance)):
            value = value.astype("float32")
            parameter.set_data(mx.nd.array(value))
            statistics[names[id(parameter)]] = value

    handles = []

    def attach(block):
        if isinstance(block, mx.gluon.nn.BatchNorm):
            handles.append(block.register_forward_pre_hook(hook))
        for child in block._children.values():
            attach(child)

    attach(net)
    net(*[mx.nd.array(x, dtype=x.dtype) for x in inputs])
    for handle in handles:
        handle.detach()
    return statistics


def set_statistics(net, mx, statistics):
    """Set the parameters named in ``statistics`` (structural names) to those arrays."""
    parameters = net._collect_params_with_prefix()
    for name, value in statistics.items():
        parameters[name].set_data(mx.nd.array(value))


def flatten_outputs(outputs):
    """The outputs of a forward as a flat list of NDArrays (nested tuples/lists unrolled)."""
    if isinstance(outputs, (list, tuple)):
        flat = []
        for item in outputs:
            flat.extend(flatten_outputs(item))
        return flat
    return [outputs]
