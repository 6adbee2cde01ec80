"""Gluon's ``Block`` (MXNet 1.9.1's ``gluon.Block``) and its naming scope.

A :class:`Block` owns Parameters (registered by attribute assignment) and child Blocks, and
names them as MXNet 1.9.1 did: a Block created outside any ``name_scope`` gets the prefix
``<lower-cased class name><n>_`` from the global name counter (``dense0_``), one created
inside a parent's ``name_scope`` the parent's prefix plus a per-parent counter
(``hybridsequential0_dense1_``); Parameters are ``<prefix><name>`` (``dense0_weight``), so
MXNet-trained ``.params`` files load.
"""
from __future__ import annotations

import threading
import warnings
from collections import OrderedDict, defaultdict

from .. import initializer
from .. import name as _name
from .. import ndarray
from ..base import MXNetAssertionError, MXNetError, MXNetValueError
from .parameter import Parameter, ParameterDict, _indent, _select_pattern, load_named_arrays
from .summary import print_summary
from ..util import is_np_array
from .utils import HookHandle, _check_all_np_ndarrays

__all__ = ["Block"]


class _BlockScope:
    """The naming scope of a Block: inside ``with block.name_scope():`` child Blocks get
    per-parent counters and operator names get the Block's prefix."""

    _current = threading.local()

    def __init__(self, block):
        self._block = block
        self._counter = {}
        self._old_scope = None
        self._name_scope = None

    @staticmethod
    def create(prefix, params, hint):
        """The prefix and ParameterDict of a new Block of kind ``hint``."""
        current = getattr(_BlockScope._current, "value", None)
        if current is None:
            if prefix is None:
                prefix = _name.NameManager.current.get(None, hint) + "_"
            if params is None:
                params = ParameterDict(prefix)
            else:
                params = ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = f"{hint}{count}_"
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        self._name_scope = _name.Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, *exc):
        if self._block._empty_prefix:
            return
        self._name_scope.__exit__(*exc)
        self._name_scope = None
        _BlockScope._current.value = self._old_scope
