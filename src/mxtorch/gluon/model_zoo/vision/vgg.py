"""VGG 11/13/16/19 (Simonyan & Zisserman 2014), optionally with batch norm, with MXNet 1.9.1's
parameter names and initializers.  Input ``(batch, 3, 224, 224)``; output ``(batch, classes)``."""
from __future__ import annotations

import os

from ....base import MXNetValueError, data_dir
from ....context import cpu
from ....initializer import Xavier
from ...block import HybridBlock
from ... import nn
from .resnet import load_pretrained

__all__ = ["VGG", "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn", "get_vgg",
           "vgg_spec"]


class VGG(HybridBlock):
    """``layers[i]`` 3x3 convolutions of ``filters[i]`` channels (then batch norm when
    ``batch_norm``, ReLU) per stage, 2x2 max-pooling, two 4096-unit dense layers with dropout."""

    def __init__(self, layers, filters, classes=1000, batch_norm=False, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(filters):
            raise MXNetValueError(f"VGG: layers and filters need the same length, got {len(layers)} and "
                                  f"{len(filters)}")
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            for count, channels in zip(layers, filters):
                for _ in range(count):
                    self.features.add(nn.Conv2D(channels, kernel_size=3, padding=1,
                                                weight_initializer=Xavier(rnd_type="gaussian", factor_type="out",
                                                                          magnitude=2),
                                                bias_initializer="zeros"))
                    if batch_norm:
                        self.features.add(nn.BatchNorm())
                    self.features.add(nn.Activation("relu"))
                self.features.add(nn.MaxPool2D(strides=2))
            for _ in range(2):
                self.features.add(nn.Dense(4096, activation="relu", weight_initializer="normal",
                                           bias_initializer="zeros"), nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, weight_initializer="normal", bias_initializer="zeros")

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


vgg_spec = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
            13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
            16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
            19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


def get_vgg(num_layers, pretrained=False, ctx=cpu(), root=os.path.join(data_dir(), "models"), **kwargs):
    """VGG with ``num_layers`` (11, 13, 16, 19); ``batch_norm=True`` adds batch norm.
    ``pretrained=True`` loads ``root/vgg<N>[_bn]-<hash>.params`` (DownloadError when absent)."""
    if num_layers not in vgg_spec:
        raise MXNetValueError(f"get_vgg: invalid number of layers {num_layers}; options are {sorted(vgg_spec)}")
    layers, filters = vgg_spec[num_layers]
    net = VGG(layers, filters, **kwargs)
    name = f"vgg{num_layers}" + ("_bn" if kwargs.get("batch_norm") else "")
    return load_pretrained(net, name, pretrained, ctx, root)


def _constructor(depth, batch_norm):
    def build(**kwargs):
        if batch_norm:
            kwargs["batch_norm"] = True
        return get_vgg(depth, **kwargs)
    build.__name__ = f"vgg{depth}" + ("_bn" if batch_norm else "")
    build.__doc__ = f"VGG-{depth}{' with batch norm' if batch_norm else ''} (``get_vgg({depth}, ...)``)."
    return build


vgg11, vgg13, vgg16, vgg19 = (_constructor(d, False) for d in (11, 13, 16, 19))
vgg11_bn, vgg13_bn, vgg16_bn, vgg19_bn = (_constructor(d, True) for d in (11, 13, 16, 19))
_models = {f"vgg{d}{s}": globals()[f"vgg{d}{s}"] for d in (11, 13, 16, 19) for s in ("", "_bn")}
