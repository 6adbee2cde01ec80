"""ResNet V1 (He et al. 2015, "Deep Residual Learning") and V2 (He et al. 2016, "Identity
Mappings in Deep Residual Networks") with MXNet 1.9.1's block structure and parameter names
(``resnetv10_stage1_conv0_weight``, ...), so MXNet-trained ``.params`` files load.

Input ``(batch, 3, height, width)`` float32 (224x224 for ImageNet; ``thumbnail=True`` starts
with a 3x3 convolution for 32x32 images); output ``(batch, classes)`` scores.
"""
from __future__ import annotations

import os

from ....base import MXNetValueError, data_dir
from ....context import cpu
from ....util import is_np_array  # noqa: F401  (MXNet's module exposes it)
from ...block import HybridBlock
from ... import nn
from ..model_store import get_model_file

__all__ = ["ResNetV1", "ResNetV2", "BasicBlockV1", "BasicBlockV2", "BottleneckV1", "BottleneckV2",
           "resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1",
           "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2", "get_resnet",
           "resnet_spec", "resnet_net_versions", "resnet_block_versions"]


def _conv3x3(channels, stride, in_channels):
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1, use_bias=False, in_channels=in_channels)


class _ResidualV1(HybridBlock):
    """A V1 residual block: ``self.body`` (built by the subclass) plus the input, projected by a
    strided 1x1 convolution with batch norm when ``downsample``, then ReLU.  ``_body_first``: the
    order of the addition's operands, as MXNet wrote each block (it names the exported graph's
    inputs)."""
    _body_first = True

    def __init__(self, body, channels, stride, downsample, in_channels, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        self.body.add(*body())
        if downsample:
            self.downsample = nn.HybridSequential(prefix="")
            self.downsample.add(nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False,
                                          in_channels=in_channels), nn.BatchNorm())
        else:
            self.downsample = None

    def hybrid_forward(self, F, x):
        body = self.body(x)
        residual = x if self.downsample is None else self.downsample(x)
        x = body
        return F.Activation(x + residual if self._body_first else residual + x, act_type="relu")


class BasicBlockV1(_ResidualV1):
    """Two 3x3 convolutions with batch norm, added to the (projected when ``downsample``)
    input, then ReLU (ResNet-18/34)."""
    _body_first = False

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(lambda: (_conv3x3(channels, stride, in_channels), nn.BatchNorm(), nn.Activation("relu"),
                                  _conv3x3(channels, 1, channels), nn.BatchNorm()),
                         channels, stride, downsample, in_channels, **kwargs)


class BottleneckV1(_ResidualV1):
    """1x1 (strided, with bias, as MXNet's) -> 3x3 -> 1x1 convolutions with batch norm plus the
    input, then ReLU (ResNet-50/101/152)."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(lambda: (nn.Conv2D(channels // 4, kernel_size=1, strides=stride), nn.BatchNorm(),
                                  nn.Activation("relu"), _conv3x3(channels // 4, 1, channels // 4), nn.BatchNorm(),
                                  nn.Activation("relu"), nn.Conv2D(channels, kernel_size=1, strides=1),
                                  nn.BatchNorm()),
                         channels, stride, downsample, in_channels, **kwargs)


class _ResidualV2(HybridBlock):
    """A pre-activation (V2) residual block: ``(BatchNorm, Conv)`` pairs, each convolution after
    BN -> ReLU, plus the input -- projected by a strided 1x1 convolution of the first pre-activated
    value when ``downsample``."""

    def __init__(self, convolutions, channels, stride, downsample, in_channels, **kwargs):
        super().__init__(**kwargs)
        self._depth = len(convolutions)
        for index, convolution in enumerate(convolutions, 1):
            # attribute order bn1, conv1, bn2, ... gives MXNet's parameter names and counters
            setattr(self, f"bn{index}", nn.BatchNorm())
            setattr(self, f"conv{index}", convolution())
        if downsample:
            self.downsample = nn.Conv2D(channels, 1, stride, use_bias=False, in_channels=in_channels)
        else:
            self.downsample = None

    def hybrid_forward(self, F, x):
        residual = x
        for index in range(1, self._depth + 1):
            x = F.Activation(getattr(self, f"bn{index}")(x), act_type="relu")
            if index == 1 and self.downsample is not None:
                residual = self.downsample(x)
            x = getattr(self, f"conv{index}")(x)
        return x + residual


class BasicBlockV2(_ResidualV2):
    """Pre-activation basic block: BN -> ReLU -> 3x3 conv, twice, plus the input (projected
    from the pre-activated input when ``downsample``)."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__((lambda: _conv3x3(channels, stride, in_channels), lambda: _conv3x3(channels, 1, channels)),
                         channels, stride, downsample, in_channels, **kwargs)


