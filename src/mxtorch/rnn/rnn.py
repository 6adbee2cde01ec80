"""Checkpoint helpers for models built with ``mx.rnn`` cells (MXNet 1.9.1's ``mx.rnn.rnn``).

The saved ``.params`` hold each cell's weights unpacked (one array per gate, as
``cell.unpack_weights`` names them) so files are readable whatever cell type
(fused or not) built the graph; loading packs them back for the given cells.
"""
from __future__ import annotations

import warnings

from ..base import MXNetError
from ..model import save_checkpoint, load_checkpoint
from .rnn_cell import BaseRNNCell

__all__ = ["rnn_unroll", "save_rnn_checkpoint", "load_rnn_checkpoint", "do_rnn_checkpoint"]


def _cell_list(cells, function):
    if isinstance(cells, BaseRNNCell):
        return [cells]
    cells = list(cells)
    for cell in cells:
        if not isinstance(cell, BaseRNNCell):
            raise MXNetError(f"{function}: cells must be an RNN cell or a list of them, got {type(cell).__name__}")
    return cells


def rnn_unroll(cell, length, inputs=None, begin_state=None, input_prefix="", layout="NTC"):
    """Deprecated form of ``cell.unroll(length, inputs, begin_state, layout)``; warns.

    ``input_prefix`` named the input variables that ``inputs=None`` used to create; that
    form is gone, so ``inputs`` is required (MXNetError otherwise) and ``input_prefix`` is
    ignored.  (MXNet 1.9.1 passed ``input_prefix`` on to ``unroll``, which rejected it, so
    the function always raised TypeError there.)  Returns ``(outputs, states)``.
    """
    warnings.warn("rnn_unroll is deprecated. Please call cell.unroll directly.")
    if not isinstance(cell, BaseRNNCell):
        raise MXNetError(f"rnn_unroll: cell must be an RNN cell, got {type(cell).__name__}")
    return cell.unroll(length=length, inputs=inputs, begin_state=begin_state, layout=layout)


def save_rnn_checkpoint(cells, prefix, epoch, symbol, arg_params, aux_params):
    """Write ``prefix-symbol.json`` and ``prefix-%04d.params`` (``mx.model.save_checkpoint``)
    with the weights of ``cells`` (one cell or a list) unpacked per gate first."""
    for cell in _cell_list(cells, "save_rnn_checkpoint"):
        arg_params = cell.unpack_weights(arg_params)
    save_checkpoint(prefix, epoch, symbol, arg_params, aux_params)


def load_rnn_checkpoint(cells, prefix, epoch):
    """``(symbol, arg_params, aux_params)`` from ``mx.model.load_checkpoint(prefix, epoch)``
    with the per-gate weights of ``cells`` (one cell or a list) packed back into the
    cells' parameter arrays."""
    symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
    for cell in _cell_list(cells, "load_rnn_checkpoint"):
        arg_params = cell.pack_weights(arg_params)
    return symbol, arg_params, aux_params


def do_rnn_checkpoint(cells, prefix, period=1):
    """An epoch-end callback ``f(iter_no, sym, arg, aux)`` for ``fit`` that calls
    :func:`save_rnn_checkpoint` with epoch ``iter_no + 1`` every ``period`` epochs
    (``period`` below 1 counts as 1)."""
    period = int(max(1, period))
    cells = _cell_list(cells, "do_rnn_checkpoint")

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            save_rnn_checkpoint(cells, prefix, iter_no + 1, sym, arg, aux)
    return _callback
