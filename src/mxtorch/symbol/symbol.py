"""Symbol: an immutable graph of operator nodes (MXNet's ``mx.sym.Symbol``).

A Symbol is a list of output entries ``(node, output_index)``.  A node is a
variable (``op is None``) or an operator instance from the registry with its
inputs (entries of other nodes).  Auxiliary states (BatchNorm's moving
statistics) are variable inputs at positions past the operator's arguments,
exactly as in MXNet's NNVM graphs, so ``-symbol.json`` files map one to one.
"""
from __future__ import annotations

import copy
import ctypes
import json
import numbers

import numpy as np

from ..attribute import AttrScope
from ..base import MXNetError, MXNetTypeError, MXNetValueError, NotImplementedForSymbol, format_value, dtype_flag, dtype_name, numpy_dtype, numpy_type
from ..name import NameManager
from ..ndarray.ndarray import NDArray
from ..ndarray.register import install_fluent_methods
from ..ndarray.serialization import STORAGE_CSR, STORAGE_DEFAULT, STORAGE_ROW_SPARSE
from ..ops import registry
from . import graph_json, inference
from .subgraph_backends import get_backend
from .graph import Node, _aux_variable_ids, topological_order  # noqa: F401
# names MXNet 1.9.1's mxnet.symbol.symbol had in its namespace from its ctypes binding
from ..base import (  # noqa: E402,F401
    ExecutorHandle, NDArrayHandle, SymbolHandle, c_array, c_array_buf, c_handle_array,
    c_str, c_str_array, check_call, integer_types, mx_int, mx_int64, mx_uint, numeric_types,
    py_str, string_types,
)
# names MXNet 1.9.1's mxnet.symbol.symbol had in its namespace (imported there, not defined)
from array import array  # noqa: E402,F401
from builtins import slice as py_slice  # noqa: E402,F401
from numbers import Number  # noqa: E402,F401
from ..base_ctypes import SymbolBase  # noqa: E402,F401
from ..base_ctypes import handle_of, object_of_handle  # noqa: E402
from ..context import Context, current_context  # noqa: E402,F401
from ..util import is_np_shape  # noqa: E402,F401

# MXNet's mxnet.symbol.symbol also held zeros, ones, full, arange, pow, ...: the package's __init__
# completes this module's namespace with them (symbol/functions.py)
__all__ = ["Symbol", "Variable", "var", "Group", "load", "load_json", "create", "zeros", "ones", "full",
           "arange", "linspace", "eye", "pow", "power", "maximum", "minimum", "hypot", "histogram", "split_v2"]


# -- binding: the executor layer registers itself here -------------------------------------------------
_BINDER = []


def register_binder(executor_class):
    """Called by ``mxtorch.executor`` when it is imported: ``Symbol.bind`` / ``simple_bind``
    construct ``executor_class`` (the executor layer sits above the graph, so this layer cannot
    import it).  The class also enters this module's namespace as ``Executor``, as in MXNet."""
    _BINDER[:] = [executor_class]
    globals()["Executor"] = executor_class


def _binder():
    if not _BINDER:
        raise MXNetError("Symbol.bind: no executor is registered (import mxtorch, which imports mxtorch.executor)")
    return _BINDER[0]


# filled by symbol/numpy (above this file): the conversion to its _Symbol class
_NP_SYMBOL = []


def provide_np_symbol(function):
    """Register ``function(symbol)``: ``Symbol.as_np_ndarray`` (the NumPy front end's symbol)."""
    _NP_SYMBOL[:] = [function]
    return function


