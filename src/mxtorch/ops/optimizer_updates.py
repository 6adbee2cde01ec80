"""MXNet's fused optimizer update operators (``sgd_update``, ``adam_update``, ...).

Legacy training code calls these imperatively, for example::

    mx.nd.sgd_mom_update(weight, grad, mom, lr=0.1, momentum=0.9, wd=1e-4, out=weight)

As in MXNet 1.9.1:

- the (visible) output is the new weight; the ``weight`` input itself is only overwritten when
  it is passed as ``out=``;
- the optimizer state inputs (``mom``, ``mean``, ``var``, ``n``, ``g``, ``delta``, ``d``, ``v``,
  ``z``, the float32 master copy ``weight32``) are MXNet's mutable inputs: they are updated in
  place on every call;
- no gradient flows through an update (it runs under ``torch.no_grad()``);
- a gradient bound ``clip_gradient`` (``clip_grad`` for ``ftml_update``) clips when it is
  ``>= 0``; the default ``-1`` disables clipping and ``0`` clips the gradient term to zero.

The arithmetic is the step functions of :mod:`mxtorch.optimizer` (``sgd_step``, ``adam_step``,
...), which the optimizer classes use too, so both follow the same kernels.  Inputs of different
shapes raise :class:`~mxtorch.base.MXNetError` before anything is updated.

Row-sparse gradients (``mx.nd.sparse.sgd_update(weight, grad.tostype('row_sparse'), ...)``)
update lazily as in MXNet: with ``lazy_update=True`` (the default) only the rows that the
gradient stores (its non-zero rows) change, weight decay included, and so do the rows of the
states; the others keep their values.  ``lazy_update=False`` updates every row.  The updates of
``mx.nd.sparse`` (sgd, sgd_mom, adam, adagrad, ftrl) return the weight's storage type.
"""
from __future__ import annotations

import numpy as np
import torch

from .optimizer_kernels import (_kernel_clip, _one_minus, _power, adagrad_step, adam_step, ftml_step, ftrl_step,
                                nag_step, rmsprop_centered_step, rmsprop_step, sgd_step, signsgd_step, signum_step)
from .registry import Attr, Operator, register, Int, Float, Bool, FloatTuple, merge_shape


__all__ = []

_FLOAT32 = np.dtype(np.float32)


def _gradient_and_bound(grad, clip_gradient):
    """``(grad, clip_gradient)`` to hand to a step function.

    The step functions treat a bound of 0 as "no clipping" (how the optimizer classes call the
    kernels); the operators, like MXNet's, clip to ``[0, 0]`` then, which zeroes the clipped
    term: the gradient is replaced by zeros and the bound by -1.
    """
    if clip_gradient == 0:
        return torch.zeros_like(grad), -1.0
    return grad, clip_gradient


