"""The cells that wrap one base cell and change its step: :class:`ModifierCell`,
:class:`ZoneoutCell`, :class:`ResidualCell`."""
from __future__ import annotations

from .. import symbol
from ..base import MXNetError
from .base_cell import BaseRNNCell, _normalize_sequence
from .container_cells import BidirectionalCell
from .fused_cell import FusedRNNCell

__all__ = ["ModifierCell", "ZoneoutCell", "ResidualCell"]


class ModifierCell(BaseRNNCell):
    """Base of the cells that wrap another cell (``base_cell``) and change its step.
    After wrapping, the base cell must not be used directly (its ``begin_state`` raises)."""

    def __init__(self, base_cell):
        super().__init__()
        base_cell._modified = True
        self.base_cell = base_cell

    @property
    def params(self):
        self._own_params = False
        return self.base_cell.params

    @property
    def state_info(self):
        return self.base_cell.state_info

    def begin_state(self, init_sym=symbol.zeros, **kwargs):
        """The base cell's begin states (named with the base cell's prefix), made by
        ``init_sym`` (also accepted as ``func=``, the name the other cells use, so that
        container cells can pass it on)."""
        self._check_not_modified()
        if "func" in kwargs:
            init_sym = kwargs.pop("func")
        self.base_cell._modified = False
        try:
            begin = self.base_cell.begin_state(func=init_sym, **kwargs)
        finally:
            self.base_cell._modified = True
        return begin

    def unpack_weights(self, args):
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args):
        return self.base_cell.pack_weights(args)

    def __call__(self, inputs, states):
        raise NotImplementedError(f"{type(self).__name__} does not implement a time step")


def _contains_bidirectional(cell):
    return isinstance(cell, BidirectionalCell) or any(_contains_bidirectional(c) for c in getattr(cell, "_cells", ()))


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al. 2016) on a base cell: in training each output element
    keeps the previous step's value with probability ``zoneout_outputs`` and each state
    element its previous value with probability ``zoneout_states`` (masks from
    ``Dropout`` of ones, so inference is the base cell unchanged)."""

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        if isinstance(base_cell, FusedRNNCell):
            raise MXNetError("ZoneoutCell: FusedRNNCell does not support zoneout; unfuse() it first")
        if _contains_bidirectional(base_cell):
            raise MXNetError("ZoneoutCell: a BidirectionalCell cannot be stepped; wrap the cells inside it instead")
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self.prev_output = None

    def reset(self):
        super().reset()
        self.prev_output = None

    def __call__(self, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def keep_mask(rate, like):
            return symbol.Dropout(symbol.ones_like(like), p=rate)

        previous = self.prev_output if self.prev_output is not None else symbol.zeros((0, 0))
        if self.zoneout_outputs != 0.:
            output = symbol.where(keep_mask(self.zoneout_outputs, next_output), next_output, previous)
        else:
            output = next_output
        if self.zoneout_states != 0.:
            states = [symbol.where(keep_mask(self.zoneout_states, new), new, old)
                      for new, old in zip(next_states, states)]
        else:
            states = next_states
        self.prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """Residual connection (Wu et al. 2016): output = base cell output + input, added with
    ``elemwise_add`` named ``<output name>_plus_residual``.  Input and output sizes must
    agree."""

    def __call__(self, inputs, states):
        output, states = self.base_cell(inputs, states)
        output = symbol.elemwise_add(output, inputs, name=f"{output.name}_plus_residual")
        return output, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """Unroll the base cell, then add the inputs (merged or per step, as the outputs)."""
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state, layout=layout,
                                                    merge_outputs=merge_outputs)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, symbol.Symbol)
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if merge_outputs:
            outputs = symbol.elemwise_add(outputs, inputs, name=f"{outputs.name}_plus_residual")
        else:
            outputs = [symbol.elemwise_add(output, step, name=f"{output.name}_plus_residual")
                       for output, step in zip(outputs, inputs)]
        return outputs, states
