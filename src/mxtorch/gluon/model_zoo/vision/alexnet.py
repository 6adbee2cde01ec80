"""AlexNet (Krizhevsky et al. 2012, "One weird trick" single-tower variant) with MXNet 1.9.1's
parameter names.  Input ``(batch, 3, 224, 224)``; output ``(batch, classes)``."""
from __future__ import annotations

import os

from ....base import data_dir
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from .resnet import load_pretrained

__all__ = ["AlexNet", "alexnet"]


class AlexNet(HybridBlock):
    """Five convolutions (ReLU, three max-poolings) and two 4096-unit dense layers with dropout."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                self.features.add(nn.Conv2D(64, kernel_size=11, strides=4, padding=2, activation="relu"),
                                  nn.MaxPool2D(pool_size=3, strides=2),
                                  nn.Conv2D(192, kernel_size=5, padding=2, activation="relu"),
                                  nn.MaxPool2D(pool_size=3, strides=2),
                                  nn.Conv2D(384, kernel_size=3, padding=1, activation="relu"),
                                  nn.Conv2D(256, kernel_size=3, padding=1, activation="relu"),
                                  nn.Conv2D(256, kernel_size=3, padding=1, activation="relu"),
                                  nn.MaxPool2D(pool_size=3, strides=2),
                                  nn.Flatten(),
                                  nn.Dense(4096, activation="relu"), nn.Dropout(0.5),
                                  nn.Dense(4096, activation="relu"), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def alexnet(pretrained=False, ctx=cpu(), root=os.path.join(data_dir(), "models"), **kwargs):
    """AlexNet; ``pretrained=True`` loads ``root/alexnet-<hash>.params`` (DownloadError naming it when absent)."""
    return load_pretrained(AlexNet(**kwargs), "alexnet", pretrained, ctx, root)


_models = {"alexnet": alexnet}