class _UpdateOperator(Operator):
    """Base of the single-weight update operators.

    Subclasses set ``states`` (the names of the mutable inputs that follow ``weight`` and
    ``grad``) and implement ``update(weight, grad, *states)``, which receives a private copy of
    the weight to update in place and the state tensors to update in place.
    """

    states = ()
    # the updates with a sparse form (mx.nd.sparse.sgd_update, ...) declare "preserve": the
    # output is the new weight, of the weight's storage type
    # when a row_sparse gradient updates only its rows: 'lazy_update' (the attribute decides),
    # 'always' (MXNet's sparse adagrad), 'row_sparse_weight' (ftrl: when the weight is row_sparse)
    lazy_rows_when = "lazy_update"

    def arguments(self):
        return ["weight", "grad"] + list(self.states)

    def lazy_rows(self, grad):
        """The rows a lazy update touches (those ``grad`` stores), or None to update every row."""
        stypes = self.input_storage
        if stypes is None or stypes[1] != "row_sparse" or grad.dim() == 0:
            return None
        rule = self.lazy_rows_when
        lazy = (rule == "always" or rule == "lazy_update" and getattr(self, "lazy_update", False)
                or rule == "row_sparse_weight" and stypes[0] == "row_sparse")
        if not lazy:
            return None
        return torch.nonzero((grad.reshape(grad.shape[0], -1) != 0).any(dim=1)).reshape(-1)

    def run_update(self, weight, grad, states):
        """``update(weight, grad, *states)`` in place, on the rows of a lazy update only."""
        rows = self.lazy_rows(grad)
        if rows is None:
            self.update(weight, grad, *states)
            return
        weight_rows, state_rows = weight[rows], [state[rows] for state in states]
        self.update(weight_rows, grad[rows], *state_rows)
        weight[rows] = weight_rows
        for state, values in zip(states, state_rows):
            state[rows] = values

    def infer_type(self, in_types):
        dtype = next((t for t in in_types if t is not None), None)
        return [dtype] * len(in_types), [dtype], []

    def forward(self, is_train, inputs, aux):
        weight, grad, *states = inputs
        if not weight.is_floating_point():
            raise self.error(f"input 'weight' must be a floating-point array, got {weight.dtype}")
        with torch.no_grad():
            new_weight = weight.detach().clone()
            self.run_update(new_weight, grad.detach(), states)
        return [new_weight]

    def update(self, weight, grad, *states):
        raise NotImplementedError


class _MultiPrecisionOperator(_UpdateOperator):
    """Base of the ``mp_*`` operators: ``weight`` (usually float16) and ``grad`` in the weight's
    dtype; the states, the last of which is the float32 master weight ``weight32``, in float32.
    The step runs on ``weight32`` with a float32 gradient; the output is ``weight32`` cast to the
    weight's dtype."""

    def infer_type(self, in_types):
        weight = in_types[0] if in_types[0] is not None else in_types[1]
        return [weight, weight] + [_FLOAT32] * len(self.states), [weight], []

    def forward(self, is_train, inputs, aux):
        weight, grad, *states = inputs
        master = states[-1]
        if master.dtype != torch.float32:
            raise self.error(f"input 'weight32' must be float32, got {master.dtype}")
        with torch.no_grad():
            self.run_update(master, grad.detach().float(), states[:-1])
            return [master.to(weight.dtype)]


def _sgd(weight, grad, momentum_buffer, op, nesterov=False, momentum=0.0):
    """Run ``sgd_step`` (or ``nag_step`` when ``nesterov``) with ``op``'s attributes."""
    step = nag_step if nesterov else sgd_step
    grad, clip_gradient = _gradient_and_bound(grad, op.clip_gradient)
    step(weight, grad, momentum_buffer, lr=op.lr, wd=op.wd, momentum=momentum,
         rescale_grad=op.rescale_grad, clip_gradient=clip_gradient)


class _SGDFamily:
    """MXNet's attributes of the SGD updates, in its order, and their step (``sgd_step``, or
    ``nag_step`` where ``nesterov``): ``update(weight, grad[, mom])``.  A member without
    momentum sets ``momentum = 0.0``, one without a lazy row-sparse form ``lazy_update = False``
    (a plain value there removes the attribute from the operator's schema)."""

    nesterov = False
    lr = Attr(Float, required=True)
    momentum = Attr(Float, default=0.0)
    wd = Attr(Float, default=0.0)
    rescale_grad = Attr(Float, default=1.0)
    clip_gradient = Attr(Float, default=-1.0)
    lazy_update = Attr(Bool, default=True)

    def update(self, weight, grad, mom=None):
        _sgd(weight, grad, mom, self, nesterov=self.nesterov, momentum=self.momentum)


@register("sgd_update")
class SGDUpdate(_SGDFamily, _UpdateOperator):
    """SGD step: ``weight - lr * (clip(rescale_grad * grad, clip_gradient) + wd * weight)``.

    Inputs ``weight`` and ``grad``, one shape; returns the new weight (MXNet's ``sgd_update``).
    """

    sparse_storage = "preserve"

    momentum = 0.0          # no momentum: the attribute is not one of this operator's


