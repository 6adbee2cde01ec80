"""The metric registry: ``register``, ``alias`` and ``create`` (names, JSON specs, config
dicts, callables and lists to metrics), and the slots ``wraps_specs`` fills with the classes
that ``create`` makes of a list (``CompositeEvalMetric``) and of a function (``CustomMetric``)."""
from __future__ import annotations

import json
import warnings

from ..base import MXNetAssertionError, MXNetError, string_types
from ..registry import alias_decorator
from .base import EvalMetric

__all__ = ["register", "alias", "create"]


_REGISTRY = {}


def register(klass, name=None):
    """Register an EvalMetric subclass for ``create`` under ``name`` (default: the class name), lower-cased.

    Raises MXNetError when ``klass`` is not an EvalMetric subclass; warns when
    it replaces a registered class.
    """
    if not (isinstance(klass, type) and issubclass(klass, EvalMetric)):
        raise MXNetError(f"metric.register: can only register subclasses of EvalMetric, got {klass!r}")
    key = (klass.__name__ if name is None else name).lower()
    if key in _REGISTRY and _REGISTRY[key] is not klass:
        warnings.warn(f"metric {klass.__module__}.{klass.__name__} registered with name {key!r} replaces "
                      f"{_REGISTRY[key].__module__}.{_REGISTRY[key].__name__}", UserWarning, stacklevel=2)
    _REGISTRY[key] = klass
    return klass


alias = alias_decorator(register, "Class decorator registering the class under each of ``aliases``.")


# ``create`` wraps a list of specs in a composite metric and a function ``feval(label, pred)``
# in a custom metric.  Those classes live above this module (composite.py, custom.py) and
# register themselves here with ``@wraps_specs('list')`` / ``@wraps_specs('function')``.
_SPEC_WRAPPERS = {}


def wraps_specs(kind):
    """Class decorator: ``create`` builds the decorated class for a ``kind`` of spec, 'list'
    (``klass()`` then ``add`` of each created child) or 'function' (``klass(feval, *args,
    **kwargs)``)."""
    if kind not in ("list", "function"):
        raise MXNetError(f"metric.wraps_specs: kind must be 'list' or 'function', got {kind!r}")

    def decorate(klass):
        _SPEC_WRAPPERS[kind] = klass
        return klass
    return decorate


def _spec_wrapper(kind):
    try:
        return _SPEC_WRAPPERS[kind]
    except KeyError:
        raise MXNetError(f"metric.create: no metric class handles a {kind} spec (import mxtorch.metric)") from None


def _create_registered(metric, *args, **kwargs):
    if isinstance(metric, EvalMetric):
        if args or kwargs:
            raise MXNetError(f"metric.create: {metric.name!r} is already a metric instance; "
                             f"extra arguments {args or ''}{kwargs or ''} are invalid")
        return metric
    if isinstance(metric, dict):
        if args:
            raise MXNetError("metric.create: a config dict takes no positional arguments")
        config = dict(metric)
        config.update(kwargs)
        if "metric" not in config:
            raise MXNetError(f"metric.create: a config dict needs a 'metric' entry, got keys {sorted(config)}")
        return create(config.pop("metric"), **config)
    if not isinstance(metric, string_types):
        raise MXNetError(f"metric.create: metric must be a name, a callable, a list, a dict or an EvalMetric, "
                         f"got {type(metric).__name__}")
    text = metric.strip()
    if text.startswith("["):
        if args or kwargs:
            raise MXNetError("metric.create: a JSON '[name, kwargs]' spec takes no further arguments")
        name, config = json.loads(text)
        return create(name, **config)
    if text.startswith("{"):
        if args or kwargs:
            raise MXNetError("metric.create: a JSON config takes no further arguments")
        return create(json.loads(text))
    key = text.lower()
    if key not in _REGISTRY:
        raise MXNetAssertionError(f"metric.create: unknown metric {metric!r}; valid names are {sorted(_REGISTRY)}")
    return _REGISTRY[key](*args, **kwargs)


def create(metric, *args, **kwargs):
    """A metric from a description (MXNet's ``mx.metric.create``).

    ``metric`` may be a registered name or alias (case-insensitive:
    ``'acc'``, ``'top_k_accuracy'``, ``'ce'``, ``'nll_loss'``, ``'f1'``,
    ``'mcc'``, ``'mae'``, ``'mse'``, ``'rmse'``, ``'perplexity'``,
    ``'pearsonr'``, ``'pcc'``, ``'loss'``, ...), a JSON string, a config dict
    with a ``'metric'`` entry, an EvalMetric instance (returned as is), a
    function ``feval(label, pred)`` (wrapped in :class:`CustomMetric`), an
    EvalMetric subclass (instantiated), or a list of any of these (a
    :class:`CompositeEvalMetric`).  ``args`` / ``kwargs`` go to the
    constructor.

    Raises MXNetError for an unknown name (listing the valid ones) or
    arguments given with an instance.
    """
    if isinstance(metric, type) and issubclass(metric, EvalMetric):
        return metric(*args, **kwargs)
    if callable(metric) and not isinstance(metric, EvalMetric):
        return _spec_wrapper("function")(metric, *args, **kwargs)
    if isinstance(metric, list):
        composite = _spec_wrapper("list")()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    return _create_registered(metric, *args, **kwargs)
