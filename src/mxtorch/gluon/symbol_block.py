"""Gluon's ``SymbolBlock`` (MXNet 1.9.1's ``gluon.SymbolBlock``): a HybridBlock made from a
Symbol, as ``SymbolBlock.imports`` reads an exported model."""
from __future__ import annotations

import copy

import numpy as np

from .. import symbol
from ..base import MXNetError
from ..ndarray.ndarray import NDArray
from ..ndarray.serialization import STORAGE_ROW_SPARSE as _STORAGE_ROW_SPARSE
from ..symbol.symbol import Symbol
from .hybrid_block import HybridBlock, _flatten, _regroup
from .parameter import ParameterDict

__all__ = ["SymbolBlock"]


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