@register("sgd_mom_update")
class SGDMomentumUpdate(_SGDFamily, _UpdateOperator):
    """SGD with momentum: ``mom = momentum * mom - lr * (wd * weight + clip(rescale_grad * grad))``,
    then ``weight + mom``.

    Inputs ``weight``, ``grad``, ``mom`` (updated in place), one shape; returns the new weight
    (MXNet's ``sgd_mom_update``).
    """

    sparse_storage = "preserve"

    states = ("mom",)


@register("mp_sgd_update")
class MultiPrecisionSGDUpdate(_SGDFamily, _MultiPrecisionOperator):
    """``sgd_update`` on the float32 master copy ``weight32`` (updated in place); returns it cast
    to ``weight``'s dtype (MXNet's ``mp_sgd_update``)."""

    states = ("weight32",)
    momentum = 0.0          # no momentum: the attribute is not one of this operator's


@register("mp_sgd_mom_update")
class MultiPrecisionSGDMomentumUpdate(_SGDFamily, _MultiPrecisionOperator):
    """``sgd_mom_update`` on the float32 master copy ``weight32``; ``mom`` (float32) and
    ``weight32`` are updated in place; returns the new weight in ``weight``'s dtype (MXNet's
    ``mp_sgd_mom_update``)."""

    states = ("mom", "weight32")


@register("nag_mom_update")
class NAGMomentumUpdate(_SGDFamily, _UpdateOperator):
    """Nesterov momentum step (MXNet's ``nag_mom_update``); ``mom`` is updated in place.

    Mirrors MXNet 1.9.1 exactly, including that the momentum's weight-decay term uses the new
    weight (see :mod:`mxtorch.optimizer.nag`).
    """

    states = ("mom",)
    nesterov = True
    lazy_update = False     # no lazy row-sparse form: not an attribute of this operator


@register("mp_nag_mom_update")
class MultiPrecisionNAGMomentumUpdate(_SGDFamily, _MultiPrecisionOperator):
    """``nag_mom_update`` on the float32 master copy ``weight32``; ``mom`` and ``weight32`` are
    updated in place (MXNet's ``mp_nag_mom_update``)."""

    states = ("mom", "weight32")
    nesterov = True
    lazy_update = False     # no lazy row-sparse form: not an attribute of this operator


def _clipped_with_decay(op, grad, wd):
    """``(grad, wd, clip)`` for kernels that clip ``rescale_grad * grad + wd * weight`` as a
    whole: a bound of 0 zeroes the whole term (gradient and weight decay)."""
    bound = op.clip_grad if hasattr(op, "clip_grad") else op.clip_gradient
    if bound == 0:
        return torch.zeros_like(grad), 0.0, -1.0
    return grad, wd, bound


@register("adam_update")
class AdamUpdate(_UpdateOperator):
    """One Adam step without bias correction (the caller folds it into ``lr``); ``mean`` and
    ``var`` are updated in place (MXNet's ``adam_update``).  Weight decay is added to the
    rescaled gradient before the clip."""

    sparse_storage = "preserve"

    states = ("mean", "var")
    lr = Attr(Float, required=True)
    beta1 = Attr(Float, default=0.9)
    beta2 = Attr(Float, default=0.999)
    epsilon = Attr(Float, default=1e-8)
    wd = Attr(Float, default=0.0)
    rescale_grad = Attr(Float, default=1.0)
    clip_gradient = Attr(Float, default=-1.0)
    lazy_update = Attr(Bool, default=True)

    def update(self, weight, grad, mean, var):
        grad, wd, clip = _clipped_with_decay(self, grad, self.wd)
        adam_step(weight, grad, mean, var, lr=self.lr, wd=wd, beta1=self.beta1, beta2=self.beta2,
                  epsilon=self.epsilon, rescale_grad=self.rescale_grad, clip_gradient=clip)


