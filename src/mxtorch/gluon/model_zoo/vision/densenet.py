"""DenseNet 121/161/169/201 (Huang et al. 2016) with MXNet 1.9.1's parameter names.
Input ``(batch, 3, 224, 224)``; output ``(batch, classes)``."""
from __future__ import annotations

import os

from ....base import MXNetValueError, data_dir
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent, Identity
from .resnet import load_pretrained

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201", "get_densenet",
           "densenet_spec"]


def _dense_layer(growth_rate, bn_size, dropout):
    new_features = nn.HybridSequential(prefix="")
    new_features.add(nn.BatchNorm(), nn.Activation("relu"),
                     nn.Conv2D(bn_size * growth_rate, kernel_size=1, use_bias=False),
                     nn.BatchNorm(), nn.Activation("relu"),
                     nn.Conv2D(growth_rate, kernel_size=3, padding=1, use_bias=False))
    if dropout:
        new_features.add(nn.Dropout(dropout))
    out = HybridConcurrent(axis=1, prefix="")
    out.add(Identity())
    out.add(new_features)
    return out


def _dense_block(num_layers, bn_size, growth_rate, dropout, stage_index):
    out = nn.HybridSequential(prefix=f"stage{stage_index}_")
    with out.name_scope():
        for _ in range(num_layers):
            out.add(_dense_layer(growth_rate, bn_size, dropout))
    return out


def _transition(num_output_features):
    out = nn.HybridSequential(prefix="")
    out.add(nn.BatchNorm(), nn.Activation("relu"), nn.Conv2D(num_output_features, kernel_size=1, use_bias=False),
            nn.AvgPool2D(pool_size=2, strides=2))
    return out


class DenseNet(HybridBlock):
    """Stem (7x7 conv, BN, ReLU, max-pool), dense blocks of ``block_config[i]`` layers each adding
    ``growth_rate`` channels, transitions halving channels and resolution, BN-ReLU, 7x7 average pool."""

    def __init__(self, num_init_features, growth_rate, block_config, bn_size=4, dropout=0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.Conv2D(num_init_features, kernel_size=7, strides=2, padding=3, use_bias=False),
                              nn.BatchNorm(), nn.Activation("relu"), nn.MaxPool2D(pool_size=3, strides=2, padding=1))
            num_features = num_init_features
            for i, num_layers in enumerate(block_config):
                self.features.add(_dense_block(num_layers, bn_size, growth_rate, dropout, i + 1))
                num_features += num_layers * growth_rate
                if i != len(block_config) - 1:
                    self.features.add(_transition(num_features // 2))
                    num_features //= 2
            self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.AvgPool2D(pool_size=7), nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


densenet_spec = {121: (64, 32, [6, 12, 24, 16]),
                 161: (96, 48, [6, 12, 36, 24]),
                 169: (64, 32, [6, 12, 32, 32]),
                 201: (64, 32, [6, 12, 48, 32])}


def get_densenet(num_layers, pretrained=False, ctx=cpu(), root=os.path.join(data_dir(), "models"), **kwargs):
    """DenseNet with ``num_layers`` (121, 161, 169, 201); ``pretrained=True`` loads
    ``root/densenet<N>-<hash>.params`` (DownloadError when absent)."""
    if num_layers not in densenet_spec:
        raise MXNetValueError(f"get_densenet: invalid number of layers {num_layers}; options are "
                              f"{sorted(densenet_spec)}")
    num_init_features, growth_rate, block_config = densenet_spec[num_layers]
    net = DenseNet(num_init_features, growth_rate, block_config, **kwargs)
    return load_pretrained(net, f"densenet{num_layers}", pretrained, ctx, root)


def _constructor(depth):
    def build(**kwargs):
        return get_densenet(depth, **kwargs)
    build.__name__ = f"densenet{depth}"
    build.__doc__ = f"DenseNet-{depth} (``get_densenet({depth}, ...)``)."
    return build


densenet121, densenet161, densenet169, densenet201 = (_constructor(d) for d in (121, 161, 169, 201))
_models = {f"densenet{d}": globals()[f"densenet{d}"] for d in (121, 161, 169, 201)}

# MXNet 1.9.1's names of the builders above
_make_dense_layer = _dense_layer
_make_dense_block = _dense_block
_make_transition = _transition
