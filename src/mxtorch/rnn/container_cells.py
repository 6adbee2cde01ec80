"""The cells that combine other cells: :class:`SequentialRNNCell` (a stack),
:class:`BidirectionalCell` (forward and backward in time), and :class:`DropoutCell`, the
parameter-free cell put between stacked layers."""
from __future__ import annotations

from .. import symbol
from ..base import MXNetError, numeric_types
from .base_cell import (BaseRNNCell, _begin_state_of, _normalize_sequence, _pack_weights_of, _state_info_of,
                        _unpack_weights_of)

__all__ = ["SequentialRNNCell", "BidirectionalCell", "DropoutCell"]


class SequentialRNNCell(BaseRNNCell):
    """A stack of cells: each cell's output is the next cell's input.  The states are the
    concatenation of the cells' states.  ``params`` may only be given when the added cells
    have not read their own parameter container (MXNet's rule)."""

    def __init__(self, params=None):
        super().__init__(prefix="", params=params)
        self._override_cell_params = params is not None
        self._cells = []

    def add(self, cell):
        """Append ``cell`` to the stack."""
        self._cells.append(cell)
        if self._override_cell_params:
            if not cell._own_params:
                raise MXNetError("SequentialRNNCell.add: give params either to the SequentialRNNCell or to "
                                 f"its cells, not both ({type(cell).__name__} with prefix {cell._prefix!r} "
                                 "already uses its parameter container)")
            cell.params._params.update(self.params._params)
        self.params._params.update(cell.params._params)

    @property
    def state_info(self):
        return _state_info_of(self._cells)

    def begin_state(self, **kwargs):
        """The begin states of every cell, in order (keyword arguments as in
        :meth:`BaseRNNCell.begin_state`)."""
        self._check_not_modified()
        return _begin_state_of(self._cells, **kwargs)

    def unpack_weights(self, args):
        return _unpack_weights_of(self._cells, args)

    def pack_weights(self, args):
        return _pack_weights_of(self._cells, args)

    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        position = 0
        for cell in self._cells:
            if isinstance(cell, BidirectionalCell):
                raise MXNetError("SequentialRNNCell: a BidirectionalCell inside cannot be stepped; use unroll")
            count = len(cell.state_info)
            inputs, cell_states = cell(inputs, states[position:position + count])
            position += count
            next_states.extend(cell_states)
        return inputs, next_states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """Unroll each cell over the whole sequence in turn (``merge_outputs`` applies to the
        last cell; the others return whatever is at hand)."""
        self.reset()
        if begin_state is None:
            begin_state = self.begin_state()
        position = 0
        next_states = []
        last = len(self._cells) - 1
        for index, cell in enumerate(self._cells):
            count = len(cell.state_info)
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=begin_state[position:position + count],
                                         layout=layout, merge_outputs=merge_outputs if index == last else None)
            position += count
            next_states.extend(states)
        return inputs, next_states


class DropoutCell(BaseRNNCell):
    """Dropout on the input (rate ``dropout``, training only); no states, no parameters."""

    def __init__(self, dropout, prefix="dropout_", params=None):
        super().__init__(prefix, params)
        if not isinstance(dropout, numeric_types) or isinstance(dropout, bool):
            raise MXNetError(f"DropoutCell: dropout must be a number, got {type(dropout).__name__}")
        self.dropout = dropout

    @property
    def state_info(self):
        return []

    def __call__(self, inputs, states):
        if self.dropout > 0:
            inputs = symbol.Dropout(data=inputs, p=self.dropout)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """One Dropout over the whole sequence when it is (or is merged into) one Symbol,
        else one per step."""
        self.reset()
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, symbol.Symbol):
            return self(inputs, [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout, merge_outputs=merge_outputs)

class BidirectionalCell(BaseRNNCell):
    """Runs ``l_cell`` forward and ``r_cell`` backward in time and concatenates their
    outputs on the feature axis (``Concat`` named ``<output_prefix>t<k>`` per step, or
    ``<output_prefix>out`` merged).  ``unroll`` returns the states as
    ``[l_states, r_states]`` (a nested list, as MXNet).  Cannot be stepped."""

    def __init__(self, l_cell, r_cell, params=None, output_prefix="bi_"):
        super().__init__("", params=params)
        self._output_prefix = output_prefix
        self._override_cell_params = params is not None
        if self._override_cell_params:
            if not (l_cell._own_params and r_cell._own_params):
                raise MXNetError("BidirectionalCell: give params either to the BidirectionalCell or to its "
                                 "cells, not both")
            l_cell.params._params.update(self.params._params)
            r_cell.params._params.update(self.params._params)
        self.params._params.update(l_cell.params._params)
        self.params._params.update(r_cell.params._params)
        self._cells = [l_cell, r_cell]

    def unpack_weights(self, args):
        return _unpack_weights_of(self._cells, args)

    def pack_weights(self, args):
        return _pack_weights_of(self._cells, args)

    def __call__(self, inputs, states):
        raise NotImplementedError("BidirectionalCell cannot be stepped; use unroll")

    @property
    def state_info(self):
        return _state_info_of(self._cells)

    def begin_state(self, **kwargs):
        """The left cell's begin states, then the right cell's."""
        self._check_not_modified()
        return _begin_state_of(self._cells, **kwargs)

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        inputs, axis = _normalize_sequence(length, inputs, layout, False)
        if begin_state is None:
            begin_state = self.begin_state()
        l_cell, r_cell = self._cells
        split = len(l_cell.state_info)
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=begin_state[:split], layout=layout,
                                            merge_outputs=merge_outputs)
        r_outputs, r_states = r_cell.unroll(length, inputs=list(reversed(inputs)), begin_state=begin_state[split:],
                                            layout=layout, merge_outputs=merge_outputs)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, symbol.Symbol) and isinstance(r_outputs, symbol.Symbol)
            if not merge_outputs:
                if isinstance(l_outputs, symbol.Symbol):
                    l_outputs = list(symbol.SliceChannel(l_outputs, axis=axis, num_outputs=length, squeeze_axis=1))
                if isinstance(r_outputs, symbol.Symbol):
                    r_outputs = list(symbol.SliceChannel(r_outputs, axis=axis, num_outputs=length, squeeze_axis=1))
        if merge_outputs:
            l_outputs = [l_outputs]
            r_outputs = [symbol.reverse(r_outputs, axis=axis)]
        else:
            r_outputs = list(reversed(r_outputs))
        outputs = []
        for step, (left, right) in enumerate(zip(l_outputs, r_outputs)):
            name = f"{self._output_prefix}out" if merge_outputs else f"{self._output_prefix}t{step}"
            outputs.append(symbol.Concat(left, right, dim=1 + int(bool(merge_outputs)), name=name))
        if merge_outputs:
            outputs = outputs[0]
        return outputs, [l_states, r_states]
