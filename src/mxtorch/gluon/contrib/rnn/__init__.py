"""``mx.gluon.contrib.rnn``: convolutional RNN/LSTM/GRU cells, LSTMPCell, VariationalDropoutCell."""
from .conv_rnn_cell import *  # noqa: F401,F403
from .rnn_cell import *  # noqa: F401,F403
from . import conv_rnn_cell, rnn_cell

__all__ = conv_rnn_cell.__all__ + rnn_cell.__all__
