"""``mx.registry``: name -> class registries for families of configurable objects.

MXNet built its optimizer, initializer and metric factories on these helpers, and user code
uses them to make its own families: ``register = get_register_func(Base, 'thing')`` gives a
decorator registering subclasses of ``Base`` under their lower-cased class name (or a name
given), ``get_alias_func`` one registering extra names, and ``get_create_func`` a factory
``create(name_or_instance_or_config, *args, **kwargs)``.  One registry is kept per base class.
"""
from __future__ import annotations

import json
import warnings

from .base import MXNetError
# names MXNet 1.9.1's mxnet.registry had in its namespace from its ctypes binding
from .base import string_types  # noqa: E402,F401

__all__ = ["get_registry", "get_register_func", "get_alias_func", "get_create_func"]

_REGISTRY = {}


def _table(base_class):
    return _REGISTRY.setdefault(base_class, {})


def get_registry(base_class):
    """A copy of the ``{lower-case name: class}`` registry of ``base_class``."""
    return dict(_table(base_class))


def get_register_func(base_class, nickname):
    """A function ``register(klass, name=None)`` that records ``klass`` (a subclass of
    ``base_class``) under ``name.lower()`` (default: its class name) and returns it, so it
    works as a class decorator.  Re-registering a name warns (UserWarning) and replaces the
    old class; a class that is not a subclass raises MXNetError.  ``nickname`` names the
    family in messages."""
    table = _table(base_class)

    def register(klass, name=None):
        if not isinstance(klass, type) or not issubclass(klass, base_class):
            raise MXNetError(f"register: can only register subclasses of {base_class.__name__} as {nickname}, "
                             f"got {klass!r}")
        key = (name if name is not None else klass.__name__).lower()
        if key in table and table[key] is not klass:
            old = table[key]
            warnings.warn(f"New {nickname} {klass.__module__}.{klass.__name__} registered with name {key} is "
                          f"overriding existing {nickname} {old.__module__}.{old.__name__}", UserWarning,
                          stacklevel=2)
        table[key] = klass
        return klass

    register.__doc__ = f"Register a {nickname} class (subclass of {base_class.__name__}) by name."
    return register


def get_alias_func(base_class, nickname):
    """A decorator factory ``alias(*names)``: ``@alias('a', 'b')`` registers the decorated
    class under each of ``names`` too (see ``get_register_func``)."""
    return alias_decorator(get_register_func(base_class, nickname), f"Register a {nickname} class under extra names.")


def alias_decorator(register, doc=None):
    """A decorator factory ``alias(*names)`` over ``register(klass, name)``: ``@alias('a', 'b')``
    registers the decorated class under each of ``names`` and returns it; ``doc`` is its
    docstring."""
    def alias(*aliases):
        def decorate(klass):
            for name in aliases:
                register(klass, name)
            return klass
        return decorate

    alias.__doc__ = doc
    return alias


def get_create_func(base_class, nickname):
    """A factory ``create(spec, *args, **kwargs)`` for ``base_class``'s family.

    ``spec`` (first positional argument, or the keyword named ``nickname``) is an instance
    of ``base_class`` (returned as is; extra arguments are an error), a registered name
    (case-insensitive; the class is called with ``*args, **kwargs``), a dict of keyword
    arguments holding the name under ``nickname``, or the JSON text of
    ``["name", {kwargs}]`` or of such a dict.  Anything else, or an unknown name, raises
    MXNetError.
    """
    table = _table(base_class)

    def create(*args, **kwargs):
        if args:
            spec, args = args[0], args[1:]
        elif nickname in kwargs:
            spec = kwargs.pop(nickname)
        else:
            raise MXNetError(f"create: give the {nickname} to create as the first argument or as {nickname}=")
        if isinstance(spec, base_class):
            if args or kwargs:
                raise MXNetError(f"create: {nickname} is already an instance; extra arguments are invalid")
            return spec
        if isinstance(spec, dict):
            return create(**spec)
        if not isinstance(spec, str):
            raise MXNetError(f"create: {nickname} must be a str, a dict or a {base_class.__name__}, "
                             f"got {type(spec).__name__}")
        text = spec.strip()
        if text.startswith(("[", "{")):
            if args or kwargs:
                raise MXNetError(f"create: a JSON {nickname} spec takes no extra arguments")
            try:
                config = json.loads(text)
            except ValueError as error:
                raise MXNetError(f"create: invalid JSON {nickname} spec {spec!r}: {error}") from None
            if isinstance(config, list):
                if len(config) != 2 or not isinstance(config[1], dict):
                    raise MXNetError(f"create: a JSON list {nickname} spec must be [name, {{kwargs}}], got {spec!r}")
                return create(config[0], **config[1])
            return create(**config)
        key = spec.lower()
        if key not in table:
            known = ", ".join(sorted(table)) or "none"
            raise MXNetError(f"create: {spec!r} is not a registered {nickname} (registered: {known}); "
                             f"register it first")
        return table[key](*args, **kwargs)

    create.__doc__ = f"Create a {nickname} ({base_class.__name__}) from a name, a config or an instance."
    return create