@register("rmsprop_update")
class RMSPropUpdate(_UpdateOperator):
    """Plain RMSProp step; ``n`` is updated in place; with ``clip_weights >= 0`` the new weight
    is clipped to ``[-clip_weights, clip_weights]`` (MXNet's ``rmsprop_update``)."""

    states = ("n",)
    lr = Attr(Float, required=True)
    gamma1 = Attr(Float, default=0.95)
    epsilon = Attr(Float, default=1e-8)
    wd = Attr(Float, default=0.0)
    rescale_grad = Attr(Float, default=1.0)
    clip_gradient = Attr(Float, default=-1.0)
    clip_weights = Attr(Float, default=-1.0)

    def update(self, weight, grad, n):
        grad, wd, clip = _clipped_with_decay(self, grad, self.wd)
        rmsprop_step(weight, grad, n, lr=self.lr, wd=wd, gamma1=self.gamma1, epsilon=self.epsilon,
                     rescale_grad=self.rescale_grad, clip_gradient=clip, clip_weights=-1.0)
        _clip_weights(weight, self.clip_weights)


def _clip_weights(weight, clip_weights):
    # MXNet clips for every bound >= 0 (0 included); the step functions skip 0
    if clip_weights >= 0:
        weight.clamp_(-clip_weights, clip_weights)


@register("rmspropalex_update")
class RMSPropAlexUpdate(_UpdateOperator):
    """Centered RMSProp (Graves) step; ``n``, ``g`` (running mean gradient) and ``delta`` are
    updated in place (MXNet's ``rmspropalex_update``)."""

    states = ("n", "g", "delta")
    lr = Attr(Float, required=True)
    gamma1 = Attr(Float, default=0.95)
    gamma2 = Attr(Float, default=0.9)
    epsilon = Attr(Float, default=1e-8)
    wd = Attr(Float, default=0.0)
    rescale_grad = Attr(Float, default=1.0)
    clip_gradient = Attr(Float, default=-1.0)
    clip_weights = Attr(Float, default=-1.0)

    def update(self, weight, grad, n, mean_grad, delta):
        grad, wd, clip = _clipped_with_decay(self, grad, self.wd)
        rmsprop_centered_step(weight, grad, n, mean_grad, delta, lr=self.lr, wd=wd, gamma1=self.gamma1,
                              gamma2=self.gamma2, epsilon=self.epsilon, rescale_grad=self.rescale_grad,
                              clip_gradient=clip, clip_weights=-1.0)
        _clip_weights(weight, self.clip_weights)


@register("signsgd_update")
class SignSGDUpdate(_UpdateOperator):
    """signSGD step: ``(1 - lr * wd) * weight - lr * sign(clip(rescale_grad * grad))`` (MXNet's
    ``signsgd_update``)."""

    lr = Attr(Float, required=True)
    wd = Attr(Float, default=0.0)
    rescale_grad = Attr(Float, default=1.0)
    clip_gradient = Attr(Float, default=-1.0)

    def update(self, weight, grad):
        grad, clip = _gradient_and_bound(grad, self.clip_gradient)
        signsgd_step(weight, grad, lr=self.lr, wd=self.wd, rescale_grad=self.rescale_grad, clip_gradient=clip)


@register("signum_update")
class SignumUpdate(_UpdateOperator):
    """Signum step; ``mom`` is updated in place; ``wd_lh`` is decoupled weight decay (MXNet's
    ``signum_update``)."""

    states = ("mom",)
    lr = Attr(Float, required=True)
    momentum = Attr(Float, default=0.0)
    wd = Attr(Float, default=0.0)
    rescale_grad = Attr(Float, default=1.0)
    clip_gradient = Attr(Float, default=-1.0)
    wd_lh = Attr(Float, default=0.0)

    def update(self, weight, grad, mom):
        grad, clip = _gradient_and_bound(grad, self.clip_gradient)
        signum_step(weight, grad, mom, lr=self.lr, wd=self.wd, momentum=self.momentum, wd_lh=self.wd_lh,
                    rescale_grad=self.rescale_grad, clip_gradient=clip)


