"""Gluon's ``HybridBlock`` (MXNet 1.9.1's ``gluon.HybridBlock``): tracing ``hybrid_forward``
into a Symbol, and the nesting helpers of its inputs and outputs.

A :class:`HybridBlock` runs ``hybrid_forward(F, x, ...)`` with ``F = mx.nd`` (imperative:
each call runs a registered operator through NDArray, recorded by ``mx.autograd``).  After
``hybridize()`` the first call traces ``hybrid_forward(F = mx.sym)`` into a Symbol, which
:mod:`.cached_graph` binds once per input signature.  ``export`` writes the traced Symbol and
the values in the files ``mx.mod.Module.load`` and MXNet 1.9.1 read.
"""
from __future__ import annotations

import warnings

from .. import ndarray
from .. import symbol
from .. import subgraph as _subgraph  # noqa: F401  (the 'default' backends and the subgraph C API)
from ..base import MXNetError, MXNetValueError
from ..ndarray.ndarray import NDArray
from ..symbol.symbol import Symbol
from ..symbol.subgraph_backends import get_backend
from ..util import flatten_nested, is_np_array, regroup_nested
from .base_block import Block
from .cached_graph import _CachedGraph
from .utils import _check_same_symbol_type, _is_np_symbol
from .parameter import DeferredInitializationError, Parameter, _shape_known