class Symbol(SymbolBase):
    """A symbolic graph with one or more outputs.

    Build with ``mx.sym.Variable`` and the operator functions (``mx.sym.FullyConnected``),
    combine with arithmetic (``a + b``, ``a * 2``), group with ``mx.sym.Group``, save
    with ``tojson`` / ``save`` and bind with ``simple_bind`` / ``bind``.
    """

    __array_priority__ = 1000.0

    def __init__(self, outputs):
        if isinstance(outputs, ctypes.c_void_p):
            # ``Symbol(handle)``: a SymbolHandle from ``sym.handle`` or a C API output (MXNet's form)
            outputs = object_of_handle(outputs, Symbol)._outputs
        self._outputs = list(outputs)

    @property
    def handle(self):
        """The ``SymbolHandle`` (``ctypes.c_void_p``) of this symbol, for MXNet's C API
        functions in ``mxnet.base._LIB``; ``Symbol(handle)`` gives a symbol of the same graph."""
        return handle_of(self)

    # -- structure ----------------------------------------------------------------------------
    def _nodes(self):
        return topological_order(self._outputs)

    @property
    def name(self):
        """Name of a single-output symbol; None for a group."""
        if len(self._outputs) != 1:
            return None
        return self._outputs[0][0].name

    def list_arguments(self):
        """Names of the non-auxiliary variables, in MXNet's order (depth-first over inputs)."""
        nodes = self._nodes()
        aux = _aux_variable_ids(nodes)
        return [n.name for n in nodes if n.op is None and id(n) not in aux]

    def list_auxiliary_states(self):
        """Names of the auxiliary-state variables (BatchNorm's moving_mean / moving_var)."""
        nodes = self._nodes()
        aux = _aux_variable_ids(nodes)
        return [n.name for n in nodes if n.op is None and id(n) in aux]

    def list_inputs(self):
        """All variable names, arguments and auxiliary states, in graph order."""
        return [n.name for n in self._nodes() if n.op is None]

    def list_outputs(self):
        """Output names: ``<node>_<output>`` for operators (``fc1_output``), the name for variables."""
        return [node.output_names()[index] for node, index in self._outputs]

    def get_internals(self):
        """A Group of every visible output of every node, in graph order."""
        entries = []
        for node in self._nodes():
            count = node.num_outputs() if node.op is None else node.op.num_visible_outputs()
            entries.extend((node, i) for i in range(count))
        return Symbol(entries)

    def _gen_atomic_symbol(self):
        """A new symbol holding only this symbol's operator: same operator and attributes, no
        inputs and an empty name, one output per visible output of the operator (MXNet 1.9.1's
        ``MXGenAtomicSymbolFromSymbol``).  Raises MXNetError for a group or a variable."""
        if len(self._outputs) != 1 and len({id(node) for node, _ in self._outputs}) != 1:
            raise MXNetError("_gen_atomic_symbol: expected the outputs of one operator node, "
                             f"got a group of {len(self._outputs)} outputs")
        node = self._outputs[0][0]
        if node.op is None:
            raise MXNetError(f"_gen_atomic_symbol: {node.name!r} is a variable, not an operator")
        attrs = {key: value for key, value in node.attrs.items()
                 if not (key.startswith("__") and key.endswith("__"))}
        atom = Node(node.op, "", attrs)
        return Symbol([(atom, index) for index in range(node.op.num_visible_outputs())])

    def get_children(self):
        """The inputs of this (single-output) symbol's node as a Group, None for a variable."""
        node = self._outputs[0][0]
        if not node.inputs:
            return None
        return Symbol(list(node.inputs))

    def __getitem__(self, index):
        if isinstance(index, str):
            names = self.list_outputs()
            matches = [i for i, n in enumerate(names) if n == index]
            if not matches:
                raise MXNetValueError(f"Symbol: no output named {index!r}; outputs are {names}")
            if len(matches) > 1:
                raise MXNetError(f"Symbol: more than one output named {index!r}")
            index = matches[0]
        if isinstance(index, slice):
            return Symbol(self._outputs[index])
        if not isinstance(index, numbers.Integral):
            raise MXNetError(f"Symbol index must be an int, str or slice, got {type(index).__name__}")
        if index >= len(self._outputs) or index < -len(self._outputs):
            raise MXNetError(f"Symbol: output index {index} out of range ({len(self._outputs)} outputs)")
        return Symbol([self._outputs[index]])

    def __len__(self):
        return len(self._outputs)

    def __iter__(self):
        return (Symbol([entry]) for entry in self._outputs)

    def __repr__(self):
        if len(self._outputs) == 1:
            return f"<Symbol {self.name}>"
        return f"<Symbol group [{', '.join(self.list_outputs())}]>"

    def __copy__(self):
        return Symbol(list(self._outputs))

    def __deepcopy__(self, memo):
        return load_json(self.tojson())

    def __bool__(self):
        """Raises NotImplementedForSymbol: a Symbol has no truth value (compare with ``is None``)."""
        raise NotImplementedForSymbol(self.__bool__, "bool")

    __nonzero__ = __bool__

    def as_nd_ndarray(self):
        """This symbol (it already is an ``mx.sym.Symbol``)."""
        return self

    def as_np_ndarray(self):
        """This graph as a symbol of the NumPy front end (``mx.sym.np``'s ``_Symbol``, filled in
        by ``symbol/numpy`` through :func:`provide_np_symbol`)."""
        if not _NP_SYMBOL:
            raise MXNetError("as_np_ndarray: mxtorch.symbol.numpy was not imported (import mxtorch first)")
        return _NP_SYMBOL[0](self)

    def __getstate__(self):
        return {"json": self.tojson()}

    def __setstate__(self, state):
        self._outputs = load_json(state["json"])._outputs

    def __call__(self, *args, **kwargs):
        """Compose: replace this symbol's free variables by the given symbols, by name
        (``net(fc1_data=x)``).  An atomic symbol (``_gen_atomic_symbol``: an operator node
        without inputs) takes its inputs by position or by argument name and gets a node with
        new variables for the ones not given, as a ``mx.sym.<op>`` call does; a variable takes
        its replacement by position or under its own name.

        As in MXNet 1.9.1: TypeError (MXNetTypeError) for a value that is not a Symbol or for
        inputs given both by position and by keyword; MXNetError for a keyword that names no
        input of the symbol and for positional inputs to a composed graph."""
        kwargs = dict(kwargs)
        name = kwargs.pop("name", None)
        self._check_compose_values(args, kwargs)
        atom = self._atomic_node()
        if atom is not None:
            op = atom.op
            if args and len(args) > len(op.arguments() + op.auxiliary_states()):
                raise MXNetError(f"compose: operator {op.name} takes {len(op.arguments() + op.auxiliary_states())} "
                                 f"inputs {op.arguments() + op.auxiliary_states()}, got {len(args)} positional")
            attrs = {key: value for key, value in atom.attrs.items() if key not in kwargs}
            return create(op.json_name, *args, name=name or atom.name or None, **attrs, **kwargs)
        result = copy.deepcopy(self)
        result._compose(*args, **kwargs)
        return result

    def _atomic_node(self):
        """The operator node of an atomic symbol (one operator node without inputs whose
        operator takes some), else None."""
        nodes = {id(node): node for node, _ in self._outputs}
        if len(nodes) != 1:
            return None
        node = next(iter(nodes.values()))
        if node.op is None or node.inputs or not (node.op.arguments() or node.op.auxiliary_states()):
            return None
        return node

    @staticmethod
    def _check_compose_values(args, kwargs):
        if args and kwargs:
            raise MXNetTypeError("compose: give the input Symbols either by position or by keyword, not both "
                                 f"(got {len(args)} positional and keywords {sorted(kwargs)})")
        labelled = [(f"argument {i}", value) for i, value in enumerate(args)] + \
                   [(f"argument {key!r}", value) for key, value in kwargs.items()]
        for label, value in labelled:
            if not isinstance(value, Symbol):
                shown = repr(value).replace("\n", " ")
                raise MXNetTypeError(f"compose expects Symbols as arguments, but {label} is "
                                     f"{type(value).__name__} {shown[:60]}")

    def _compose(self, *args, **kwargs):
        """Replace free variables of this symbol in place (see ``__call__``)."""
        kwargs = dict(kwargs)
        kwargs.pop("name", None)
        self._check_compose_values(args, kwargs)
        inputs = self.list_inputs()
        nodes = self._nodes()
        if args:
            if any(node.op is not None for node in nodes):
                raise MXNetError(f"compose: a composed symbol takes its inputs by keyword, named after its "
                                 f"variables {inputs} (got {len(args)} positional)")
            names = self.list_arguments()
            if len(args) > len(names):
                raise MXNetError(f"compose: {len(args)} positional inputs for the variables {names}")
            replacements = dict(zip(names, args))
        else:
            unknown = [key for key in kwargs if key not in inputs]
            if unknown:
                raise MXNetError(f"compose: keyword argument {unknown[0]!r} names no input of the symbol; "
                                 f"its inputs are {inputs}")
            replacements = kwargs
        mapping = {}
        for node in nodes:
            if node.op is None and node.name in replacements:
                source = replacements[node.name]
                if len(source._outputs) != 1:
                    raise MXNetError("compose: only single-output symbols can be substituted")
                mapping[id(node)] = source._outputs[0]
        for node in nodes:
            node.inputs = [mapping.get(id(child), (child, index)) for child, index in node.inputs]
        self._outputs = [mapping.get(id(node), (node, index)) for node, index in self._outputs]

    # -- attributes -----------------------------------------------------------------------------
    def attr(self, key):
        """The string attribute ``key`` of this symbol's node, or None.  As in MXNet 1.9.1 the
        legacy keys (``lr_mult``, ``ctx_group``, ...) find their hidden ``__key__`` form;
        other keys are looked up as given (``attr('__init__')``, not ``attr('init')``)."""
        if len(self._outputs) != 1:
            return None
        attrs = self._outputs[0][0].attrs
        hidden = graph_json.hidden_key(key)
        return attrs.get(hidden, attrs.get(key))

    def list_attr(self, recursive=False):
        """Attributes of this node.  Hidden keys are reported as stored (``__shape__``);
        the legacy keys (``__lr_mult__``, ``__ctx_group__``, ...) also under their plain name,
        as MXNet 1.9.1 does.  ``recursive`` was removed in MXNet 1.x: use ``attr_dict``."""
        if recursive:
            raise MXNetError("list_attr(recursive=True) is removed in MXNet 1.x; use attr_dict()")
        if len(self._outputs) != 1:
            return {}
        return _reported_attrs(self._outputs[0][0].attrs)

    def attr_dict(self):
        """``{node_name: {attribute: value}}`` for every node that has attributes (keys as in
        ``list_attr``)."""
        result = {}
        for node in self._nodes():
            if node.attrs:
                # nodes that share a name merge their attributes, as in MXNet
                result.setdefault(node.name, {}).update(_reported_attrs(node.attrs))
        return result

    def _set_attr(self, **kwargs):
        """Set string attributes on this symbol's node."""
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise MXNetError(f"_set_attr: attribute {key!r} must be a string, got {type(value).__name__}")
            node = self._outputs[0][0]
            node.attrs[graph_json.hidden_key(key)] = value

    # -- shape and type inference ------------------------------------------------------------------
    def infer_shape(self, *args, **kwargs):
        """``(arg_shapes, out_shapes, aux_shapes)`` from input shapes given by position
        (in ``list_arguments`` order) or by name; ``(None, None, None)`` if they cannot all
        be inferred.  Raises MXNetError naming the node and the conflicting shapes.
        """
        result = self._infer_shape(args, kwargs, partial=False)
        return result

    def infer_shape_partial(self, *args, **kwargs):
        """Like ``infer_shape`` but returns what is known; unknown shapes are ``()`` and
        unknown dimensions 0 (under NumPy shape semantics, ``mx.np_shape()``: None and -1)."""
        return self._infer_shape(args, kwargs, partial=True)

    @staticmethod
    def _checked_shapes(args, kwargs, function):
        """The given shapes as tuples of ints, -1 (an unknown dimension) read as 0, the
        inference's spelling.  As in MXNet 1.9.1: TypeError (MXNetTypeError) when a shape is not a
        tuple (a positional None means "unknown") or holds a value that is not an integer;
        MXNetError for a dimension below -1."""
        labelled = [(f"argument {i}", value) for i, value in enumerate(args) if value is not None] + \
                   [(repr(key), value) for key, value in kwargs.items()]
        checked = {}
        for label, value in labelled:
            if not isinstance(value, tuple):
                raise MXNetTypeError(f"{function}: arguments need to be shapes (tuple), but {label} is "
                                     f"{type(value).__name__} {repr(value)[:60]}")
            for dim in value:
                if not isinstance(dim, numbers.Integral):
                    raise MXNetTypeError(f"{function}: shape {value} of {label} must hold integers, got "
                                         f"{type(dim).__name__} {dim!r}")
                if dim < -1:
                    raise MXNetError(f"{function}: shape {value} of {label} has dimension {dim}; a dimension "
                                     f"must be >= 0, or -1 for unknown")
            checked[label] = tuple(0 if dim == -1 else int(dim) for dim in value)
        args = tuple(checked.get(f"argument {i}") for i in range(len(args)))
        kwargs = {key: checked[repr(key)] for key in kwargs}
        return args, kwargs

    def _infer_shape(self, args, kwargs, partial):
        from ..util import is_np_shape
        function = "infer_shape_partial" if partial else "infer_shape"
        args, kwargs = self._checked_shapes(args, kwargs, function)
        known = self._given(args, kwargs, "infer_shape")
        numpy_shapes = is_np_shape()
        shapes, settled = inference.infer_shapes_settled(self, known)
        # a settled shape is known also where it has zero dimensions (a zero-size slice), as in MXNet
        complete = all(settled[0] + settled[1] + settled[2])
        if not complete and not partial:
            return None, None, None
        if numpy_shapes:
            # NumPy shape semantics spell an unknown dimension -1 (inference itself uses 0)
            fix = lambda shapes, flags: [tuple(s) if flag else tuple(-1 if d == 0 else d for d in s)
                                         if s is not None else None for s, flag in zip(shapes, flags)]
        else:
            fix = lambda shapes, flags: [tuple(s) if s is not None else () for s in shapes]
        return tuple(fix(group, flags) for group, flags in zip(shapes, settled))

    def infer_type(self, *args, **kwargs):
        """``(arg_types, out_types, aux_types)`` as numpy types from input dtypes given by
        position or name; ``(None, None, None)`` if incomplete."""
        known = self._given(args, kwargs, "infer_type")
        known = {k: numpy_dtype(v) for k, v in known.items() if v is not None}
        arg_types, out_types, aux_types = inference.infer_types(self, known)
        if any(t is None for t in arg_types + out_types + aux_types):
            return None, None, None
        as_type = lambda types: [numpy_type(t) for t in types]
        return as_type(arg_types), as_type(out_types), as_type(aux_types)

    def infer_type_partial(self, *args, **kwargs):
        known = self._given(args, kwargs, "infer_type")
        known = {k: numpy_dtype(v) for k, v in known.items() if v is not None}
        arg_types, out_types, aux_types = inference.infer_types(self, known)
        as_type = lambda types: [numpy_type(t) if t is not None else None for t in types]
        return as_type(arg_types), as_type(out_types), as_type(aux_types)

    def _given(self, args, kwargs, function):
        if args and kwargs:
            raise MXNetError(f"{function}: give inputs either by position or by name, not both")
        names = self.list_arguments()
        if args:
            if len(args) > len(names):
                raise MXNetError(f"{function}: {len(args)} positional inputs for {len(names)} arguments {names}")
            return {n: a for n, a in zip(names, args) if a is not None}
        inputs = set(self.list_inputs())
        for key in kwargs:
            if key not in inputs:
                raise MXNetError(f"{function}: {key!r} is not an input of the symbol; inputs are {sorted(inputs)}")
        return {k: v for k, v in kwargs.items() if v is not None}

    # -- serialisation -------------------------------------------------------------------------------
    def tojson(self, remove_amp_cast=True):
        """The graph as MXNet 1.x NNVM JSON (``nodes``, ``arg_nodes``, ``node_row_ptr``, ``heads``)."""
        return graph_json.to_json(self, remove_amp_cast)

    def save(self, fname, remove_amp_cast=True):
        """Write ``tojson()`` to ``fname`` atomically (temporary file, then rename)."""
        from ..util import atomic_write
        atomic_write(fname, self.tojson(remove_amp_cast).encode("utf-8"))

    def debug_str(self):
        lines = []
        for node in self._nodes():
            if node.op is None:
                lines.append(f"Variable:{node.name}")
            else:
                lines.append(f"Op:{node.op.name}, Name={node.name}")
                for child, index in node.inputs:
                    lines.append(f"\targ: {child.output_names()[index]}")
                for key, value in node.op.attrs.items():
                    lines.append(f"Attr:\t{key}={value}")
        return "\n".join(lines)

    # -- binding ----------------------------------------------------------------------------------------
    def simple_bind(self, ctx, grad_req="write", type_dict=None, stype_dict=None, group2ctx=None,
                    shared_arg_names=None, shared_exec=None, shared_buffer=None, **kwargs):
        """Allocate every argument, gradient and aux array from input shapes and bind.

        ``kwargs`` maps input names to shapes; ``type_dict`` names to dtypes (default
        float32); ``stype_dict`` names to storage types ('default', 'row_sparse', 'csr'; without
        it a variable's declared ``stype``; with it every argument must be given or declared);
        ``grad_req`` is 'write', 'add', 'null', a list or a dict.  The gradient arrays take the
        storage type of MXNet's backward rules (``Embedding(sparse_grad=True)`` gives its weight a
        row_sparse gradient).  Arrays in ``shared_buffer`` (name -> NDArray) are reused when their
        shapes match.
        """
        return _binder().simple_bind(self, ctx, grad_req=grad_req, type_dict=type_dict, group2ctx=group2ctx,
                                    shared_arg_names=shared_arg_names, shared_exec=shared_exec,
                                    shared_buffer=shared_buffer, shapes=kwargs, stype_dict=stype_dict)

    def eval(self, ctx=None, **kwargs):
        """Bind to the arrays given by name in ``kwargs`` (every argument must be given) on ``ctx``
        (the current context by default), run forward and return the list of output NDArrays."""
        from ..context import current_context
        return self.bind(ctx if ctx is not None else current_context(), kwargs).forward()

    def gradient(self, wrt):
        """Not supported, as in MXNet 1.9.1, whose ``Symbol.gradient`` raised MXNetError 'not
        implemented': bind the symbol and use ``Executor.backward`` for gradients."""
        raise MXNetError(f"Symbol.gradient({list(wrt)!r}): not implemented (MXNet 1.9.1 does not implement it "
                         f"either); bind the symbol and call Executor.backward")

    def optimize_for(self, backend, args=None, aux=None, ctx=None, shape_dict=None, type_dict=None,
                     stype_dict=None, skip_infer=False, **kwargs):
        """Partition the graph for the subgraph ``backend`` registered in
        ``symbol.subgraph_backends`` and return the partitioned Symbol, as MXNet 1.9.1's
        ``optimize_for``.  ``args`` / ``aux`` (name -> NDArray dicts or None) are handed to the
        backend, which may update them in place; the other arguments reach it in ``options``.
        MXNetError when ``backend`` is not registered or ``args`` / ``aux`` are not dicts."""

        partitioner = get_backend(backend, "optimize_for")
        for label, value in (("args", args), ("aux", aux)):
            if value is not None and not isinstance(value, dict):
                raise MXNetError(f"optimize_for: {label} must be a dict of name -> NDArray or None, "
                                 f"got {type(value).__name__}")
        options = dict(kwargs, ctx=ctx, shape_dict=shape_dict, type_dict=type_dict, stype_dict=stype_dict,
                       skip_infer=skip_infer)
        return partitioner.partition(self, args, aux, options)

    def get_backend_symbol(self, backend):
        """The graph rewritten by the subgraph ``backend`` registered in
        ``symbol.subgraph_backends`` (MXNet's oneDNN passes 'MKLDNN' and 'MKLDNN_QUANTIZE', or
        a backend of ``MXSetSubgraphPropertyOpNamesV2``); MXNetError for a backend that is not
        registered, as MXNet raised."""

        return get_backend(backend, "get_backend_symbol").partition(self, None, None, {})

    def bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None, group2ctx=None,
             shared_exec=None):
        """Bind to given arrays: ``args`` / ``args_grad`` / ``aux_states`` as lists (in
        ``list_arguments`` / ``list_auxiliary_states`` order) or dicts by name."""
        return _binder()(self, ctx, args, args_grad, grad_req, aux_states, group2ctx=group2ctx)

    # -- inference over a subgraph (the Symbols that _foreach / _while_loop / _cond run) ----------
    def infer_input_output_shapes(self, in_shapes, where):
        """``(input shapes, output shapes)`` from partial shapes of ``list_inputs()`` (None where
        unknown); the operator ``where`` running this graph is named in errors."""
        return inference.input_output_shapes(self, in_shapes, where)

    def infer_input_output_types(self, in_types):
        """``(input dtypes, output dtypes)`` from partial dtypes of ``list_inputs()``."""
        return inference.input_output_types(self, in_types)

    # -- arithmetic ---------------------------------------------------------------------------------------
    def _binary(self, other, symbol_op, scalar_op, reverse=False):
        if isinstance(other, Symbol):
            lhs, rhs = (other, self) if reverse else (self, other)
            return create(symbol_op, lhs, rhs)
        if isinstance(other, (numbers.Number, np.generic)):
            # MXNet writes the scalar as Python prints it: 2 -> "2", 0.5 -> "0.5"
            value = other.item() if isinstance(other, np.generic) else other
            return create(scalar_op, self, scalar=value)
        raise MXNetError(f"Symbol arithmetic: unsupported operand type {type(other).__name__}")

    def __add__(self, other): return self._binary(other, "_Plus", "_PlusScalar")
    def __radd__(self, other): return self._binary(other, "_Plus", "_PlusScalar", True)
    def __sub__(self, other): return self._binary(other, "_Minus", "_MinusScalar")
    def __rsub__(self, other): return self._binary(other, "_Minus", "_RMinusScalar", True)
    def __mul__(self, other): return self._binary(other, "_Mul", "_MulScalar")
    def __rmul__(self, other): return self._binary(other, "_Mul", "_MulScalar", True)
    def __truediv__(self, other): return self._binary(other, "_Div", "_DivScalar")
    def __rtruediv__(self, other): return self._binary(other, "_Div", "_RDivScalar", True)
    __div__ = __truediv__
    __rdiv__ = __rtruediv__
    def __mod__(self, other): return self._binary(other, "_Mod", "_ModScalar")
    def __rmod__(self, other): return self._binary(other, "_Mod", "_RModScalar", True)
    def __pow__(self, other): return self._binary(other, "_Power", "_PowerScalar")
    def __rpow__(self, other): return self._binary(other, "_Power", "_RPowerScalar", True)
    def __neg__(self): return self.__mul__(-1.0)
    def __eq__(self, other): return self._binary(other, "_equal", "_equal_scalar")
    def __ne__(self, other): return self._binary(other, "_not_equal", "_not_equal_scalar")
    def __gt__(self, other): return self._binary(other, "_greater", "_greater_scalar")
    def __ge__(self, other): return self._binary(other, "_greater_equal", "_greater_equal_scalar")
    def __lt__(self, other): return self._binary(other, "_lesser", "_lesser_scalar")
    def __le__(self, other): return self._binary(other, "_lesser_equal", "_lesser_equal_scalar")
    __hash__ = object.__hash__

    def __abs__(self): return self.abs()

    # in-place forms build a new symbol (MXNet raised NotImplementedForSymbol for them)
    def __iadd__(self, other): return self.__add__(other)
    def __isub__(self, other): return self.__sub__(other)
    def __imul__(self, other): return self.__mul__(other)
    def __itruediv__(self, other): return self.__truediv__(other)
    __idiv__ = __itruediv__

    # -- fluent methods with their own argument conventions ---------------------------------------
    # (the others, ``x.sum(axis=1)`` and so on, are generated from the operators declared fluent)
    def reshape(self, *args, **kwargs):
        """The ``Reshape`` operator on this symbol: ``x.reshape((2, -1))``, ``x.reshape(shape=...,
        reverse=True)``; several ints (``x.reshape(2, -1)``) are read as one shape."""
        if len(args) > 1 and all(isinstance(value, numbers.Integral) for value in args):
            args = (tuple(args),)
        return create("reshape", self, *args, **kwargs)

    def astype(self, *args, **kwargs):
        """The ``Cast`` operator: ``x.astype('int32')`` or ``x.astype(dtype=numpy.float16)``."""
        return create("cast", self, *args, **kwargs)

    def flatten(self, inplace=False, **kwargs):
        """The ``Flatten`` operator (``inplace`` is accepted and has no meaning for symbols)."""
        return create("flatten", self, **kwargs)

    def expand_dims(self, axis, inplace=False, **kwargs):
        """The ``expand_dims`` operator (``inplace`` has no meaning for symbols)."""
        return create("expand_dims", self, axis=axis, **kwargs)

    def squeeze(self, axis=None, inplace=False, **kwargs):
        """The ``squeeze`` operator (``inplace`` has no meaning for symbols)."""
        return create("squeeze", self, axis=axis, **kwargs)

    def diag(self, k=0, **kwargs):
        """The ``diag`` operator with diagonal ``k``."""
        return create("diag", self, k, **kwargs)

    def split_v2(self, *args, **kwargs):
        """``mx.sym.split_v2(self, indices_or_sections, axis=0, squeeze_axis=False)``."""
        return split_v2(self, *args, **kwargs)

    # -- NDArray-only names: MXNet defines them on Symbol to raise --------------------------------
    def wait_to_read(self):
        """Raises NotImplementedForSymbol (NDArray only)."""
        raise NotImplementedForSymbol(self.wait_to_read, None)

    def asnumpy(self):
        """Raises NotImplementedForSymbol (NDArray only; use ``eval`` or bind the symbol)."""
        raise NotImplementedForSymbol(self.asnumpy, None)

    def asscalar(self):
        """Raises NotImplementedForSymbol (NDArray only)."""
        raise NotImplementedForSymbol(self.asscalar, None)

    def copy(self):
        """Raises NotImplementedForSymbol (NDArray only; ``copy.copy(symbol)`` copies a symbol)."""
        raise NotImplementedForSymbol(self.copy, None)

    def as_in_context(self, *args, **kwargs):
        """Raises NotImplementedForSymbol (NDArray only)."""
        raise NotImplementedForSymbol(self.as_in_context, None)

    def detach(self):
        """Raises NotImplementedForSymbol (NDArray only; use ``BlockGrad`` / ``stop_gradient``)."""
        raise NotImplementedForSymbol(self.detach, None)

    def backward(self, *args, **kwargs):
        """Raises NotImplementedForSymbol (NDArray only; bind and use ``Executor.backward``)."""
        raise NotImplementedForSymbol(self.backward, None)