@register("ftml_update")
class FTMLUpdate(_UpdateOperator):
    """FTML step at step count ``t`` (>= 1); ``d``, ``v`` and ``z`` are updated in place (MXNet's
    ``ftml_update``; its gradient bound is named ``clip_grad``)."""

    states = ("d", "v", "z")
    lr = Attr(Float, required=True)
    beta1 = Attr(Float, default=0.6)
    beta2 = Attr(Float, default=0.999)
    epsilon = Attr(Float, default=1e-8)
    t = Attr(Int, required=True)
    wd = Attr(Float, default=0.0)
    rescale_grad = Attr(Float, default=1.0)
    clip_grad = Attr(Float, default=-1.0)

    def update(self, weight, grad, d, v, z):
        grad, wd, clip = _clipped_with_decay(self, grad, self.wd)
        ftml_step(weight, grad, d, v, z, lr=self.lr, wd=wd, t=self.t, beta1=self.beta1, beta2=self.beta2,
                  epsilon=self.epsilon, rescale_grad=self.rescale_grad, clip_gradient=clip)


@register("ftrl_update")
class FtrlUpdate(_UpdateOperator):
    """FTRL-Proximal step; ``z`` and ``n`` are updated in place (MXNet's ``ftrl_update``).  A
    row_sparse gradient updates only its rows when the weight is row_sparse too."""

    sparse_storage = "preserve"
    lazy_rows_when = "row_sparse_weight"

    states = ("z", "n")
    lr = Attr(Float, required=True)
    lamda1 = Attr(Float, default=0.01)
    beta = Attr(Float, default=1.0)
    wd = Attr(Float, default=0.0)
    rescale_grad = Attr(Float, default=1.0)
    clip_gradient = Attr(Float, default=-1.0)

    def update(self, weight, grad, z, n):
        grad, clip = _gradient_and_bound(grad, self.clip_gradient)
        ftrl_step(weight, grad, z, n, lr=self.lr, wd=self.wd, lamda1=self.lamda1, beta=self.beta,
                  rescale_grad=self.rescale_grad, clip_gradient=clip)


@register("_sparse_adagrad_update")
class SparseAdaGradUpdate(_UpdateOperator):
    """AdaGrad step with a row_sparse ``grad`` (MXNet's ``mx.nd.sparse.adagrad_update``):
    ``history += g**2``, ``weight -= lr * g / sqrt(history + epsilon)`` with
    ``g = clip(rescale_grad * grad, clip_gradient)``, on the rows the gradient stores only;
    ``history`` is updated in place.  As in MXNet the gradient must be row_sparse and ``wd``
    must be 0 (MXNetError otherwise)."""

    states = ("history",)
    sparse_storage = "preserve"
    lazy_rows_when = "always"
    lr = Attr(Float, required=True)
    epsilon = Attr(Float, default=1e-7)
    wd = Attr(Float, default=0.0)
    rescale_grad = Attr(Float, default=1.0)
    clip_gradient = Attr(Float, default=-1.0)

    def validate(self):
        if self.wd != 0:
            raise self.error(f"weight decay is not supported (as in MXNet): wd must be 0, got {self.wd}")

    def forward(self, is_train, inputs, aux):
        stypes = self.input_storage or ["default"] * len(inputs)
        if stypes[1] != "row_sparse":
            raise self.error(f"argument 'grad' must be a row_sparse array, got storage type {stypes[1]!r} "
                             f"(mx.optimizer.AdaGrad updates dense gradients)")
        return super().forward(is_train, inputs, aux)

    def update(self, weight, grad, history):
        grad, clip = _gradient_and_bound(grad, self.clip_gradient)
        # adagrad_step clips whenever a bound is given (the optimizer class's convention)
        adagrad_step(weight, grad, history, lr=self.lr, wd=0.0, eps=self.epsilon,
                     rescale_grad=self.rescale_grad, clip_gradient=clip if clip >= 0 else None)


# -- LAMB, in MXNet's two phases -------------------------------------------------------------------
@register("lamb_update_phase1")
class LAMBUpdatePhase1(_UpdateOperator):
    """First LAMB phase: updates ``mean`` and ``var`` in place and returns the raw update
    ``mean_hat / (sqrt(var_hat) + epsilon) + wd * weight`` (bias-corrected at step ``t`` when
    ``bias_correction``), of the weight's shape (MXNet's ``lamb_update_phase1``).  The weight is
    not changed; ``lamb_update_phase2`` applies the update with the trust ratio."""

    states = ("mean", "var")
    beta1 = Attr(Float, default=0.9)
    beta2 = Attr(Float, default=0.999)
    epsilon = Attr(Float, default=1e-6)
    t = Attr(Int, required=True)
    bias_correction = Attr(Bool, default=True)
    wd = Attr(Float, required=True)
    rescale_grad = Attr(Float, default=1.0)
    clip_gradient = Attr(Float, default=-1.0)

    def forward(self, is_train, inputs, aux):
        weight, grad, mean, var = inputs
        with torch.no_grad():
            grad, clip = _gradient_and_bound(grad.detach().to(weight.dtype), self.clip_gradient)
            g = _kernel_clip(grad * self.rescale_grad, clip)
            mean.mul_(self.beta1).add_(_one_minus(self.beta1, weight) * g)
            var.mul_(self.beta2).add_(_one_minus(self.beta2, weight) * g * g)
            if self.bias_correction:
                mean_hat = mean / _one_minus(_power(self.beta1, self.t, weight), weight)
                var_hat = var / _one_minus(_power(self.beta2, self.t, weight), weight)
            else:
                mean_hat, var_hat = mean, var
            return [mean_hat / (var_hat.sqrt() + self.epsilon) + self.wd * weight.detach()]


@register("lamb_update_phase2")
class LAMBUpdatePhase2(Operator):
    """Second LAMB phase: ``weight - lr * ratio * g`` with ``ratio = r1 / r2`` (1 when either is
    0); ``r1`` (the weight norm, shape ``(1,)``) is first raised to ``lower_bound`` and lowered to
    ``upper_bound`` when those are >= 0; ``r2`` is the update's norm, shape ``(1,)`` (MXNet's
    ``lamb_update_phase2``)."""

    lr = Attr(Float, required=True)
    lower_bound = Attr(Float, default=-1.0)
    upper_bound = Attr(Float, default=-1.0)

    def arguments(self):
        return ["weight", "g", "r1", "r2"]

    def infer_shape(self, in_shapes, out_shapes):
        where = f"Operator {self.name}"
        shape = merge_shape(in_shapes[0], in_shapes[1], where)
        shape = merge_shape(shape, out_shapes[0], where)
        return [shape, shape, merge_shape(in_shapes[2], (1,), f"{where} input 'r1'"),
                merge_shape(in_shapes[3], (1,), f"{where} input 'r2'")], [shape], []

    def forward(self, is_train, inputs, aux):
        weight, g, r1, r2 = (tensor.detach() for tensor in inputs)
        with torch.no_grad():
            if self.lower_bound >= 0:
                r1 = r1.clamp(min=self.lower_bound)
            if self.upper_bound >= 0:
                r1 = r1.clamp(max=self.upper_bound)
            ratio = torch.where((r1 > 0) & (r2 > 0), r1 / r2, torch.ones_like(r1))
            return [weight - (self.lr * ratio).to(weight.dtype) * g.to(weight.dtype)]


