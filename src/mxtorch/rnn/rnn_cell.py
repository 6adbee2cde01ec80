"""``mxnet.rnn.rnn_cell``: MXNet 1.9.1's module of the symbolic recurrent cells.

The cells live in files by family and are re-exported here under MXNet's path:

- :mod:`.base_cell`: :class:`RNNParams`, :class:`BaseRNNCell` (naming, layouts and gate
  order are described there);
- :mod:`.dense_cells`: :class:`RNNCell`, :class:`LSTMCell`, :class:`GRUCell`;
- :mod:`.fused_cell`: :class:`FusedRNNCell`;
- :mod:`.container_cells`: :class:`SequentialRNNCell`, :class:`BidirectionalCell`,
  :class:`DropoutCell`;
- :mod:`.modifier_cells`: :class:`ModifierCell`, :class:`ZoneoutCell`, :class:`ResidualCell`;
- :mod:`.conv_cells`: :class:`BaseConvRNNCell`, :class:`ConvRNNCell`, :class:`ConvLSTMCell`,
  :class:`ConvGRUCell`.
"""
from __future__ import annotations

from .base_cell import BaseRNNCell, RNNParams, _normalize_sequence  # noqa: F401
from .container_cells import BidirectionalCell, DropoutCell, SequentialRNNCell
from .conv_cells import BaseConvRNNCell, ConvGRUCell, ConvLSTMCell, ConvRNNCell
from .dense_cells import GRUCell, LSTMCell, RNNCell
from .fused_cell import FusedRNNCell
from .modifier_cells import ModifierCell, ResidualCell, ZoneoutCell
# names MXNet 1.9.1's mxnet.rnn.rnn_cell had in its namespace from its ctypes binding
from ..base import numeric_types, string_types  # noqa: E402,F401

__all__ = ["RNNParams", "BaseRNNCell", "RNNCell", "LSTMCell", "GRUCell", "FusedRNNCell",
           "SequentialRNNCell", "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell",
           "BidirectionalCell", "BaseConvRNNCell", "ConvRNNCell", "ConvLSTMCell", "ConvGRUCell"]
