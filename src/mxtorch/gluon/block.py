"""Gluon blocks (MXNet's ``gluon.Block``, ``HybridBlock`` and ``SymbolBlock``).

A :class:`Block` owns Parameters (registered by attribute assignment) and child Blocks, and
names them as MXNet 1.9.1 did: a Block created outside any ``name_scope`` gets the prefix
``<lower-cased class name><n>_`` from the global name counter (``dense0_``), one created
inside a parent's ``name_scope`` the parent's prefix plus a per-parent counter
(``hybridsequential0_dense1_``); Parameters are ``<prefix><name>`` (``dense0_weight``), so
MXNet-trained ``.params`` files load.

A :class:`HybridBlock` runs ``hybrid_forward(F, x, ...)`` with ``F = mx.nd`` (imperative:
each call runs a registered operator through NDArray, recorded by ``mx.autograd``).  After
``hybridize()`` the first call traces ``hybrid_forward(F = mx.sym)`` into a Symbol and each
input signature (shapes, dtypes, context) is bound once through the same Executor that
``Module`` uses; later calls run that plan on the inputs' and Parameters' tensors under the
caller's autograd mode, so the numbers and the gradients are the imperative path's.
``export`` writes the traced Symbol and the values in the files ``mx.mod.Module.load`` and
MXNet 1.9.1 read.
"""
from __future__ import annotations

import copy
import re
import threading
import warnings
from collections import OrderedDict, defaultdict

import numpy as np

from .. import autograd
from .. import initializer
from .. import name as _name
from .. import ndarray
from .. import symbol
from ..base import MXNetAssertionError, MXNetError, MXNetValueError
from ..context import Context, current_context
from ..ndarray.ndarray import NDArray
from ..ndarray.serialization import STORAGE_ROW_SPARSE as _STORAGE_ROW_SPARSE
from ..symbol.symbol import Symbol
from .utils import HookHandle
from ..base import mx_real_t  # noqa: F401  (MXNet's module namespace)
from ..symbol import load_json  # noqa: F401
from ..util import is_np_array, np_array, np_shape  # noqa: F401
from ..util import flatten_nested, regroup_nested
from .parameter import DeferredInitializationError, Parameter, ParameterDict, _shape_known

__all__ = ["Block", "HybridBlock", "SymbolBlock"]


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


def _leaf_format(item):
    """The nesting format of an input or output leaf (``util.flatten_nested``): 0 for an NDArray
    or a single-output Symbol, the output count of a grouped Symbol, -1 for None."""
    if isinstance(item, NDArray):
        return 0
    if isinstance(item, Symbol):
        length = len(item.list_outputs())
        return length if length > 1 else 0
    return -1 if item is None else None


def _flatten(args, inout_str):
    """Nested lists/tuples of arrays or symbols -> a flat list and the nesting format."""
    return flatten_nested(args, _leaf_format, lambda item: MXNetValueError(
        f"HybridBlock {inout_str} must be (nested) list of Symbol or NDArray, but got {item} of type "
        f"{type(item).__name__}"))


def _leaves(args):
    """Every NDArray / Symbol inside nested lists and tuples (other values are skipped: an
    imperative HybridBlock accepts numbers among its inputs, as MXNet's did)."""
    if isinstance(args, (NDArray, Symbol)):
        return [args]
    if isinstance(args, (list, tuple)):
        return [leaf for item in args for leaf in _leaves(item)]
    return []


def _formats_agree(stored, given):
    """Whether a call's top-level input format may reuse the graph built for ``stored``: as in
    MXNet, the two may differ only by trailing ``None`` arguments (format -1) that one of them
    leaves to the default."""
    if not isinstance(stored, list) or not isinstance(given, list) or len(stored) == len(given):
        return False
    shorter, longer = (stored, given) if len(stored) < len(given) else (given, stored)
    return longer[:len(shorter)] == shorter and all(item == -1 for item in longer[len(shorter):])