@register("mp_lamb_update_phase1")
class MultiPrecisionLAMBUpdatePhase1(LAMBUpdatePhase1):
    """``lamb_update_phase1`` on the float32 master copy ``weight32`` (MXNet's
    ``mp_lamb_update_phase1``): ``weight`` and ``grad`` in the weight's dtype (float16), ``mean``,
    ``var`` and ``weight32`` float32; ``mean`` and ``var`` are updated in place, ``weight32`` is
    only read (its ``wd`` term); returns the float32 update ``g``."""

    states = ("mean", "var", "weight32")

    def infer_type(self, in_types):
        weight = in_types[0] if in_types[0] is not None else in_types[1]
        return [weight, weight, _FLOAT32, _FLOAT32, _FLOAT32], [_FLOAT32], []

    def forward(self, is_train, inputs, aux):
        weight, grad, mean, var, master = inputs
        if master.dtype != torch.float32:
            raise self.error(f"input 'weight32' must be float32, got {master.dtype}")
        return super().forward(is_train, [master, grad.float(), mean, var], aux)


@register("mp_lamb_update_phase2")
class MultiPrecisionLAMBUpdatePhase2(LAMBUpdatePhase2):
    """``lamb_update_phase2`` from the float32 master copy (MXNet's ``mp_lamb_update_phase2``):
    returns ``weight32 - lr * ratio * g`` cast to ``weight``'s dtype.  As in MXNet 1.9.1,
    ``weight32`` itself is not updated (the caller copies the result back)."""

    def arguments(self):
        return ["weight", "g", "r1", "r2", "weight32"]

    def infer_shape(self, in_shapes, out_shapes):
        inputs, outputs, aux = super().infer_shape(in_shapes[:4], out_shapes)
        master = merge_shape(in_shapes[4], inputs[0], f"Operator {self.name} input 'weight32'")
        return inputs + [master], outputs, aux

    def infer_type(self, in_types):
        weight = in_types[0]
        return [weight, _FLOAT32, _FLOAT32, _FLOAT32, _FLOAT32], [weight], []

    def forward(self, is_train, inputs, aux):
        weight, g, r1, r2, master = inputs
        if master.dtype != torch.float32:
            raise self.error(f"input 'weight32' must be float32, got {master.dtype}")
        return [super().forward(is_train, [master, g, r1, r2], aux)[0].to(weight.dtype)]


def infer_group_shapes(op, in_shapes, out_shapes, size, count, label):
    """Shapes of a multi-tensor update: ``count`` groups of ``size`` inputs (a weight, its
    gradient and states), all of one shape within a group, one output per group; returns
    ``(input shapes, output shapes)`` for the grouped inputs (MXNetError naming the group)."""
    shapes_in, shapes_out = [], []
    for index in range(count):
        shape = out_shapes[index]
        for item in in_shapes[index * size:(index + 1) * size]:
            shape = merge_shape(shape, item, f"Operator {op.name} {label} {index}")
        shapes_in += [shape] * size
        shapes_out.append(shape)
    return shapes_in, shapes_out