# hidden attributes that MXNet also reports under their plain, older name
LEGACY_HIDDEN_KEYS = graph_json.HIDDEN_KEYS


def _reported_attrs(attrs):
    result = {}
    for key, value in attrs.items():
        result[key] = value
        plain = _strip(key)
        if plain != key and plain in LEGACY_HIDDEN_KEYS:
            result[plain] = value
    return result


def _strip(key):
    if key.startswith("__") and key.endswith("__") and len(key) > 4:
        return key[2:-2]
    return key


# MXNet's storage type ids, as a variable's ``__storage_type__`` attribute holds them
STORAGE_TYPE_IDS = {"default": STORAGE_DEFAULT, "row_sparse": STORAGE_ROW_SPARSE, "csr": STORAGE_CSR}


def Variable(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None, stype=None,
             profiler_scope=None, **kwargs):
    """A named input of the graph (data, label or parameter).

    ``shape`` (tuple), ``dtype``, ``lr_mult``, ``wd_mult`` and ``init`` (an Initializer or
    its JSON string) are stored as ``__shape__``, ``__dtype__``, ``__lr_mult__``,
    ``__wd_mult__`` and ``__init__`` attributes; ``stype`` ('default', 'row_sparse' or 'csr')
    as ``__storage_type__`` (MXNet's id): binding gives the variable's array that storage
    type.  Extra keyword attributes must be spelt ``__key__`` (MXNet's rule).
    """
    if not isinstance(name, str):
        raise MXNetError(f"Variable: name must be a string, got {type(name).__name__}")
    attrs = graph_json.hide_keys(AttrScope.current.get(attr))
    if shape is not None:
        # ``shape=(1)`` is the int 1: MXNet stored it as "1", read back as (1,)
        shape = (shape,) if isinstance(shape, (int, np.integer)) else shape
        attrs["__shape__"] = format_value(tuple(shape))
    if lr_mult is not None:
        attrs["__lr_mult__"] = format_value(lr_mult)
    if wd_mult is not None:
        attrs["__wd_mult__"] = format_value(wd_mult)
    if dtype is not None:
        attrs["__dtype__"] = str(dtype_flag(dtype))
    if init is not None:
        if not isinstance(init, str) and not callable(getattr(init, "dumps", None)):
            raise MXNetTypeError(f"Variable {name!r}: init must be an Initializer (such as mx.init.Constant(5)) "
                                 f"or its JSON string, got {type(init).__name__} {init!r}")
        attrs["__init__"] = init if isinstance(init, str) else init.dumps()
    if stype is not None:
        # an unknown name is a KeyError, as MXNet's lookup of it raised
        attrs["__storage_type__"] = str(STORAGE_TYPE_IDS[stype])
    for key, value in kwargs.items():
        if not (key.startswith("__") and key.endswith("__")):
            raise MXNetError(f"Variable: extra attribute {key!r} must be written as '__{key}__'")
        attrs[key] = str(value)
    return Symbol([(Node(None, name, attrs), 0)])


