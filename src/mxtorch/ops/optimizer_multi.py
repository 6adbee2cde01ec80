"""MXNet's update operators for AdamW, LAMB over many tensors, LARS, and the "preloaded"
multi-tensor SGD forms whose learning rates and weight decays are arrays.

As the single-weight updates of :mod:`mxtorch.ops.optimizer_updates`: the visible outputs are
the new weights, the optimizer states (``mean``, ``var``, ``mom``, the float32 master copies
``weight32``) are updated in place, and no gradient flows through an update.  A gradient bound
``clip_gradient >= 0`` clips the rescaled gradient; the default -1 does not.

The ``contrib.adamw_update`` family takes ``rescale_grad`` as an array (a number is turned into
one by the front-end functions of ``mx.nd.contrib`` / ``mx.sym.contrib``); when it holds NaN,
infinity or 0 the update is skipped: the weight and states keep their values, as MXNet
skipped the kernel.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from .registry import Attr, Bool, Float, FloatTuple, Int, Operator, merge_shape, register
from .optimizer_updates import _MultiSGDOperator, infer_group_shapes

__all__ = []

_FLOAT32 = np.dtype(np.float32)


def _clip(tensor, bound):
    return tensor.clamp(-bound, bound) if bound >= 0 else tensor


def _scalar(value, tensor):
    """A float attribute rounded to the compute precision (float32 unless float64), as MXNet's
    kernels cast their parameters."""
    return float((np.float64 if tensor.dtype == torch.float64 else np.float32)(value))


class _GroupedUpdate(Operator):
    """Base of the updates over ``count`` groups of inputs of one shape each (``group`` names the
    inputs of one group), optionally followed by ``tail`` inputs shared by all groups; one output
    (the new weight) per group.  ``multi_precision``: the last group input is the float32
    master weight."""

    group = ("weight", "grad")
    tail = ()
    multi_precision = False

    @property
    def count(self):
        return 1

    def arguments(self):
        if self.count == 1 and not getattr(self, "indexed_names", False):
            return list(self.group) + list(self.tail)
        return [f"{name}_{index}" for index in range(self.count) for name in self.group] + list(self.tail)

    def outputs(self):
        return ["output"] if self.count == 1 else [f"output{index}" for index in range(self.count)]

    def infer_shape(self, in_shapes, out_shapes):
        shapes_in, shapes_out = infer_group_shapes(self, in_shapes, out_shapes, len(self.group), self.count, "group")
        return shapes_in + [self.tail_shape(i) for i in range(len(self.tail))], shapes_out, []

    def tail_shape(self, position):
        return (1,)

    def infer_type(self, in_types):
        size = len(self.group)
        types_in, types_out = [], []
        for index in range(self.count):
            group = in_types[index * size:(index + 1) * size]
            weight = group[0] if group[0] is not None else group[1]
            if self.multi_precision:
                types_in += [weight, weight] + [_FLOAT32] * (size - 2)
            else:
                types_in += [weight] * size
            types_out.append(weight)
        return types_in + [_FLOAT32] * len(self.tail), types_out, []

    def groups(self, inputs):
        size = len(self.group)
        return [list(inputs[index * size:(index + 1) * size]) for index in range(self.count)], \
            list(inputs[self.count * size:])


# -- AdamW -------------------------------------------------------------------------------------------
def _adamw_step(op, weight, grad, mean, var, rescale, lr, wd, eta):
    """One AdamW step in place on ``weight`` (float32 master or the weight itself), ``mean``, ``var``."""
    g = _clip(grad.to(weight.dtype) * rescale, op.clip_gradient)
    mean.mul_(_scalar(op.beta1, weight)).add_(_scalar(1 - np.float32(op.beta1), weight) * g)
    var.mul_(_scalar(op.beta2, weight)).add_(_scalar(1 - np.float32(op.beta2), weight) * g * g)
    weight.sub_(_scalar(eta, weight) * (_scalar(lr, weight) * mean / (var.sqrt() + _scalar(op.epsilon, weight))
                                        + _scalar(wd, weight) * weight))


class _AdamW(_GroupedUpdate):
    tail = ("rescale_grad",)
    beta1 = Attr(Float, default=0.9)
    beta2 = Attr(Float, default=0.999)
    epsilon = Attr(Float, default=1e-8)
    clip_gradient = Attr(Float, default=-1.0)

    def hyper(self, index):
        return self.lr, self.wd, self.eta

    def forward(self, is_train, inputs, aux):
        groups, (rescale,) = self.groups(inputs)
        rescale_value = float(rescale.reshape(-1)[0])
        skip = not math.isfinite(rescale_value) or rescale_value == 0
        results = []
        with torch.no_grad():
            for index, (weight, grad, mean, var, *master) in enumerate(groups):
                target = master[0] if self.multi_precision else weight.detach().clone()
                if not skip:
                    lr, wd, eta = self.hyper(index)
                    _adamw_step(self, target, grad.detach(), mean, var, rescale_value, lr, wd, eta)
                results.append(target.to(weight.dtype) if self.multi_precision else target)
        return results


@register("_adamw_update")
class AdamWUpdate(_AdamW):
    """AdamW step (MXNet's ``contrib.adamw_update``): with ``g = clip(rescale_grad * grad)``,
    ``mean = beta1 * mean + (1 - beta1) * g``, ``var = beta2 * var + (1 - beta2) * g**2``
    (both in place), then ``weight - eta * (lr * mean / (sqrt(var) + epsilon) + wd * weight)``.
    Inputs ``weight``, ``grad``, ``mean``, ``var`` of one shape and ``rescale_grad`` of shape
    ``(1,)``; the update is skipped when ``rescale_grad`` is NaN, infinite or 0."""

    group = ("weight", "grad", "mean", "var")
    lr = Attr(Float, required=True)
    eta = Attr(Float, required=True)
    wd = Attr(Float, default=0.0)


@register("_mp_adamw_update")
class MultiPrecisionAdamWUpdate(AdamWUpdate):
    """``adamw_update`` on the float32 master copy ``weight32`` (updated in place with ``mean`` and
    ``var``); returns it in ``weight``'s dtype (MXNet's ``contrib.mp_adamw_update``)."""

    group = ("weight", "grad", "mean", "var", "weight32")
    multi_precision = True


class _MultiAdamW(_AdamW):
    lrs = Attr(FloatTuple, required=True)
    wds = Attr(FloatTuple, required=True)
    etas = Attr(FloatTuple, required=True)
    num_weights = Attr(Int, default=1)
    indexed_names = True

    @property
    def count(self):
        return self.num_weights

    def validate(self):
        for name in ("lrs", "wds", "etas"):
            if len(getattr(self, name)) != self.num_weights:
                raise self.error(f"attribute {name!r} must have num_weights={self.num_weights} values, got "
                                 f"{tuple(getattr(self, name))}")

    def hyper(self, index):
        return self.lrs[index], self.wds[index], self.etas[index]


@register("_multi_adamw_update")
class MultiAdamWUpdate(_MultiAdamW):
    """``adamw_update`` on ``num_weights`` weights: inputs ``weight_i, grad_i, mean_i, var_i`` per
    weight then one ``rescale_grad``; ``lrs``, ``wds``, ``etas`` per weight (MXNet's
    ``contrib.multi_adamw_update``)."""

    group = ("weight", "grad", "mean", "var")


@register("_multi_mp_adamw_update")
class MultiMultiPrecisionAdamWUpdate(_MultiAdamW):
    """``mp_adamw_update`` on ``num_weights`` weights: inputs ``weight_i, grad_i, mean_i, var_i,
    weight32_i`` per weight then ``rescale_grad`` (MXNet's ``contrib.multi_mp_adamw_update``)."""

    group = ("weight", "grad", "mean", "var", "weight32")
    multi_precision = True


# -- LAMB over many tensors -------------------------------------------------------------------------
class _MultiLAMB(_GroupedUpdate):
    learning_rates = Attr(FloatTuple, required=True)
    wds = Attr(FloatTuple, required=True)
    step_count = Attr(lambda v, n: tuple(int(x) for x in FloatTuple(v, n)), required=True)
    beta1 = Attr(Float, default=0.9)
    beta2 = Attr(Float, default=0.999)
    epsilon = Attr(Float, default=1e-6)
    rescale_grad = Attr(Float, default=1.0)
    lower_bound = Attr(Float, default=-1.0)
    upper_bound = Attr(Float, default=-1.0)
    clip_gradient = Attr(Float, default=-1.0)
    bias_correction = Attr(Bool, default=True)
    num_tensors = Attr(Int, default=1)
    indexed_names = True

    @property
    def count(self):
        return self.num_tensors

    def validate(self):
        for name in ("learning_rates", "wds", "step_count"):
            if len(getattr(self, name)) != self.num_tensors:
                raise self.error(f"attribute {name!r} must have num_tensors={self.num_tensors} values, got "
                                 f"{tuple(getattr(self, name))}")

    def forward(self, is_train, inputs, aux):
        groups, _ = self.groups(inputs)
        results = []
        with torch.no_grad():
            for index, (weight, grad, mean, var, *master) in enumerate(groups):
                target = master[0] if self.multi_precision else weight.detach().clone()
                g = _clip(grad.detach().to(target.dtype) * _scalar(self.rescale_grad, target), self.clip_gradient)
                mean.mul_(_scalar(self.beta1, target)).add_(_scalar(1 - np.float32(self.beta1), target) * g)
                var.mul_(_scalar(self.beta2, target)).add_(_scalar(1 - np.float32(self.beta2), target) * g * g)
                mean_hat, var_hat = mean, var
                if self.bias_correction:
                    t = self.step_count[index]
                    mean_hat = mean / _scalar(1 - np.float32(self.beta1) ** np.float32(t), target)
                    var_hat = var / _scalar(1 - np.float32(self.beta2) ** np.float32(t), target)
                update = mean_hat / (var_hat.sqrt() + _scalar(self.epsilon, target)) + \
                    _scalar(self.wds[index], target) * target
                r1 = target.float().pow(2).sum().sqrt()
                r2 = update.float().pow(2).sum().sqrt()
                if self.lower_bound >= 0:
                    r1 = r1.clamp(min=self.lower_bound)
                if self.upper_bound >= 0:
                    r1 = r1.clamp(max=self.upper_bound)
                ratio = torch.where((r1 == 0) | (r2 == 0), torch.ones_like(r1), r1 / r2)
                target.sub_((self.learning_rates[index] * ratio).to(target.dtype) * update)
                results.append(target.to(weight.dtype) if self.multi_precision else target)
        return results


@register("_multi_lamb_update")
class MultiLAMBUpdate(_MultiLAMB):
    """LAMB on ``num_tensors`` weights (MXNet's ``contrib.multi_lamb_update``): inputs
    ``weight_i, grad_i, mean_i, var_i``; per weight ``learning_rates``, ``wds`` and
    ``step_count`` (for the bias correction).  Each weight moves by
    ``lr * r1 / r2 * (mean_hat / (sqrt(var_hat) + epsilon) + wd * weight)`` with ``r1`` the
    weight's norm (bounded by ``lower_bound`` / ``upper_bound`` when >= 0) and ``r2`` the
    update's; the ratio is 1 when either norm is 0."""

    group = ("weight", "grad", "mean", "var")


@register("_multi_mp_lamb_update")
class MultiMultiPrecisionLAMBUpdate(_MultiLAMB):
    """``multi_lamb_update`` on float32 master copies ``weight32_i`` (updated in place); the
    outputs are in the weights' dtype (MXNet's ``contrib.multi_mp_lamb_update``)."""

    group = ("weight", "grad", "mean", "var", "weight32")
    multi_precision = True


# -- LARS learning rates ------------------------------------------------------------------------------
@register("multi_lars")
class MultiLARS(Operator):
    """Per-layer LARS learning rates (MXNet's ``multi_lars``): for 1-D float32 ``lrs``,
    ``weights_sum_sq``, ``grads_sum_sq`` and ``wds`` of one length, ``lrs * eta * w / (g *
    rescale_grad + wds * w + eps)`` with ``w = sqrt(weights_sum_sq)``, ``g = sqrt(grads_sum_sq)``
    where both norms are positive, else ``lrs`` unchanged."""

    eta = Attr(Float, required=True)
    eps = Attr(Float, required=True)
    rescale_grad = Attr(Float, default=1.0)

    def arguments(self):
        return ["lrs", "weights_sum_sq", "grads_sum_sq", "wds"]

    def forward(self, is_train, inputs, aux):
        lrs, weights_sum_sq, grads_sum_sq, wds = (t.detach().float() for t in inputs)
        w_norm, g_norm = weights_sum_sq.sqrt(), grads_sum_sq.sqrt()
        ratio = lrs * self.eta * w_norm / (g_norm * self.rescale_grad + wds * w_norm + self.eps)
        return [torch.where((w_norm > 0) & (grads_sum_sq > 0), ratio, lrs).to(inputs[0].dtype)]


# -- multi-tensor SGD with the learning rates and weight decays as arrays -----------------------------
class _PreloadedMultiSGD(_MultiSGDOperator):
    """``multi_*sgd*_update`` whose per-weight ``lrs`` and ``wds`` are the last two inputs
    (float32 arrays of ``num_weights`` values) instead of attributes."""

    lrs = None
    wds = None
    positional_order = ("momentum", "rescale_grad", "clip_gradient", "num_weights")

    def validate(self):
        if self.num_weights < 1:
            raise self.error(f"num_weights must be positive, got {self.num_weights}")

    def arguments(self):
        return super().arguments() + ["lrs", "wds"]

    def infer_shape(self, in_shapes, out_shapes):
        shapes_in, shapes_out, _ = super().infer_shape(in_shapes[:-2], out_shapes)
        rates = [merge_shape(shape, (self.num_weights,), f"Operator {self.name} {name}")
                 for shape, name in zip(in_shapes[-2:], ("lrs", "wds"))]
        return shapes_in + rates, shapes_out, []

    def infer_type(self, in_types):
        types_in, types_out, _ = super().infer_type(in_types[:-2])
        return types_in + [_FLOAT32, _FLOAT32], types_out, []

    def forward(self, is_train, inputs, aux):
        lrs, wds = (tuple(float(v) for v in t.detach().reshape(-1).tolist()) for t in inputs[-2:])
        if len(lrs) != self.num_weights or len(wds) != self.num_weights:
            raise self.error(f"inputs 'lrs' and 'wds' must hold num_weights={self.num_weights} values, got "
                             f"{len(lrs)} and {len(wds)}")
        self.lrs, self.wds = lrs, wds
        return super().forward(is_train, inputs[:-2], aux)


@register("preloaded_multi_sgd_update")
class PreloadedMultiSGDUpdate(_PreloadedMultiSGD):
    """``multi_sgd_update`` with ``lrs`` and ``wds`` as the last two inputs (MXNet's
    ``preloaded_multi_sgd_update``)."""

    positional_order = ("rescale_grad", "clip_gradient", "num_weights")


@register("preloaded_multi_sgd_mom_update")
class PreloadedMultiSGDMomentumUpdate(_PreloadedMultiSGD):
    """``multi_sgd_mom_update`` with ``lrs`` and ``wds`` as the last two inputs (MXNet's
    ``preloaded_multi_sgd_mom_update``); the momenta are updated in place."""

    group_states = ("mom",)
    momentum = Attr(Float, default=0.0)


@register("preloaded_multi_mp_sgd_update")
class PreloadedMultiMultiPrecisionSGDUpdate(_PreloadedMultiSGD):
    """``multi_mp_sgd_update`` with ``lrs`` and ``wds`` as the last two inputs (MXNet's
    ``preloaded_multi_mp_sgd_update``); the float32 master copies are updated in place."""

    group_states = ("weight32",)
    multi_precision = True
    positional_order = ("rescale_grad", "clip_gradient", "num_weights")


@register("preloaded_multi_mp_sgd_mom_update")
class PreloadedMultiMultiPrecisionSGDMomentumUpdate(_PreloadedMultiSGD):
    """``multi_mp_sgd_mom_update`` with ``lrs`` and ``wds`` as the last two inputs (MXNet's
    ``preloaded_multi_mp_sgd_mom_update``)."""

    group_states = ("mom", "weight32")
    multi_precision = True
    momentum = Attr(Float, default=0.0)


# -- group AdaGrad -----------------------------------------------------------------------------------
@register("_contrib_group_adagrad_update")
class GroupAdaGradUpdate(Operator):
    """AdaGrad with one history value per row (MXNet's ``contrib.group_adagrad_update``): with
    ``g = clip(rescale_grad * grad)`` of ``weight``'s shape ``(rows, ...)``, ``history`` of shape
    ``(rows, 1)`` gains the mean of ``g**2`` over each row (in place) and ``weight - lr * g /
    sqrt(history + epsilon)`` is returned.  A row_sparse ``grad`` updates only its rows (MXNet
    ran only that form)."""

    lr = Attr(Float, required=True)
    rescale_grad = Attr(Float, default=1.0)
    clip_gradient = Attr(Float, default=-1.0)
    epsilon = Attr(Float, default=1e-5)

    def arguments(self):
        return ["weight", "grad", "history"]

    def infer_shape(self, in_shapes, out_shapes):
        weight = merge_shape(in_shapes[0], in_shapes[1], f"Operator {self.name}")
        weight = merge_shape(weight, out_shapes[0], f"Operator {self.name}")
        history = in_shapes[2]
        if weight is not None:
            history = merge_shape(history, (weight[0], 1), f"Operator {self.name} history")
        return [weight, weight, history], [weight], []

    def forward(self, is_train, inputs, aux):
        weight, grad, history = inputs
        with torch.no_grad():
            new_weight = weight.detach().clone()
            rows = torch.arange(weight.shape[0], device=weight.device)
            if self.input_storage is not None and self.input_storage[1] == "row_sparse":
                rows = torch.nonzero((grad.reshape(grad.shape[0], -1) != 0).any(dim=1)).reshape(-1)
            g = _clip(grad.detach()[rows].to(weight.dtype) * self.rescale_grad, self.clip_gradient)
            flat = g.reshape(g.shape[0], -1)
            past = history.reshape(history.shape[0], -1)
            past[rows] = past[rows] + flat.pow(2).mean(dim=1, keepdim=True).to(history.dtype)
            scale = (past[rows] + self.epsilon).sqrt().reshape((-1,) + (1,) * (g.dim() - 1))
            new_weight[rows] = new_weight[rows] - self.lr * g / scale.to(g.dtype)
            return [new_weight]