# -- multi-tensor SGD ------------------------------------------------------------------------------
class _MultiSGDOperator(Operator):
    """Base of ``multi_*sgd*_update``: ``num_weights`` groups of inputs, each ``weight``, ``grad``
    then the group's states (``group_states``), all of one shape within a group; one output per
    weight.  ``lrs`` and ``wds`` give each weight's learning rate and weight decay."""

    group_states = ()
    multi_precision = False
    positional_order = ("lrs", "wds", "momentum", "rescale_grad", "clip_gradient", "num_weights")

    lrs = Attr(FloatTuple, required=True)
    wds = Attr(FloatTuple, required=True)
    rescale_grad = Attr(Float, default=1.0)
    clip_gradient = Attr(Float, default=-1.0)
    num_weights = Attr(Int, default=1)

    def validate(self):
        if self.num_weights < 1:
            raise self.error(f"num_weights must be positive, got {self.num_weights}")
        for name in ("lrs", "wds"):
            values = getattr(self, name)
            if len(values) != self.num_weights:
                raise self.error(f"attribute {name!r} must have num_weights={self.num_weights} values, "
                                 f"got {len(values)}: {tuple(values)}")

    def _group_names(self):
        return ["weight", "grad"] + list(self.group_states)

    def arguments(self):
        return [f"{name}_{index}" for index in range(self.num_weights) for name in self._group_names()]

    def outputs(self):
        return [f"output{index}" for index in range(self.num_weights)]

    def infer_shape(self, in_shapes, out_shapes):
        shapes_in, shapes_out = infer_group_shapes(self, in_shapes, out_shapes, len(self._group_names()),
                                                   self.num_weights, "weight")
        return shapes_in, shapes_out, []

    def infer_type(self, in_types):
        size = len(self._group_names())
        types_in, types_out = [], []
        for index in range(self.num_weights):
            group = in_types[index * size:(index + 1) * size]
            weight = group[0] if group[0] is not None else group[1]
            if self.multi_precision:
                types_in += [weight, weight] + [_FLOAT32] * len(self.group_states)
            else:
                types_in += [weight] * size
            types_out.append(weight)
        return types_in, types_out, []

    def forward(self, is_train, inputs, aux):
        size = len(self._group_names())
        momentum = getattr(self, "momentum", 0.0)
        uses_momentum = "mom" in self.group_states
        results = []
        with torch.no_grad():
            for index in range(self.num_weights):
                weight, grad, *states = inputs[index * size:(index + 1) * size]
                grad, clip = _gradient_and_bound(grad.detach(), self.clip_gradient)
                if self.multi_precision:
                    target, grad = states[-1], grad.float()
                else:
                    target = weight.detach().clone()
                sgd_step(target, grad, states[0] if uses_momentum else None, lr=self.lrs[index],
                         wd=self.wds[index], momentum=momentum, rescale_grad=self.rescale_grad,
                         clip_gradient=clip)
                results.append(target.to(weight.dtype) if self.multi_precision else target)
        return results


@register("multi_sgd_update")
class MultiSGDUpdate(_MultiSGDOperator):
    """``sgd_update`` on ``num_weights`` weights at once; inputs ``weight_0, grad_0, weight_1,
    grad_1, ...`` (MXNet's ``multi_sgd_update``)."""

    positional_order = ("lrs", "wds", "rescale_grad", "clip_gradient", "num_weights")


@register("multi_sgd_mom_update")
class MultiSGDMomentumUpdate(_MultiSGDOperator):
    """``sgd_mom_update`` on ``num_weights`` weights; inputs ``weight_i, grad_i, mom_i`` per weight,
    the momenta updated in place (MXNet's ``multi_sgd_mom_update``)."""

    group_states = ("mom",)
    momentum = Attr(Float, default=0.0)


@register("multi_mp_sgd_update")
class MultiMultiPrecisionSGDUpdate(_MultiSGDOperator):
    """``mp_sgd_update`` on ``num_weights`` weights; inputs ``weight_i, grad_i, weight32_i`` per
    weight, the float32 master copies updated in place (MXNet's ``multi_mp_sgd_update``)."""

    group_states = ("weight32",)
    multi_precision = True
    positional_order = ("lrs", "wds", "rescale_grad", "clip_gradient", "num_weights")


@register("multi_mp_sgd_mom_update")
class MultiMultiPrecisionSGDMomentumUpdate(_MultiSGDOperator):
    """``mp_sgd_mom_update`` on ``num_weights`` weights; inputs ``weight_i, grad_i, mom_i,
    weight32_i`` per weight, momenta and master copies updated in place (MXNet's
    ``multi_mp_sgd_mom_update``)."""

    group_states = ("mom", "weight32")
    multi_precision = True
    momentum = Attr(Float, default=0.0)