var = Variable


def Group(symbols, create_fn=Symbol):
    """One symbol whose outputs are the outputs of every symbol in ``symbols``, in order.
    ``create_fn`` is the class of the result (``Symbol`` or a subclass of it)."""
    if not symbols or any(not isinstance(s, Symbol) for s in symbols):
        raise MXNetError("Group: expected a non-empty list of Symbols")
    if not (isinstance(create_fn, type) and issubclass(create_fn, Symbol)):
        raise MXNetError(f"Group: create_fn must be Symbol or a subclass of it, got {create_fn!r}")
    entries = []
    for symbol in symbols:
        entries.extend(symbol._outputs)
    return create_fn(entries)


def create(op_name, *args, **kwargs):
    """Create a node of operator ``op_name``: Symbols (positional or by argument name) are
    inputs, other keywords are attributes; ``name=`` and ``attr=`` as in MXNet.  Inputs
    not given become new variables named ``<name>_<argument>``.  ``out=`` is accepted and has
    nothing to write to (a Symbol computes nothing), as in MXNet 1.9.1's symbol functions.
    """
    op_class = registry.get_operator(op_name)
    kwargs.pop("out", None)
    name = kwargs.pop("name", None)
    attr = kwargs.pop("attr", None)
    given_args, given_kwargs = args, dict(kwargs)
    is_symbol = lambda value: isinstance(value, Symbol)  # noqa: E731
    registry.refuse_non_input_values(op_class, op_name, args, kwargs, is_symbol, "Symbol", eager=True)
    symbol_kwargs = {k: v for k, v in kwargs.items() if isinstance(v, Symbol)}
    # an attribute given as None is written as "None" when it may be None (MXNet writes str(value));
    # None for an input, or for an attribute that cannot be None, means "not given"
    attrs = {k: v for k, v in kwargs.items() if not isinstance(v, Symbol) and
             (v is not None or _may_be_none(op_class, k))}
    args, attrs = registry.split_call_arguments(op_class, args, attrs, lambda value: isinstance(value, Symbol),
                                                "Symbol", (NDArray,), op_name)
    # None for an input means "not given" (``FullyConnected(x, w, None, no_bias=True)``), as in MXNet
    none_inputs = {i for i, value in enumerate(args) if value is None}
    for position, value in enumerate(args):
        if not isinstance(value, Symbol) and position not in none_inputs:
            raise MXNetError(f"Operator {op_name}: positional input {position} must be a Symbol, "
                             f"got {type(value).__name__}")
    if op_class.variadic and "num_args" in op_class.schema and "num_args" not in attrs:
        attrs["num_args"] = len(args) + len(symbol_kwargs)
    # hidden attributes passed as keywords (e.g. __layout__) go to the node, not the operator
    # (and so do the legacy plain keys lr_mult, wd_mult, ctx_group, ..., stored as __key__ as MXNet does)
    hidden_given = [k for k in attrs if (k.startswith("__") and k.endswith("__")) or k in graph_json.HIDDEN_KEYS]
    hidden = {graph_json.hidden_key(k): format_value(attrs[k]) for k in hidden_given}
    attrs = {k: v for k, v in attrs.items() if k not in hidden_given}
    try:
        op = op_class(attrs).use_name(op_name)
    except registry.OperatorSchemaError:
        # an "unknown attribute" that names an input given a non-Symbol says so instead
        registry.refuse_non_input_values(op_class, op_name, given_args, given_kwargs, is_symbol, "Symbol")
        raise
    hint = op_name.lower()
    name = NameManager.current.get(name, hint)
    input_names = op.arguments() + op.auxiliary_states()
    if len(args) > len(input_names):
        raise MXNetError(f"Operator {op_name} ({name}): takes {len(input_names)} inputs {input_names}, "
                         f"got {len(args)} positional")
    given = {key: value for key, value in zip(input_names, args) if value is not None}
    for key, value in symbol_kwargs.items():
        if key not in input_names:
            raise MXNetError(f"Operator {op_name} ({name}): unknown input {key!r}; inputs are {input_names}")
        if key in given:
            raise MXNetError(f"Operator {op_name} ({name}): input {key!r} given twice")
        given[key] = value
    node_attrs = dict(op.attrs)
    node_attrs.update(graph_json.hide_keys(AttrScope.current.get(attr)))
    node_attrs.update(hidden)
    inputs = []
    for input_name in input_names:
        symbol = given.get(input_name)
        if symbol is None:
            if op.variadic:
                raise MXNetError(f"Operator {op_name} ({name}): missing input {input_name}")
            # as in MXNet, an implicit variable carries its operator's attributes
            # (so a layer's __lr_mult__ / __ctx_group__ reach its weights)
            symbol = Symbol([(Node(None, f"{name}_{input_name}", dict(node_attrs)), 0)])
        if len(symbol._outputs) != 1:
            raise MXNetError(f"Operator {op_name} ({name}): input {input_name!r} must be a single-output "
                             f"symbol, got a group of {len(symbol._outputs)}")
        inputs.append(symbol._outputs[0])
        if symbol._outputs[0][0].op is None:
            # the operator's defaults for its input variables (MXNet's FSetInputVarAttrOnCompose)
            graph_json.set_input_variable_attrs(op, input_name, symbol._outputs[0][0])
    node = Node(op, name, node_attrs, inputs)
    count = op.num_visible_outputs()
    return Symbol([(node, i) for i in range(count)])


