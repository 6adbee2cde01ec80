"""``Dropout``."""
from __future__ import annotations

import torch

from ..registry import Attr, Operator, register, Float, Bool, Shape, Choice, optional, merge_shape

__all__ = []


@register("Dropout")
class Dropout(Operator):
    """Randomly zeroes elements with probability ``p`` in training and scales the rest by
    ``1 / (1 - p)``; identity in inference unless ``mode='always'``.  With ``p=1`` the
    training output and its gradient are NaN, as in MXNet 1.9.1 (its mask is ``0 * inf``).  ``axes`` shares one
    mask value along the listed axes (variational dropout).  Uses torch's RNG
    (``mx.random.seed``)."""

    p = Attr(Float, default=0.5)
    mode = Attr(Choice("training", "always"), default="training")
    axes = Attr(Shape, default=())
    cudnn_off = Attr(optional(Bool), default=False)

    @property
    def traceable(self):
        """The identity at inference, unless ``mode='always'`` (random then)."""
        return self.mode != "always"

    def validate(self):
        if not 0 <= self.p <= 1:
            raise self.error(f"p must be in [0, 1], got {self.p}")

    def outputs(self):
        return ["output", "mask"]

    def num_visible_outputs(self):
        return 1

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name}")
        return [data], [data, data], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        active = (is_train or self.mode == "always") and self.p > 0
        if not active:
            return [data, torch.ones_like(data)]
        mask_shape = list(data.shape)
        for axis in self.axes:
            mask_shape[axis] = 1
        keep = 1.0 - self.p
        # p = 1: MXNet's mask is 0 * (1 / 0), so output and gradient are NaN (its own tests
        # check this)
        scale = 1.0 / keep if keep else float("inf")
        mask = torch.empty(mask_shape, dtype=data.dtype, device=data.device).bernoulli_(keep) * scale
        return [data * mask, mask.expand_as(data)]