__all__ = ["HybridBlock"]


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
class HybridBlock(Block):
    """A Block whose computation ``hybrid_forward(F, x, *args, **params)`` can run
    imperatively (``F`` = ``mx.nd``) or be traced into a Symbol (``F`` = ``mx.sym``).
    Parameters registered on the Block arrive as keyword arguments (NDArrays on the
    input's context, or Symbol variables).  Children must be HybridBlocks too."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._cached_graph = ()
        self._cached_op = None
        self._numpy_outputs = None
        self._out_format = None
        self._in_format = None
        self._active = False
        self._flags = []
        self._callback = None
        self._backend = None
        self._backend_opts = {}

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached_op()

    def register_child(self, block, name=None):
        if not isinstance(block, HybridBlock):
            # ValueError, as MXNet's
            raise MXNetValueError(f"Children of HybridBlock must also be HybridBlock, but {block} has type "
                                  f"{type(block)}. If you are using Sequential, please try HybridSequential instead.")
        super().register_child(block, name)
        self._clear_cached_op()

    def hybridize(self, active=True, backend=None, backend_opts=None, clear=True, static_alloc=False,
                  static_shape=False, **kwargs):
        """Trace into a Symbol at the next call (``active``), bound once per input signature.
        ``static_alloc`` / ``static_shape`` are accepted: every binding already keeps its plan
        for its signature.  ``backend`` names a subgraph backend (``symbol.subgraph_backends``):
        the traced graph is partitioned by it (``Symbol.optimize_for(backend, args, aux, ctx,
        **backend_opts)``) before it is bound, as in MXNet."""
        if backend is not None:
            get_backend(backend, "hybridize")
            if backend_opts is not None and not isinstance(backend_opts, dict):
                raise MXNetError(f"hybridize: backend_opts must be a dict, got {type(backend_opts).__name__}")
        self._backend = backend
        self._backend_opts = dict(backend_opts or {})
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
                inputs.append(variable.as_np_ndarray() if is_np_array() else variable)
                symbol_inputs.append(variable)
            grouped = _regroup(inputs, self._in_format)[0]
            params = _parameter_symbols(self._reg_params)
            with self.name_scope():
                out = _call_hybrid_forward(self, symbol, *grouped, **params)
            out, self._out_format = _flatten(out, "output")
            # MXNet's CachedOp gives mx.np arrays when the traced outputs are NumPy symbols,
            # classic ones for classic symbols; a mix of the two raises TypeError
            self._numpy_outputs = _is_np_symbol(out[0]) if out and _check_same_symbol_type(out) else None
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

    def _partition(self, inputs, out, args):
        """The traced graph ``out`` partitioned by the hybridize backend (MXNet's
        ``_build_cache``): the arguments and auxiliary states by name (the inputs' arrays and
        the parameters' values) reach the backend; the partitioned graph replaces the cached one."""
        flat = [item for item in _flatten(args, "input")[0] if item is not None]
        ctx = flat[0].context
        data = {variable.name: array for variable, array in zip(inputs, flat)}
        params = self.collect_params()

        def value(name):
            if name in data:
                return data[name]
            param = params.get(name)
            return None if param is None or param._data is None else param.data(ctx)
        arg_dict = {name: value(name) for name in out.list_arguments()}
        aux_dict = {name: value(name) for name in out.list_auxiliary_states()}
        arg_dict = {k: v for k, v in arg_dict.items() if v is not None}
        aux_dict = {k: v for k, v in aux_dict.items() if v is not None}
        out = out.optimize_for(self._backend, arg_dict, aux_dict, ctx, **self._backend_opts)
        self._cached_graph = inputs, out
        # inputs the backend added to the graph (fused weights) come with their values in the
        # dicts it was given: they become Parameters of the bound graph, as in MXNet
        added = {}
        for name in out.list_inputs():
            if name in data or name in params:
                continue
            values = arg_dict if name in arg_dict else aux_dict
            if name not in values:
                raise MXNetError(f"hybridize: backend {self._backend!r} added the input {name!r} to the graph "
                                 f"without giving its value in the args / aux dicts")
            param = Parameter(name, dtype=values[name].dtype, shape=values[name].shape)
            param._load_init(values[name], ctx)
            added[name] = param
        return out, added

    def _build_cache(self, *args):
        inputs, out = self._get_graph(*args)
        added = {}
        if self._backend is not None:
            out, added = self._partition(inputs, out, args)
        input_names = [variable.name for variable in inputs]
        params = dict(self.collect_params().items())
        params.update(added)
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
        self._cached_op = _CachedGraph(out, input_names, {name: params[name] for name in params.keys()},
                                       inline_limit=int(dict(self._flags).get("inline_limit", 2)))
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
        numpy_outputs = getattr(self, "_numpy_outputs", None)   # None: not traced here (SymbolBlock)
        if is_np_array() if numpy_outputs is None else numpy_outputs:
            out = [item.as_np_ndarray() if type(item) is NDArray else item for item in out]
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
        params = _parameter_symbols(self._reg_params)
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

    def optimize_for(self, x, *args, backend=None, backend_opts=None, clear=True, **kwargs):
        """Hybridize with the subgraph ``backend`` (partitioning the traced graph, see
        :meth:`hybridize`) and run one forward on ``x, *args``, returning its output, as
        MXNet 1.9.1's ``optimize_for``."""
        self.hybridize(True, backend=backend, backend_opts=backend_opts, clear=clear, **kwargs)
        return self(x, *args)


def _parameter_symbols(params):
    """The variables of a block's Parameters for ``hybrid_forward(mx.sym, ...)``: NumPy-front-end
    symbols under NumPy array semantics (``npx.set_np()``), as MXNet gave them."""
    return {key: value.var().as_np_ndarray() if is_np_array() else value.var() for key, value in params.items()}


class _MissingFunction(MXNetError, AttributeError):
    """A hybrid_forward called a function its ``F`` (``mx.nd`` or ``mx.sym``) does not have."""


def _numpy_results(value):
    """``value`` (an array or symbol, or nested lists and tuples of them) with each classic
    array or symbol as its NumPy-front-end form (same tensor, same graph)."""
    if isinstance(value, (list, tuple)):
        return type(value)(_numpy_results(item) for item in value)
    if type(value) is NDArray or type(value) is Symbol:
        return value.as_np_ndarray()
    return value


def _call_hybrid_forward(block, F, *args, **params):
    """``block.hybrid_forward(F, *args, **params)``; a function that ``F`` lacks raises
    MXNetError naming the block, the front end and the function.

    Under NumPy array semantics (``npx.set_np()``) the layers mxtorch provides (whose
    ``hybrid_forward`` is mxtorch's: ``nn.Dense``, ``nn.Conv2D``, ``nn.LeakyReLU``, ...) give
    ``mx.np`` arrays (NumPy symbols when traced), as MXNet 1.9.1's layers did by calling the
    ``npx`` operators there; a user's ``hybrid_forward`` gives what it computes (a classic
    array from it then fails Block's output check with TypeError, as in MXNet)."""
    try:
        result = block.hybrid_forward(F, *args, **params)
        if is_np_array() and getattr(type(block).hybrid_forward, "__module__", "").startswith("mxtorch."):
            result = _numpy_results(result)
        return result
    except AttributeError as error:
        if getattr(error, "obj", None) is F and not isinstance(error, MXNetError):
            label = "mx.nd" if F is ndarray else "mx.sym"
            raise _MissingFunction(f"{type(block).__name__}.hybrid_forward ({block.name}): F is {label} here and "
                                   f"has no function {error.name!r}; a HybridBlock may only call operators that "
                                   f"both mx.nd and mx.sym provide") from None
        raise
