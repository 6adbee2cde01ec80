"""The Python-level functions of ``mx.sym.contrib`` (MXNet 1.9.1's ``symbol/contrib.py``) beside
the generated ``_contrib_*`` operators: ``rand_zipfian`` and the AdamW front ends, which accept
``rescale_grad`` as a number (made a ``(1,)`` constant) or a Symbol."""
from __future__ import annotations

import math

from ..attribute import AttrScope  # noqa: F401  (MXNet's module imported it)
from ..base import SymbolHandle, check_call  # noqa: F401  (likewise)
from . import samplers as _samplers
from .functions import full
from .symbol import Symbol, create

__all__ = ["rand_zipfian", "adamw_update", "mp_adamw_update", "uniform", "AttrScope", "Symbol", "SymbolHandle",
           "check_call"]


def _create(op_name, *args, **kwargs):
    return create(op_name, *args, **kwargs)


def uniform(*args, **kwargs):
    """``mx.sym.random.uniform`` (MXNet's ``mx.sym.contrib`` imported it)."""
    return _samplers.uniform(*args, **kwargs)


def rand_zipfian(true_classes, num_sampled, range_max):
    """The symbolic form of ``mx.nd.contrib.rand_zipfian``: ``num_sampled`` int64 class ids in
    ``[0, range_max)`` drawn log-uniformly, and the expected counts (float64) of
    ``true_classes`` and of the samples among ``num_sampled`` draws, as three Symbols."""
    log_range = math.log(range_max + 1)
    draws = uniform(low=0, high=log_range, shape=(num_sampled,), dtype="float64")
    sampled = _create("Cast", _create("_minus_scalar", _create("exp", draws), scalar=1.0), dtype="int64")
    sampled = _create("_mod_scalar", sampled, scalar=float(range_max))

    def expected_count(classes):
        classes = _create("Cast", classes, dtype="float64")
        ratio = _create("elemwise_div", _create("_plus_scalar", classes, scalar=2.0),
                        _create("_plus_scalar", classes, scalar=1.0))
        return _create("_mul_scalar", _create("log", ratio), scalar=num_sampled / log_range)
    return sampled, expected_count(true_classes), expected_count(sampled)


def _rescale_symbol(rescale_grad):
    return rescale_grad if isinstance(rescale_grad, Symbol) else full(shape=(1,), val=rescale_grad)


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0,
                 clip_gradient=-1, out=None, name=None, **kwargs):
    """A ``_adamw_update`` node; ``rescale_grad`` a number or a Symbol of shape ``(1,)``."""
    return _create("_adamw_update", weight=weight, grad=grad, mean=mean, var=var,
                   rescale_grad=_rescale_symbol(rescale_grad), lr=lr, eta=eta, beta1=beta1, beta2=beta2,
                   epsilon=epsilon, wd=wd, clip_gradient=clip_gradient, name=name, **kwargs)


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
                    epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """A ``_mp_adamw_update`` node; ``rescale_grad`` a number or a Symbol of shape ``(1,)``."""
    return _create("_mp_adamw_update", weight=weight, grad=grad, mean=mean, var=var, weight32=weight32,
                   rescale_grad=_rescale_symbol(rescale_grad), lr=lr, eta=eta, beta1=beta1, beta2=beta2,
                   epsilon=epsilon, wd=wd, clip_gradient=clip_gradient, name=name, **kwargs)