class BottleneckV2(_ResidualV2):
    """Pre-activation bottleneck: BN-ReLU-1x1, BN-ReLU-3x3 (strided), BN-ReLU-1x1, plus the input."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__((lambda: nn.Conv2D(channels // 4, kernel_size=1, strides=1, use_bias=False),
                          lambda: _conv3x3(channels // 4, stride, channels // 4),
                          lambda: nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)),
                         channels, stride, downsample, in_channels, **kwargs)


def _make_stage(block, layers, channels, stride, stage_index, in_channels):
    stage = nn.HybridSequential(prefix=f"stage{stage_index}_")
    with stage.name_scope():
        stage.add(block(channels, stride, channels != in_channels, in_channels=in_channels, prefix=""))
        for _ in range(layers - 1):
            stage.add(block(channels, 1, False, in_channels=channels, prefix=""))
    return stage


def _check_spec(layers, channels):
    if len(layers) != len(channels) - 1:
        raise MXNetValueError(f"ResNet: channels needs one entry more than layers, got {len(channels)} channels "
                              f"for {len(layers)} stages")


class ResNetV1(HybridBlock):
    """ResNet V1: ``block`` (BasicBlockV1 / BottleneckV1), ``layers`` blocks per stage,
    ``channels`` (stem width then one per stage), ``classes`` outputs."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        _check_spec(layers, channels)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            if thumbnail:
                self.features.add(_conv3x3(channels[0], 1, 0))
            else:
                self.features.add(nn.Conv2D(channels[0], 7, 2, 3, use_bias=False), nn.BatchNorm(),
                                  nn.Activation("relu"), nn.MaxPool2D(3, 2, 1))
            for i, num_layer in enumerate(layers):
                stride = 1 if i == 0 else 2
                self.features.add(_make_stage(block, num_layer, channels[i + 1], stride, i + 1, channels[i]))
            self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.Dense(classes, in_units=channels[-1])

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class ResNetV2(HybridBlock):
    """ResNet V2 (pre-activation): input batch norm without scale/shift, the stem, the stages,
    a final BN-ReLU, global average pooling and the classifier."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        _check_spec(layers, channels)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.BatchNorm(scale=False, center=False))
            if thumbnail:
                self.features.add(_conv3x3(channels[0], 1, 0))
            else:
                self.features.add(nn.Conv2D(channels[0], 7, 2, 3, use_bias=False), nn.BatchNorm(),
                                  nn.Activation("relu"), nn.MaxPool2D(3, 2, 1))
            in_channels = channels[0]
            for i, num_layer in enumerate(layers):
                stride = 1 if i == 0 else 2
                self.features.add(_make_stage(block, num_layer, channels[i + 1], stride, i + 1, in_channels))
                in_channels = channels[i + 1]
            self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes, in_units=in_channels)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


# depth -> (block kind, blocks per stage, channels)
resnet_spec = {18: ("basic_block", [2, 2, 2, 2], [64, 64, 128, 256, 512]),
               34: ("basic_block", [3, 4, 6, 3], [64, 64, 128, 256, 512]),
               50: ("bottle_neck", [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
               101: ("bottle_neck", [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
               152: ("bottle_neck", [3, 8, 36, 3], [64, 256, 512, 1024, 2048])}
resnet_net_versions = [ResNetV1, ResNetV2]
resnet_block_versions = [{"basic_block": BasicBlockV1, "bottle_neck": BottleneckV1},
                         {"basic_block": BasicBlockV2, "bottle_neck": BottleneckV2}]


def load_pretrained(net, name, pretrained, ctx, root):
    """Load ``name``'s pre-trained parameters into ``net`` when ``pretrained`` (from
    ``root/<name>-<hash>.params``; DownloadError naming that path when absent)."""
    if pretrained:
        net.load_parameters(get_model_file(name, root=root), ctx=ctx)
    return net


def get_resnet(version, num_layers, pretrained=False, ctx=cpu(), root=os.path.join(data_dir(), "models"),
               **kwargs):
    """ResNet ``version`` (1 or 2) with ``num_layers`` (18, 34, 50, 101, 152); ``kwargs`` go
    to the network (``classes``, ``thumbnail``).  ``pretrained=True`` loads
    ``root/resnet<N>_v<V>-<hash>.params`` (DownloadError naming it when absent)."""
    if num_layers not in resnet_spec:
        raise MXNetValueError(f"get_resnet: invalid number of layers {num_layers}; options are "
                              f"{sorted(resnet_spec)}")
    if version not in (1, 2):
        raise MXNetValueError(f"get_resnet: invalid resnet version {version}; options are 1 and 2")
    block_type, layers, channels = resnet_spec[num_layers]
    net = resnet_net_versions[version - 1](resnet_block_versions[version - 1][block_type], layers, channels,
                                           **kwargs)
    return load_pretrained(net, f"resnet{num_layers}_v{version}", pretrained, ctx, root)


def _constructor(version, depth):
    def build(**kwargs):
        return get_resnet(version, depth, **kwargs)
    build.__name__ = f"resnet{depth}_v{version}"
    build.__doc__ = (f"ResNet-{depth} V{version} (``get_resnet({version}, {depth}, **kwargs)``): "
                     f"``pretrained``, ``ctx``, ``root``, ``classes``, ``thumbnail``.")
    return build


resnet18_v1 = _constructor(1, 18)
resnet34_v1 = _constructor(1, 34)
resnet50_v1 = _constructor(1, 50)
resnet101_v1 = _constructor(1, 101)
resnet152_v1 = _constructor(1, 152)
resnet18_v2 = _constructor(2, 18)
resnet34_v2 = _constructor(2, 34)
resnet50_v2 = _constructor(2, 50)
resnet101_v2 = _constructor(2, 101)
resnet152_v2 = _constructor(2, 152)
