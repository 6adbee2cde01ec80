"""The networks ``python -m mxtorch train --network ...`` builds, with ``mx.sym``.

Every network takes images shaped (batch, 1, image_size, image_size) named
'data' and ends in ``SoftmaxOutput(name='softmax')``, so its label is
'softmax_label' (a float32 class index per sample).  They are written with
the public Symbol API only, as an MXNet 1.x user would write them, and take
the ``mx`` namespace as their first argument: ``mxtorch`` here, and the real
``mxnet`` when ``bench/bench_training.py`` runs them under MXNet 1.9.1 for
comparison.  So this file imports nothing (the benchmark loads it by path).

- ``mlp``: FullyConnected 128 -> relu -> 64 -> relu -> num_classes (the
  first layer flattens the image, so any image size works).
- ``lenet``: LeCun et al. 1998 as in MXNet's image-classification example:
  5x5 convolution with 20 filters, tanh, 2x2 max pooling with stride 2, 5x5
  convolution with 50 filters, tanh, pooling, fully connected 500, tanh,
  fully connected num_classes.  On 28x28 images the convolutions are
  unpadded (28 -> 24 -> 12 -> 8 -> 4).  On images smaller than 28 pixels (the
  8x8 digits) both convolutions get ``pad=(2, 2)``, so they keep the size
  and the two poolings give 8 -> 4 -> 2; unpadded, an 8x8 image would
  shrink to nothing.
- ``resnet``: the CIFAR form of the pre-activation ResNet (He et al. 2016,
  "Identity Mappings in Deep Residual Networks"): a BatchNorm on the input,
  a 3x3 convolution with 16 filters, three stages of (num_layers - 2) / 6
  residual units with 16, 32 and 64 filters (the second and third stage
  halve the height and width), BatchNorm, relu, global average pooling and
  a fully connected layer.  Each unit computes
  ``conv(relu(bn(conv(relu(bn(x)))))) + shortcut`` where the shortcut is x,
  or a strided 1x1 convolution of ``relu(bn(x))`` where the shape changes.
"""
from __future__ import annotations

__all__ = ["NETWORKS", "get_network", "mlp", "lenet", "resnet"]

_BATCH_NORM = {"eps": 2e-5, "momentum": 0.9}


def mlp(mx, num_classes=10, hidden_units=(128, 64), **_):
    """Fully connected layers with relu (``hidden_units`` each), then num_classes scores."""
    net = mx.sym.Variable("data")
    for index, units in enumerate(hidden_units, start=1):
        net = mx.sym.FullyConnected(net, num_hidden=units, name=f"fc{index}")
        net = mx.sym.Activation(net, act_type="relu", name=f"relu{index}")
    net = mx.sym.FullyConnected(net, num_hidden=num_classes, name=f"fc{len(hidden_units) + 1}")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def lenet(mx, num_classes=10, image_size=28, **_):
    """LeNet-5 with tanh; padded 5x5 convolutions when image_size < 28."""
    pad = (2, 2) if image_size < 28 else (0, 0)
    data = mx.sym.Variable("data")
    net = data
    for index, filters in enumerate((20, 50), start=1):
        net = mx.sym.Convolution(net, kernel=(5, 5), pad=pad, num_filter=filters, name=f"conv{index}")
        net = mx.sym.Activation(net, act_type="tanh", name=f"tanh{index}")
        net = mx.sym.Pooling(net, pool_type="max", kernel=(2, 2), stride=(2, 2), name=f"pool{index}")
    net = mx.sym.Flatten(net, name="flatten")
    net = mx.sym.FullyConnected(net, num_hidden=500, name="fc1")
    net = mx.sym.Activation(net, act_type="tanh", name="tanh3")
    net = mx.sym.FullyConnected(net, num_hidden=num_classes, name="fc2")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def _residual_unit(mx, data, filters, stride, same_shape, name):
    normalized = mx.sym.BatchNorm(data, fix_gamma=False, name=name + "_bn1", **_BATCH_NORM)
    activated = mx.sym.Activation(normalized, act_type="relu", name=name + "_relu1")
    branch = mx.sym.Convolution(activated, num_filter=filters, kernel=(3, 3), stride=stride, pad=(1, 1),
                                no_bias=True, name=name + "_conv1")
    branch = mx.sym.BatchNorm(branch, fix_gamma=False, name=name + "_bn2", **_BATCH_NORM)
    branch = mx.sym.Activation(branch, act_type="relu", name=name + "_relu2")
    branch = mx.sym.Convolution(branch, num_filter=filters, kernel=(3, 3), stride=(1, 1), pad=(1, 1),
                                no_bias=True, name=name + "_conv2")
    if same_shape:
        shortcut = data
    else:
        shortcut = mx.sym.Convolution(activated, num_filter=filters, kernel=(1, 1), stride=stride,
                                      no_bias=True, name=name + "_shortcut")
    return branch + shortcut


def resnet(mx, num_classes=10, num_layers=20, **_):
    """Pre-activation CIFAR ResNet with num_layers = 6 * units_per_stage + 2 (20, 32, 44, 56, 110)."""
    if num_layers < 8 or (num_layers - 2) % 6 != 0:
        raise mx.base.MXNetError(f"resnet: num_layers must be 6 * n + 2 with n >= 1 (20, 32, 44, 56, 110), "
                         f"got {num_layers}")
    units_per_stage = (num_layers - 2) // 6
    data = mx.sym.Variable("data")
    net = mx.sym.BatchNorm(data, fix_gamma=True, name="bn_data", **_BATCH_NORM)
    net = mx.sym.Convolution(net, num_filter=16, kernel=(3, 3), pad=(1, 1), no_bias=True, name="conv0")
    in_filters = 16
    for stage, filters in enumerate((16, 32, 64), start=1):
        for unit in range(1, units_per_stage + 1):
            stride = (2, 2) if stage > 1 and unit == 1 else (1, 1)
            same_shape = stride == (1, 1) and filters == in_filters
            net = _residual_unit(mx, net, filters, stride, same_shape, f"stage{stage}_unit{unit}")
            in_filters = filters
    net = mx.sym.BatchNorm(net, fix_gamma=False, name="bn_final", **_BATCH_NORM)
    net = mx.sym.Activation(net, act_type="relu", name="relu_final")
    net = mx.sym.Pooling(net, global_pool=True, pool_type="avg", kernel=(1, 1), name="global_pool")
    net = mx.sym.Flatten(net, name="flatten")
    net = mx.sym.FullyConnected(net, num_hidden=num_classes, name="fc")
    return mx.sym.SoftmaxOutput(net, name="softmax")


NETWORKS = {"mlp": mlp, "lenet": lenet, "resnet": resnet}


def get_network(mx, name, num_classes=10, image_size=8, num_layers=20):
    """The Symbol of network ``name`` ('mlp', 'lenet' or 'resnet'), built with ``mx.sym``.

    Raises MXNetError for an unknown name or a resnet depth that is not
    6 * n + 2.
    """
    if name not in NETWORKS:
        raise mx.base.MXNetError(f"get_network: network must be one of {sorted(NETWORKS)}, got {name!r}")
    return NETWORKS[name](mx, num_classes=num_classes, image_size=image_size, num_layers=num_layers)