def _regroup(args, fmt):
    """Undo ``_flatten``: returns (nested structure, remaining items)."""
    return regroup_nested(args, fmt, lambda item: MXNetError(
        f"HybridBlock output must be (nested) list of Symbol or NDArray, got {item}"))


def _indent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


def _common_prefix(names):
    if not names:
        return ""
    prefix = names[0]
    for name in names:
        index = 0
        while index < len(prefix) and index < len(name) and prefix[index] == name[index]:
            index += 1
        prefix = prefix[:index]
    return prefix


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
            pattern = re.compile(select)
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
        loaded = ndarray.load(filename)
        if not isinstance(loaded, dict):
            raise MXNetError(f"load_parameters: {filename} holds a list of arrays, not a name -> array dict")
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
        return out

    def forward(self, *args):
        """The computation; subclasses override it."""
        raise NotImplementedError

    def register_op_hook(self, callback, monitor_all=False):
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    def summary(self, *inputs):
        """Print a table of each layer's output shape and Parameter count for ``inputs``."""
        from .summary import print_summary
        print_summary(self, inputs)


def _brief(names, limit=7):
    names = list(names)
    if len(names) > limit:
        names = names[:limit // 2] + ["..."] + names[-limit // 2:]
    return ", ".join(f"'{n}'" if n != "..." else n for n in names)


def _operator_names(sym):
    """``{name: operator name}`` for every output of an operator node of ``sym`` and every
    input as the monitor reports it (``<node>_<input>``)."""
    from ..symbol.symbol import topological_order
    result = {}
    for node in topological_order(sym._outputs):
        if node.op is not None:
            inputs = list(node.op.arguments()) + list(node.op.auxiliary_states())
            for name in node.output_names() + [f"{node.name}_{item}" for item in inputs]:
                result[name] = node.op.name
    return result


def _stand_in(array):
    """An NDArray of ``array``'s shape, dtype and context backed by one element of memory."""
    import torch
    tensor = torch.zeros((), dtype=array._tensor.dtype, device=array._tensor.device).expand(array.shape)
    return NDArray(tensor, array.context)


class _CachedGraph:
    """A traced Symbol bound once per input signature through the Executor (the hybridized
    form of a HybridBlock; MXNet's CachedOp)."""

    def __init__(self, sym, input_names, params):
        self.symbol = sym
        self._arg_names = sym.list_arguments()
        self._aux_names = sym.list_auxiliary_states()
        self._input_names = list(input_names)
        self._params = params
        self._executors = {}
        self._callback = None

    def sources(self):
        """For each argument / aux name: ('input', index) or ('param', Parameter)."""
        index = {name: i for i, name in enumerate(self._input_names)}
        result = []
        for name in self._arg_names + self._aux_names:
            if name in index:
                result.append(("input", index[name]))
            elif name in self._params:
                result.append(("param", self._params[name]))
            else:
                raise MXNetError(f"Unknown input to HybridBlock: {name}")
        return result

    def __call__(self, inputs, ctx):
        sources = self.sources()
        arrays = [inputs[item] if kind == "input" else item.data(ctx) for kind, item in sources]
        for (kind, item), array in zip(sources, arrays):
            if kind == "input" and not isinstance(array, NDArray):
                raise MXNetError(f"HybridBlock: input {self._input_names[item]!r} must be an NDArray, got "
                                 f"{type(array).__name__}")
        key = (ctx, tuple((array.shape, np.dtype(array.dtype).name) for array in arrays))
        executor = self._executors.get(key)
        count = len(self._arg_names)
        if executor is None:
            # the graph is bound once per signature and then run on each call's tensors
            # (run_tensors): the data inputs are bound as shape-and-dtype stand-ins, so the cached
            # graph keeps no reference to (and no memory of) the arrays of the first call
            bound = [_stand_in(array) if kind == "input" else array for (kind, _), array in zip(sources, arrays)]
            executor = self.symbol.bind(ctx, dict(zip(self._arg_names, bound[:count])), grad_req="null",
                                        aux_states=dict(zip(self._aux_names, bound[count:])))
            if self._callback is not None:
                callback, monitor_all = self._callback
                operator_of = _operator_names(self.symbol)
                variables = set(self._arg_names) | set(self._aux_names)

                def hook(name, array):
                    # MXNet's CachedOp hook reports operator inputs (``<node>_<input>``) and
                    # outputs only, not the graph's variables under their own names
                    if name not in variables:
                        callback(name, operator_of.get(name, ""), array)
                executor.set_monitor_callback(hook, monitor_all)
            self._executors[key] = executor
        tensors = [array._tensor for array in arrays]
        import torch
        with torch.set_grad_enabled(autograd.is_recording()):
            outputs = executor.run_tensors(tensors[:count], tensors[count:], is_train=autograd.is_training())
        return [NDArray(tensor, ctx) for tensor in outputs]


class HybridBlock(Block):
    """A Block whose computation ``hybrid_forward(F, x, *args, **params)`` can run
    imperatively (``F`` = ``mx.nd``) or be traced into a Symbol (``F`` = ``mx.sym``).
    Parameters registered on the Block arrive as keyword arguments (NDArrays on the
    input's context, or Symbol variables).  Children must be HybridBlocks too."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._cached_graph = ()
        self._cached_op = None
        self._out_format = None
        self._in_format = None
        self._active = False
        self._flags = []
        self._callback = None

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached_op()

    def register_child(self, block, name=None):
        if not isinstance(block, HybridBlock):
            raise MXNetError(f"Children of HybridBlock must also be HybridBlock, but {block} has type "
                             f"{type(block)}. If you are using Sequential, please try HybridSequential instead.")
        super().register_child(block, name)
        self._clear_cached_op()

    def hybridize(self, active=True, backend=None, backend_opts=None, clear=True, static_alloc=False,
                  static_shape=False, **kwargs):
        """Trace into a Symbol at the next call (``active``), bound once per input signature.
        ``static_alloc`` / ``static_shape`` are accepted: every binding already keeps its plan
        for its signature.  ``backend`` (MXNet's subgraph partitioning) is not supported: a
        value other than None warns and is ignored."""
        if backend is not None:
            warnings.warn(f"hybridize: backend {backend!r} is not supported by mxtorch and is ignored",
                          stacklevel=2)
        self._active = active
        self._flags = [("static_alloc", static_alloc), ("static_shape", static_shape)] + list(kwargs.items())
        if clear:
            self._clear_cached_op()
        if active and (self._forward_hooks or self._forward_pre_hooks):
            warnings.warn(f'"{self}" is being hybridized while still having forward hook/pre-hook. If '
                          f'"{self}" is a child of HybridBlock, the hooks will not take effect.', stacklevel=2)
        super().hybridize(active, static_alloc=static_alloc, static_shape=static_shape, **kwargs)

    def cast(self, dtype):
        self._clear_cached_op()
        super().cast(dtype)

    def _clear_cached_op(self):
        self._cached_graph = ()
        self._cached_op = None

    def _get_graph(self, *args):
        if not self._cached_graph:
            flat, self._in_format = _flatten(args, "input")
            real = [item for item in flat if item is not None]
            if not real:
                raise MXNetValueError(f"All args are None and we do not support such a case. Received args={args}")
            inputs, symbol_inputs = [], []
            count = 0
            for item in flat:
                if item is None:
                    inputs.append(None)
                    continue
                variable = symbol.var(f"data{count}" if len(real) > 1 else "data")
                count += 1
                inputs.append(variable)
                symbol_inputs.append(variable)
            grouped = _regroup(inputs, self._in_format)[0]
            params = {key: value.var() for key, value in self._reg_params.items()}
            with self.name_scope():
                out = _call_hybrid_forward(self, symbol, *grouped, **params)
            out, self._out_format = _flatten(out, "output")
            self._cached_graph = symbol_inputs, symbol.Group(out)
        return self._cached_graph

    def infer_shape(self, *args):
        """Set the unknown dimensions of every Parameter from the shapes of ``args``."""
        self._infer_attrs("infer_shape", "shape", *args)

    def infer_type(self, *args):
        """Set every Parameter's dtype from the dtypes of ``args``."""
        self._infer_attrs("infer_type", "dtype", *args)

    def _infer_attrs(self, infer_fn, attr, *args):
        inputs, out = self._get_graph(*args)
        flat = [item for item in _flatten(args, "input")[0] if item is not None]
        given = {variable.name: getattr(array, attr) for variable, array in zip(inputs, flat)}
        if infer_fn == "infer_shape":
            arg_attrs, _, aux_attrs = out.infer_shape_partial(**given)
        else:
            arg_attrs, _, aux_attrs = out.infer_type(**given)
        if arg_attrs is None:
            raise MXNetError(f"{infer_fn}: cannot infer from {given}")
        values = dict(zip(out.list_arguments(), arg_attrs))
        values.update(zip(out.list_auxiliary_states(), aux_attrs))
        for param in self.collect_params().values():
            if param.name in values and values[param.name] is not None:
                setattr(param, attr, values[param.name])

    def _deferred_infer_shape(self, *args):
        try:
            self.infer_shape(*args)
        except Exception as error:
            raise MXNetValueError(f"Deferred initialization failed because shape cannot be inferred. {error}") from None

    def _build_cache(self, *args):
        inputs, out = self._get_graph(*args)
        input_names = [variable.name for variable in inputs]
        params = self.collect_params()
        expected = set(out.list_inputs())
        for name in expected:
            if name not in params and name not in input_names:
                raise MXNetError(f"Unknown input to HybridBlock: {name}")
        unused = [f"{i}-th" for i, name in enumerate(input_names) if name not in expected]
        if unused:
            warnings.warn(f"The {', '.join(unused)} input to HybridBlock is not used by any computation. "
                          f"Is this intended?", stacklevel=4)
        unused_params = [name for name in params.keys() if name not in expected]
        if unused_params:
            warnings.warn(f"Parameter {', '.join(unused_params)} is not used by any computation. "
                          f"Is this intended?", stacklevel=4)
        self._cached_op = _CachedGraph(out, input_names, {name: params[name] for name in params.keys()})
        if self._callback is not None:
            self._cached_op._callback = self._callback

    def _call_cached_op(self, *args):
        if self._cached_op is None:
            self._build_cache(*args)
        flat, fmt = _flatten(args, "input")
        if fmt != self._in_format and not _formats_agree(self._in_format, fmt):
            raise MXNetValueError("The argument structure of HybridBlock does not match the cached version. "
                                  f"Stored format = {self._in_format}, input format = {fmt}")
        flat = [item for item in flat if item is not None]
        ctx = flat[0].context
        params = [item for kind, item in self._cached_op.sources() if kind == "param"]
        if any(param._data is None for param in params):
            if any(param._data is None and not param._deferred_init for param in params):
                for param in params:
                    param.data(ctx)     # raises the not-initialized error naming the Parameter
            try:
                self._deferred_infer_shape(*args)
            except MXNetError:
                pass
            if any(param._data is None and not _shape_known(param.shape) for param in params):
                # the graph cannot infer some shape (a child sets it from its input, as the RNN
                # layers do): this first call runs imperatively, which finishes every child's
                # deferred initialization; the bound graph serves the next calls
                return self._imperative_forward(*args)
            for param in params:
                param._finish_deferred_init()
        out = self._cached_op(flat, ctx)
        return _regroup(out, self._out_format)[0]

    def forward(self, x, *args):
        """Run on NDArrays (imperatively or, once hybridized, through the bound graph) or
        compose on Symbols.  Mixing NDArrays and Symbols raises MXNetError."""
        flat = _leaves([x] + list(args))
        has_symbol = any(isinstance(item, Symbol) for item in flat)
        arrays = [item for item in flat if isinstance(item, NDArray)]
        if has_symbol and arrays:
            raise MXNetValueError("In HybridBlock, we do not support mixed NDArrays and Symbols types for the input. "
                             "Please check the type of the args.\n")
        if not has_symbol and not arrays:
            raise MXNetValueError("In HybridBlock, there must be one NDArray or one Symbol in the input. Please check "
                             "the type of the args.\n")
        if arrays:
            ctx = arrays[0].context
            if self._active:
                if len({array.context for array in arrays}) > 1:
                    raise MXNetValueError("Find multiple contexts in the input, After hybridized, the HybridBlock "
                                     "only supports one input context. You can print the ele.ctx in the input "
                                     "arguments to inspect their contexts. Find all contexts = "
                                     f"{sorted({str(a.context) for a in arrays})}")
                return self._call_cached_op(x, *args)
            return self._imperative_forward(x, *args)
        params = {key: value.var() for key, value in self._reg_params.items()}
        with self.name_scope():
            return _call_hybrid_forward(self, symbol, x, *args, **params)

    def _imperative_forward(self, x, *args):
        """``hybrid_forward(mx.nd, ...)``, finishing deferred initialization first."""
        ctx = next(item for item in _leaves([x] + list(args)) if isinstance(item, NDArray)).context
        try:
            params = {key: value.data(ctx) for key, value in self._reg_params.items()}
        except DeferredInitializationError:
            self._deferred_infer_shape(x, *args)
            for value in self.params.values():
                value._finish_deferred_init()
            params = {key: value.data(ctx) for key, value in self._reg_params.items()}
        return _call_hybrid_forward(self, ndarray, x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """The computation, written once for ``F`` = ``mx.nd`` and ``F`` = ``mx.sym``."""
        raise NotImplementedError

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Write ``path-symbol.json`` (the traced graph) and ``path-%04d.params`` (values as
        ``arg:name`` / ``aux:name``) that ``mx.mod.Module.load(path, epoch)``,
        ``SymbolBlock.imports`` and MXNet 1.9.1 read.  Needs a hybridized forward first
        (MXNetError otherwise).  Returns the two file names."""
        if not self._cached_graph:
            raise MXNetError("Please first call block.hybridize() and then run forward with this block at least "
                             "once before calling export.")
        sym = self._cached_graph[1]
        symbol_file = f"{path}-symbol.json"
        sym.save(symbol_file, remove_amp_cast=remove_amp_cast)
        arg_names = set(sym.list_arguments())
        aux_names = set(sym.list_auxiliary_states())
        arrays = {}
        for name, param in self.collect_params().items():
            if name in arg_names:
                arrays[f"arg:{name}"] = param._reduce()
            elif name in aux_names:
                arrays[f"aux:{name}"] = param._reduce()
        params_file = f"{path}-{epoch:04d}.params"
        ndarray.save(params_file, arrays)
        return symbol_file, params_file

    def register_op_hook(self, callback, monitor_all=False):
        """Call ``callback(name, NDArray)`` with the output of every operator of the
        hybridized graph."""
        self._callback = (callback, monitor_all)
        self._clear_cached_op()
        super().register_op_hook(callback, monitor_all)

    def optimize_for(self, x, *args, backend=None, **kwargs):
        """MXNet's subgraph partitioning: mxtorch runs the graph as traced; hybridizes and runs
        one forward (a backend other than None warns that it has no effect)."""
        self.hybridize(True, backend=backend, **kwargs)
        return self(x, *args)


class _MissingFunction(MXNetError, AttributeError):
    """A hybrid_forward called a function its ``F`` (``mx.nd`` or ``mx.sym``) does not have."""


def _call_hybrid_forward(block, F, *args, **params):
    """``block.hybrid_forward(F, *args, **params)``; a function that ``F`` lacks raises
    MXNetError naming the block, the front end and the function."""
    try:
        return block.hybrid_forward(F, *args, **params)
    except AttributeError as error:
        if getattr(error, "obj", None) is F and not isinstance(error, MXNetError):
            label = "mx.nd" if F is ndarray else "mx.sym"
            raise _MissingFunction(f"{type(block).__name__}.hybrid_forward ({block.name}): F is {label} here and "
                                   f"has no function {error.name!r}; a HybridBlock may only call operators that "
                                   f"both mx.nd and mx.sym provide") from None
        raise


class _SparseSymbolError(MXNetError, AssertionError):
    """A SymbolBlock over a graph with a row_sparse variable (MXNet asserted against it)."""


class SymbolBlock(HybridBlock):
    """A HybridBlock made from a Symbol (MXNet's ``gluon.SymbolBlock``): ``outputs`` (a
    Symbol or list), ``inputs`` (its input variables); every other argument and aux state
    becomes a Parameter of that name, shared with ``params`` when given.  Any internal output
    of a graph works (``sym.get_internals()['fc1_output']``)."""

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None, allow_missing=False,
                ignore_extra=False):
        """A SymbolBlock from a ``-symbol.json`` file (``export``'s or Module's checkpoint),
        its input names and optionally a ``.params`` file loaded onto ``ctx`` (dtypes as
        saved)."""
        sym = symbol.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        if param_file is None:
            inputs = [symbol.var(name, dtype=np.float32) for name in input_names]
        else:
            inputs = [symbol.var(name) for name in input_names]
        block = SymbolBlock(sym, inputs)
        if param_file is not None:
            block.collect_params().load(param_file, ctx, allow_missing, ignore_extra, cast_dtype=True,
                                        dtype_source="saved")
        return block

    def __repr__(self):
        return f"{type(self).__name__}(\n{self._cached_graph[1]}\n)" if self._cached_graph else "SymbolBlock()"

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix=None, params=None)
        self._prefix = ""
        self._params = ParameterDict("", params)
        if isinstance(inputs, Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        syms, self._in_format = _flatten(inputs, "input")
        out, self._out_format = _flatten(outputs, "output")
        out = symbol.Group(out)
        input_names = set()
        for item in syms:
            if len(item.get_internals().list_outputs()) != 1:
                raise MXNetError(f"Input symbols must be variable, but {item} is an output of operators")
            input_names.add(item.name)
        row_sparse = {name for name, attrs in out.attr_dict().items()
                      if attrs.get("__storage_type__") == str(_STORAGE_ROW_SPARSE)}
        if row_sparse:
            raise _SparseSymbolError(f"SymbolBlock doesn't support Parameter '{sorted(row_sparse)[0]}' because its "
                                     f"storage type is 'row_sparse'.")
        for name in out.list_arguments():
            if name not in input_names:
                self.params.get(name, allow_deferred_init=True)
        for name in out.list_auxiliary_states():
            if name not in input_names:
                self.params.get(name, grad_req="null", allow_deferred_init=True)
        self._cached_graph = syms, out
        prefix_length = len(_common_prefix(list(self._params.keys())))
        self._reg_params = {key[prefix_length:]: value for key, value in self._params.items()}

    def forward(self, x, *args):
        if isinstance(x, NDArray):
            return self._call_cached_op(x, *args)
        if not isinstance(x, Symbol):
            raise MXNetError(f"HybridBlock requires the first argument to forward be either Symbol or NDArray, "
                             f"but got {type(x)}")
        flat, fmt = _flatten([x] + list(args), "input")
        if fmt != self._in_format:
            raise MXNetError("Invalid input format")
        result = copy.copy(self._cached_graph[1])
        result = result(**{variable.name: value for variable, value in zip(self._cached_graph[0], flat)})
        return _regroup(list(result), self._out_format)[0]

    def _clear_cached_op(self):
        graph = self._cached_graph
        super()._clear_cached_op()
        self._cached_graph = graph

    def cast(self, dtype):
        self._clear_cached_op()
        super().cast(dtype)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError
