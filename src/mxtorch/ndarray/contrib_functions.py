"""The Python-level functions of ``mx.nd.contrib`` (MXNet 1.9.1's ``ndarray/contrib.py``) beside
the generated ``_contrib_*`` operators: ``rand_zipfian`` and the AdamW / LAMB front ends, which
take lists of arrays and a ``rescale_grad`` number or array and call the registered
``_adamw_update`` ... ``_multi_mp_lamb_update`` operators."""
from __future__ import annotations

import math

from ..context import current_context  # noqa: F401  (MXNet's module imported it)
from ..random import uniform  # noqa: F401  (mx.nd.contrib.uniform is mx.nd.random.uniform, as in MXNet)
from .creation import full
from .ndarray import NDArray, _call

__all__ = ["rand_zipfian", "adamw_update", "mp_adamw_update", "multi_adamw_update", "multi_mp_adamw_update",
           "multi_lamb_update", "multi_mp_lamb_update", "uniform", "current_context"]


def _operator(name):
    return lambda *args, **kwargs: _call(name, *args, **kwargs)


def rand_zipfian(true_classes, num_sampled, range_max, ctx=None):
    """Draw ``num_sampled`` class ids in ``[0, range_max)`` from the approximately Zipfian
    (log-uniform) distribution ``P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)``, with
    replacement, as MXNet's candidate sampler.

    Returns ``(sampled_classes, expected_count_true, expected_count_sampled)``: the int64 ids,
    shape ``(num_sampled,)``; and for ``true_classes`` and for the samples the expected number
    of times each appears among ``num_sampled`` draws (``num_sampled * P(k)``, float64).
    ``ctx`` defaults to the current context."""
    ctx = ctx if ctx is not None else current_context()
    log_range = math.log(range_max + 1)
    draws = uniform(0, log_range, shape=(num_sampled,), dtype="float64", ctx=ctx)
    sampled = (draws.exp() - 1).astype("int64") % range_max
    true = true_classes.as_in_context(ctx).astype("float64")
    expected_true = ((true + 2.0) / (true + 1.0)).log() / log_range * num_sampled
    sampled_float = sampled.astype("float64")
    expected_sampled = ((sampled_float + 2.0) / (sampled_float + 1.0)).log() / log_range * num_sampled
    return sampled, expected_true, expected_sampled


def _rescale_array(rescale_grad, ctx):
    """``rescale_grad`` as the ``(1,)`` array the AdamW operators read (a number is wrapped)."""
    if isinstance(rescale_grad, NDArray):
        return rescale_grad.as_in_context(ctx)
    return full((1,), rescale_grad, ctx=ctx)


def _get_rescale_grad(rescale_grad, ctx=None):
    """MXNet's name of ``_rescale_array``: ``rescale_grad`` as a ``(1,)`` array on ``ctx``
    (default cpu)."""
    from ..context import cpu
    return _rescale_array(rescale_grad, cpu() if ctx is None else ctx)


def _interleave(*lists):
    return [array for group in zip(*lists) for array in group]


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0,
                 clip_gradient=-1, out=None, name=None, **kwargs):
    """AdamW step (operator ``_adamw_update``); ``rescale_grad`` a number or a ``(1,)`` array.
    The update is skipped when it is NaN, infinite or 0."""
    return _operator("_adamw_update")(weight, grad, mean, var, _rescale_array(rescale_grad, weight.context), lr=lr,
                                      eta=eta, beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd,
                                      clip_gradient=clip_gradient, out=out, **kwargs)


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
                    epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """``adamw_update`` on the float32 master copy ``weight32`` (operator ``_mp_adamw_update``)."""
    return _operator("_mp_adamw_update")(weight, grad, mean, var, weight32,
                                         _rescale_array(rescale_grad, weight.context), lr=lr, eta=eta, beta1=beta1,
                                         beta2=beta2, epsilon=epsilon, wd=wd, clip_gradient=clip_gradient, out=out,
                                         **kwargs)


def multi_adamw_update(weights, grads, mean, var, rescale_grad, lrs, wds, etas, out=None, name=None, size=0,
                       **kwargs):
    """AdamW on lists of weights, gradients, means and variances (operator ``_multi_adamw_update``);
    ``lrs``, ``wds``, ``etas`` one value per weight; ``size`` defaults to ``len(weights)``."""
    arrays = _interleave(weights, grads, mean, var) + [_rescale_array(rescale_grad, weights[0].context)]
    return _operator("_multi_adamw_update")(*arrays, num_weights=size or len(weights), lrs=lrs, wds=wds, etas=etas,
                                            out=out, **kwargs)


def multi_mp_adamw_update(weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas, out=None, name=None,
                          size=0, **kwargs):
    """``multi_adamw_update`` on float32 master copies ``weights32`` (``_multi_mp_adamw_update``)."""
    arrays = _interleave(weights, grads, mean, var, weights32) + [_rescale_array(rescale_grad, weights[0].context)]
    return _operator("_multi_mp_adamw_update")(*arrays, num_weights=size or len(weights), lrs=lrs, wds=wds,
                                               etas=etas, out=out, **kwargs)


def multi_lamb_update(weights, grads, mean, var, step_count, lrs, wds, out=None, num_tensors=0, **kwargs):
    """LAMB on lists of weights, gradients, means and variances (operator ``_multi_lamb_update``);
    ``step_count``, ``lrs``, ``wds`` one value per weight."""
    return _operator("_multi_lamb_update")(*_interleave(weights, grads, mean, var),
                                           num_tensors=num_tensors or len(weights), step_count=step_count,
                                           learning_rates=lrs, wds=wds, out=out, **kwargs)


def multi_mp_lamb_update(weights, grads, mean, var, weights32, step_count, lrs, wds, out=None, num_tensors=0,
                         **kwargs):
    """``multi_lamb_update`` on float32 master copies ``weights32`` (``_multi_mp_lamb_update``)."""
    return _operator("_multi_mp_lamb_update")(*_interleave(weights, grads, mean, var, weights32),
                                              num_tensors=num_tensors or len(weights), step_count=step_count,
                                              learning_rates=lrs, wds=wds, out=out, **kwargs)
