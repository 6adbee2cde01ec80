"""Inception V3 (Szegedy et al. 2015, "Rethinking the Inception Architecture") with MXNet
1.9.1's parameter names (``inception30_A1_conv0_weight``, ...).  Input ``(batch, 3, 299, 299)``;
output ``(batch, classes)``."""
from __future__ import annotations

import os

from ....base import data_dir
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent
from .resnet import load_pretrained

__all__ = ["Inception3", "inception_v3", "make_aux"]


def _basic_conv(**kwargs):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(use_bias=False, **kwargs), nn.BatchNorm(epsilon=0.001), nn.Activation("relu"))
    return out


def _branch(use_pool, *conv_settings):
    """A branch: an optional pool, then convolutions given as (channels, kernel_size, strides, padding)."""
    out = nn.HybridSequential(prefix="")
    if use_pool == "avg":
        out.add(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
    elif use_pool == "max":
        out.add(nn.MaxPool2D(pool_size=3, strides=2))
    names = ("channels", "kernel_size", "strides", "padding")
    for setting in conv_settings:
        out.add(_basic_conv(**{names[i]: value for i, value in enumerate(setting) if value is not None}))
    return out


def _make_A(pool_features, prefix):
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_branch(None, (64, 1, None, None)))
        out.add(_branch(None, (48, 1, None, None), (64, 5, None, 2)))
        out.add(_branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, None, 1)))
        out.add(_branch("avg", (pool_features, 1, None, None)))
    return out


def _make_B(prefix):
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_branch(None, (384, 3, 2, None)))
        out.add(_branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, 2, None)))
        out.add(_branch("max"))
    return out


def _make_C(channels_7x7, prefix):
    c = channels_7x7
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_branch(None, (192, 1, None, None)))
        out.add(_branch(None, (c, 1, None, None), (c, (1, 7), None, (0, 3)), (192, (7, 1), None, (3, 0))))
        out.add(_branch(None, (c, 1, None, None), (c, (7, 1), None, (3, 0)), (c, (1, 7), None, (0, 3)),
                        (c, (7, 1), None, (3, 0)), (192, (1, 7), None, (0, 3))))
        out.add(_branch("avg", (192, 1, None, None)))
    return out


def _make_D(prefix):
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_branch(None, (192, 1, None, None), (320, 3, 2, None)))
        out.add(_branch(None, (192, 1, None, None), (192, (1, 7), None, (0, 3)), (192, (7, 1), None, (3, 0)),
                        (192, 3, 2, None)))
        out.add(_branch("max"))
    return out


def _make_E(prefix):
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_branch(None, (320, 1, None, None)))
        for first in ((384, 1, None, None),), ((448, 1, None, None), (384, 3, None, 1)):
            path = nn.HybridSequential(prefix="")
            out.add(path)
            path.add(_branch(None, *first))
            split = HybridConcurrent(axis=1, prefix="")
            split.add(_branch(None, (384, (1, 3), None, (0, 1))))
            split.add(_branch(None, (384, (3, 1), None, (1, 0))))
            path.add(split)
        out.add(_branch("avg", (192, 1, None, None)))
    return out


def make_aux(classes):
    """The auxiliary classifier head (not used by Inception3's forward, as in MXNet)."""
    out = nn.HybridSequential(prefix="")
    out.add(nn.AvgPool2D(pool_size=5, strides=3), _basic_conv(channels=128, kernel_size=1),
            _basic_conv(channels=768, kernel_size=5), nn.Flatten(), nn.Dense(classes))
    return out


class Inception3(HybridBlock):
    """Inception V3: stem convolutions, mixed blocks A1-A3, B, C1-C4, D, E1-E2, 8x8 average pool,
    dropout, classifier."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(_basic_conv(channels=32, kernel_size=3, strides=2),
                              _basic_conv(channels=32, kernel_size=3),
                              _basic_conv(channels=64, kernel_size=3, padding=1),
                              nn.MaxPool2D(pool_size=3, strides=2),
                              _basic_conv(channels=80, kernel_size=1),
                              _basic_conv(channels=192, kernel_size=3),
                              nn.MaxPool2D(pool_size=3, strides=2),
                              _make_A(32, "A1_"), _make_A(64, "A2_"), _make_A(64, "A3_"), _make_B("B_"),
                              _make_C(128, "C1_"), _make_C(160, "C2_"), _make_C(160, "C3_"), _make_C(192, "C4_"),
                              _make_D("D_"), _make_E("E1_"), _make_E("E2_"),
                              nn.AvgPool2D(pool_size=8), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def inception_v3(pretrained=False, ctx=cpu(), root=os.path.join(data_dir(), "models"), **kwargs):
    """Inception V3; ``pretrained=True`` loads ``root/inceptionv3-<hash>.params`` (DownloadError when absent)."""
    return load_pretrained(Inception3(**kwargs), "inceptionv3", pretrained, ctx, root)


_models = {"inceptionv3": inception_v3}

# MXNet 1.9.1's names of the builders above
_make_basic_conv = _basic_conv
_make_branch = _branch