def _may_be_none(op_class, key):
    attr = op_class.schema.get(key)
    if attr is None:
        return False
    try:
        return attr.parse(None, op_class.name) is None
    except MXNetError:
        return False


def load_json(json_str):
    """A Symbol from MXNet graph JSON (1.x NNVM or the older ``param``/``attr`` spelling)."""
    return graph_json.from_json(json_str, Symbol)


def load(fname):
    """A Symbol from a ``-symbol.json`` file; MXNetError naming the file if unreadable.

    The file is read as UTF-8, or byte for byte (Latin-1) when it is not valid UTF-8, as
    MXNet's byte-oriented reader accepted such files."""
    try:
        with open(fname, "rb") as handle:
            raw = handle.read()
    except (OSError, TypeError) as error:
        raise MXNetError(f"sym.load: cannot read {fname!r}: {error}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    try:
        return load_json(text)
    except MXNetError as error:
        raise MXNetError(f"sym.load: {fname!r}: {error}") from None


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """Split ``ary`` along ``axis`` into ``indices_or_sections`` equal parts (an int) or at the
    positions of a tuple (``(2, 3)``: ``[:2]``, ``[2:3]``, ``[3:]``): the ``_split_v2`` operator with
    one output per part.  MXNetError when ``indices_or_sections`` is neither an int nor a tuple."""
    if isinstance(indices_or_sections, numbers.Integral) and not isinstance(indices_or_sections, bool):
        indices, sections = [], int(indices_or_sections)
    elif isinstance(indices_or_sections, tuple):
        indices, sections = [0] + [int(i) for i in indices_or_sections], 0
    else:
        raise MXNetError(f"split_v2: indices_or_sections must be an int or a tuple of ints, "
                         f"got {type(indices_or_sections).__name__}")
    # MXNet writes the list as Python prints it: "[]", "[0, 1, 3]"
    return create("_split_v2", ary, indices=str(indices), axis=axis, squeeze_axis=squeeze_axis,
                  sections=sections)


def _call_fluent(op_name, symbol, args, kwargs):
    return create(op_name, symbol, *args, **kwargs)


install_fluent_methods(Symbol, _call_fluent, "mx.sym")

# MXNet's mxnet.symbol.symbol also had ``Executor`` in its namespace: mxtorch.executor (the layer
# above, which binds Symbols) enters it there with its binder (``register_binder``)