def _brief(names, limit=7):
    names = list(names)
    if len(names) > limit:
        names = names[:limit // 2] + ["..."] + names[-limit // 2:]
    return ", ".join(f"'{n}'" if n != "..." else n for n in names)

class Block:
    """The base class of all layers and models (MXNet's ``gluon.Block``).

    ``prefix``: the name prefix of this Block's Parameters and children (automatic when
    None, see the module docstring); ``params``: a ParameterDict whose Parameters are shared
    (``get`` returns them instead of creating new ones).  Subclasses create children and
    Parameters inside ``with self.name_scope():`` and define ``forward``.
    """

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = _BlockScope(self)
        self._children = OrderedDict()
        self._reg_params = {}
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()

    def __repr__(self):
        lines = [f"  ({key}): {_indent(repr(block), 2)}" for key, block in self._children.items()
                 if isinstance(block, Block)]
        return "{name}(\n{body}\n)".format(name=type(self).__name__, body="\n".join(lines))

    def __setattr__(self, name, value):
        """Assigning a Block registers it as a child, a Parameter registers it by name."""
        if hasattr(self, name):
            existing = getattr(self, name)
            if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
                raise TypeError(f"Changing attribute type for {name} from {type(existing)} to {type(value)} "
                                f"is not allowed.")
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            if name in self.__dict__.get("_reg_params", {}):
                raise MXNetError(f"Overriding Parameter attribute {name} is not allowed. If you want to share "
                                 f"parameters between blocks, please set 'params' at Block construction "
                                 f"instead.")
            self._reg_params[name] = value
        super().__setattr__(name, value)

    def _check_container_with_block(self):
        children = set(self._children.values())

        def has_unregistered(data):
            if isinstance(data, (list, tuple)):
                return any(has_unregistered(item) for item in data)
            if isinstance(data, dict):
                return any(has_unregistered(item) for item in data.values())
            return isinstance(data, Block) and data not in children
        for key, value in self.__dict__.items():
            if isinstance(value, (list, tuple, dict)) and not (key.startswith("__") or key == "_children"):
                if has_unregistered(value):
                    warnings.warn(f'"{type(self).__name__}.{key}" is an unregistered container with Blocks. '
                                  f"Note that Blocks inside the list, tuple or dict will not be registered "
                                  f"automatically. Make sure to register them using register_child() or "
                                  f"switching to nn.Sequential/nn.HybridSequential instead. ", stacklevel=3)

    def _alias(self):
        return type(self).__name__.lower()

    @property
    def prefix(self):
        """The prefix of this Block's names (``dense0_``)."""
        return self._prefix

    @property
    def name(self):
        """The prefix without its trailing underscore (``dense0``)."""
        return self._name

    def name_scope(self):
        """A ``with`` scope in which child Blocks and operators are named under this Block."""
        return self._scope

    @property
    def params(self):
        """This Block's own ParameterDict (not its children's; see ``collect_params``)."""
        return self._params

    def collect_params(self, select=None):
        """A ParameterDict of this Block's and all descendants' Parameters; ``select`` is a
        regular expression the names must match (``'.*weight|.*bias'``)."""
        self._check_container_with_block()
        result = ParameterDict(self._params.prefix)
        if not select:
            result.update(self.params)
        else:
            pattern = _select_pattern(select, f"collect_params of {self.name}")
            result.update({name: value for name, value in self.params.items() if pattern.match(name)})
        for child in self._children.values():
            result.update(child.collect_params(select=select))
        return result

    def _collect_params_with_prefix(self, prefix=""):
        if prefix:
            prefix += "."
        result = {prefix + key: value for key, value in self._reg_params.items()}
        for name, child in self._children.items():
            result.update(child._collect_params_with_prefix(prefix + name))
        return result

    def save_parameters(self, filename, deduplicate=False):
        """Write the values to ``filename`` (MXNet's ``.params`` format) keyed by attribute
        path (``0.weight``, ``features.3.bias``); ``deduplicate`` writes a shared Parameter
        once."""
        params = self._collect_params_with_prefix()
        if deduplicate:
            reverse = {value: key for key, value in params.items()}
            params = {key: value for value, key in reverse.items()}
        ndarray.save(filename, {key: value._reduce() for key, value in params.items()})

    def save_params(self, filename):
        """Deprecated: save with full Parameter names minus this Block's prefix."""
        warnings.warn("save_params is deprecated. Please use save_parameters. Note that if you want load "
                      "from SymbolBlock later, please use export instead. For details, see "
                      "https://mxnet.apache.org/tutorials/gluon/save_load_params.html")
        try:
            self.collect_params().save(filename, strip_prefix=self.prefix)
        except MXNetError as error:
            raise MXNetError(f"{error}\nsave_params is deprecated. Using save_parameters may resolve this "
                             f"error.") from None

    def load_parameters(self, filename, ctx=None, allow_missing=False, ignore_extra=False, cast_dtype=False,
                        dtype_source="current"):
        """Read values written by ``save_parameters`` (or by MXNet).  Files keyed by full
        Parameter names (``save_params`` / ``export``) are read by name with this Block's
        prefix.  Missing or extra names raise MXNetError unless ``allow_missing`` /
        ``ignore_extra``; a shape mismatch names the Parameter and both shapes."""
        loaded = load_named_arrays(filename, "load_parameters")
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return
        if not any("." in key for key in loaded):
            del loaded
            self.collect_params().load(filename, ctx, allow_missing, ignore_extra, self.prefix,
                                       cast_dtype=cast_dtype, dtype_source=dtype_source)
            return
        if not allow_missing:
            names_of = defaultdict(list)
            for key, value in params.items():
                names_of[value].append(key)
            for key, value in params.items():
                if not any(name in loaded for name in names_of[value]):
                    raise MXNetAssertionError(f"Parameter '{key}' is missing in file '{filename}', which contains "
                                     f"parameters: {_brief(loaded)}. Set allow_missing=True to ignore missing "
                                     f"parameters.")
        for key in loaded:
            if not ignore_extra and key not in params:
                raise MXNetValueError(f"Parameter '{key}' loaded from file '{filename}' is not present in "
                                 f"ParameterDict, which contains parameters {_brief(params)}. Set "
                                 f"ignore_extra=True to ignore. ")
            if key in params:
                params[key]._load_init(loaded[key], ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)

    def load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        """Deprecated name of ``load_parameters``."""
        warnings.warn("load_params is deprecated. Please use load_parameters.")
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    def load_dict(self, param_dict, ctx=None, allow_missing=False, ignore_extra=False, cast_dtype=False,
                  dtype_source="current"):
        """Load from a ``{attribute path or full name: NDArray}`` dict."""
        params = self._collect_params_with_prefix()
        if param_dict and not any("." in key for key in param_dict):
            self.collect_params().load_dict(param_dict, ctx, allow_missing, ignore_extra, self.prefix,
                                            cast_dtype=cast_dtype, dtype_source=dtype_source)
            return
        for key, value in params.items():
            if key not in param_dict and not allow_missing:
                raise MXNetError(f"Parameter '{key}' is missing in the dict")
        for key, value in param_dict.items():
            if key not in params:
                if not ignore_extra:
                    raise MXNetError(f"Parameter '{key}' is not present in the Block")
                continue
            params[key]._load_init(value, ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)

    def register_child(self, block, name=None):
        """Register ``block`` as a child under ``name`` (its position when None)."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_pre_hook(self, hook):
        """Call ``hook(block, inputs)`` before each forward; returns a HookHandle."""
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def register_forward_hook(self, hook):
        """Call ``hook(block, inputs, outputs)`` after each forward; returns a HookHandle."""
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def apply(self, fn):
        """Call ``fn(block)`` on every descendant, then on this Block; returns self."""
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def initialize(self, init=initializer.Uniform(), ctx=None, verbose=False, force_reinit=False):
        """Initialize every Parameter of this Block and its descendants (see
        ``Parameter.initialize``)."""
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active=True, **kwargs):
        """Hybridize the HybridBlocks among the descendants (a plain Block itself stays
        imperative)."""
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def cast(self, dtype):
        """Convert every Parameter to ``dtype``."""
        for child in self._children.values():
            child.cast(dtype)
        for param in self.params.values():
            param.cast(dtype)

    def zero_grad(self):
        self.collect_params().zero_grad()

    def reset_ctx(self, ctx):
        self.collect_params().reset_ctx(ctx)

    def __call__(self, *args):
        """Run the forward pre-hooks, ``forward(*args)``, then the forward hooks."""
        for hook in self._forward_pre_hooks.values():
            hook(self, args)
        out = self.forward(*args)
        for hook in self._forward_hooks.values():
            hook(self, args, out)
        if is_np_array():
            # MXNet 1.9.1: under NumPy array semantics a Block gives mx.np arrays (or NumPy
            # symbols) only; a classic one raises TypeError
            _check_all_np_ndarrays(out)
        return out

    def forward(self, *args):
        """The computation; subclasses override it."""
        raise NotImplementedError

    def register_op_hook(self, callback, monitor_all=False):
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    def summary(self, *inputs):
        """Print a table of each layer's output shape and Parameter count for ``inputs``."""
        print_summary(self, inputs)
