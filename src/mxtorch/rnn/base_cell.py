"""The base of the symbolic recurrent cells (MXNet 1.9.1's ``mx.rnn``): :class:`RNNParams`,
:class:`BaseRNNCell` (begin states, weight packing, ``unroll``) and the sequence helpers the
cells share.

A cell builds the symbols of one time step (``cell(inputs, states)``) or of a
whole sequence (``cell.unroll(length, inputs)``).  The graphs are the ones
MXNet 1.9.1 builds, node for node: the same operators created in the same
order, so automatic names (``_plus0``, ``activation3``, ``split0``) and the
``-symbol.json`` written from them are identical, and checkpoints made with
MXNet's cells load into graphs built here.

Naming, for a cell with prefix ``P`` (``'lstm_'``):

- parameters ``P i2h_weight``, ``P i2h_bias``, ``P h2h_weight``,
  ``P h2h_bias`` (``FusedRNNCell``: one vector ``P parameters``);
- the nodes of step ``t`` are prefixed ``P t<t>_`` (``lstm_t0_i2h``);
- begin states are ``P begin_state_<k>``.

Tensor layouts: a step's input is ``(batch, features)`` (convolutional cells:
``(batch, channel, height, width)`` for ``conv_layout='NCHW'``); a sequence
is ``(batch, time, features)`` for layout ``'NTC'`` and
``(time, batch, features)`` for ``'TNC'``.  Unknown batch sizes in state
shapes are written 0 and filled in by shape inference.

Gate order inside the packed ``i2h`` / ``h2h`` matrices (rows): LSTM
input, forget, candidate (``c``), output; GRU reset, update, candidate
(``o``).  ``unpack_weights`` splits them into ``P i2h_i_weight`` ... and
``pack_weights`` joins them back.

Where MXNet asserted, mxtorch raises :class:`mxtorch.base.MXNetError` with a
message naming the cell and the argument.
"""
from __future__ import annotations

import torch

from .. import symbol
from ..base import MXNetError
from ..ndarray import NDArray

__all__ = ["RNNParams", "BaseRNNCell"]


# -- helpers over several cells ---------------------------------------------------------------------
def _state_info_of(cells):
    return [info for cell in cells for info in cell.state_info]


def _begin_state_of(cells, **kwargs):
    return [state for cell in cells for state in cell.begin_state(**kwargs)]


def _unpack_weights_of(cells, args):
    for cell in cells:
        args = cell.unpack_weights(args)
    return args


def _pack_weights_of(cells, args):
    for cell in cells:
        args = cell.pack_weights(args)
    return args


def _concatenate(arrays):
    """Join NDArrays along axis 0 on the first array's device (MXNet's ``nd.concatenate``)."""
    first = arrays[0]
    return NDArray(torch.cat([a._tensor.to(first._tensor.device) for a in arrays], dim=0), first.context)


def _pop(args, name, function):
    if name not in args:
        raise MXNetError(f"{function}: parameter {name!r} not found; given {sorted(args)}")
    return args.pop(name)


def _time_axis(layout, function):
    if not isinstance(layout, str) or "T" not in layout:
        raise MXNetError(f"{function}: layout must contain 'T' (e.g. 'NTC' or 'TNC'), got {layout!r}")
    return layout.find("T")


def _normalize_sequence(length, inputs, layout, merge, in_layout=None):
    """Bring ``inputs`` (one Symbol holding the whole sequence, or a list of per-step
    Symbols) into the requested form: a list of ``length`` steps when ``merge`` is False,
    one Symbol with the time axis of ``layout`` when ``merge`` is True, unchanged when
    ``merge`` is None.  Returns ``(inputs, time_axis)``.

    Splitting uses ``split`` (squeezing the time axis) and merging ``expand_dims`` +
    ``Concat``, as MXNet does, so the same nodes appear in the graph.
    """
    if inputs is None:
        raise MXNetError("unroll: inputs=None is not supported (MXNet 1.x removed it); create the input "
                         "symbol(s) first, e.g. mx.sym.Variable('data'), and pass them")
    axis = _time_axis(layout, "unroll")
    in_axis = _time_axis(in_layout, "unroll") if in_layout is not None else axis
    if isinstance(inputs, symbol.Symbol):
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise MXNetError("unroll: inputs is a grouped symbol with "
                                 f"{len(inputs.list_outputs())} outputs; pass list(inputs) or one symbol "
                                 "holding the whole sequence")
            inputs = list(symbol.split(inputs, axis=in_axis, num_outputs=length, squeeze_axis=1))
    else:
        inputs = list(inputs)
        if length is not None and len(inputs) != length:
            raise MXNetError(f"unroll: length={length} but {len(inputs)} input symbols were given")
        if merge is True:
            inputs = [symbol.expand_dims(step, axis=axis) for step in inputs]
            inputs = symbol.Concat(*inputs, dim=axis)
            in_axis = axis
    if isinstance(inputs, symbol.Symbol) and axis != in_axis:
        inputs = symbol.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis


class RNNParams:
    """Container of parameter variables, shared between cells that should use the same
    weights.  ``get(name)`` returns the variable ``prefix + name``, creating it on first
    use (keyword arguments go to ``mx.sym.Variable``: ``init``, ``shape``, ...)."""

    def __init__(self, prefix=""):
        self._prefix = prefix
        self._params = {}

    def get(self, name, **kwargs):
        """The variable ``prefix + name``; created with ``mx.sym.Variable(prefix + name,
        **kwargs)`` the first time, returned as is afterwards (later kwargs are ignored)."""
        full_name = self._prefix + name
        if full_name not in self._params:
            self._params[full_name] = symbol.Variable(full_name, **kwargs)
        return self._params[full_name]


class BaseRNNCell:
    """Base class of the recurrent cells.

    ``prefix`` starts the names of the cell's nodes and, when ``params`` is None, of its
    parameter variables; ``params`` (an :class:`RNNParams`) shares parameters with other
    cells.  Subclasses define ``state_info`` and ``__call__``.
    """

    def __init__(self, prefix="", params=None):
        if params is None:
            params = RNNParams(prefix)
            self._own_params = True
        else:
            self._own_params = False
        self._prefix = prefix
        self._params = params
        self._modified = False
        self.reset()

    def reset(self):
        """Restart the step and begin-state counters (so a new unroll names its nodes
        ``<prefix>t0_...`` again); also resets the cells inside a container cell."""
        self._init_counter = -1
        self._counter = -1
        for cell in getattr(self, "_cells", ()):
            cell.reset()

    def __call__(self, inputs, states):
        """One time step: ``inputs`` a Symbol ``(batch, features)``, ``states`` the list from
        ``begin_state()`` or from the previous step.  Returns ``(output, new_states)``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement a time step")

    @property
    def params(self):
        """The :class:`RNNParams` holding this cell's parameter variables.  Reading it marks
        the container as shared (MXNet's rule, checked by ``SequentialRNNCell.add``)."""
        self._own_params = False
        return self._params

    @property
    def state_info(self):
        """One dict per state: ``{'shape': ..., '__layout__': ...}`` (batch dimension 0)."""
        raise NotImplementedError(f"{type(self).__name__} does not define state_info")

    @property
    def state_shape(self):
        """The ``shape`` entry of every ``state_info`` dict."""
        return [info["shape"] for info in self.state_info]

    @property
    def _gate_names(self):
        return ()

    def _check_not_modified(self):
        if self._modified:
            raise MXNetError(f"{type(self).__name__} (prefix {self._prefix!r}) is wrapped by a modifier cell "
                             "(ZoneoutCell, ResidualCell, ...); call the modifier cell instead")

    def begin_state(self, func=symbol.zeros, **kwargs):
        """Initial states, one Symbol per ``state_info`` entry, created as
        ``func(name='<prefix>begin_state_<k>', shape=..., __layout__=..., **kwargs)``
        (``func``: ``mx.sym.zeros`` by default; ``mx.sym.Variable`` to feed states as inputs;
        ``mx.sym.uniform`` ...).  As in MXNet the info dicts update ``kwargs`` in turn.
        Raises MXNetError if the cell is wrapped by a modifier cell."""
        self._check_not_modified()
        states = []
        for info in self.state_info:
            self._init_counter += 1
            if info is not None:
                kwargs.update(info)
            states.append(func(name=f"{self._prefix}begin_state_{self._init_counter}", **kwargs))
        return states

    def unpack_weights(self, args):
        """A copy of ``args`` (name -> NDArray) where each packed ``<prefix>i2h_weight`` /
        ``h2h_weight`` / biases is replaced by one array per gate, named
        ``<prefix>i2h<gate>_weight`` (``lstm_i2h_f_weight``), each ``(num_hidden, ...)``."""
        args = dict(args)
        if not self._gate_names:
            return args
        hidden = self._num_hidden
        for group in ("i2h", "h2h"):
            weight = _pop(args, f"{self._prefix}{group}_weight", "unpack_weights")
            bias = _pop(args, f"{self._prefix}{group}_bias", "unpack_weights")
            for position, gate in enumerate(self._gate_names):
                rows = slice(position * hidden, (position + 1) * hidden)
                args[f"{self._prefix}{group}{gate}_weight"] = weight[rows].copy()
                args[f"{self._prefix}{group}{gate}_bias"] = bias[rows].copy()
        return args

    def pack_weights(self, args):
        """The inverse of :meth:`unpack_weights`: per-gate arrays are concatenated (gate order
        of the cell) into ``<prefix>i2h_weight``, ``<prefix>i2h_bias``, ...."""
        args = dict(args)
        if not self._gate_names:
            return args
        for group in ("i2h", "h2h"):
            weights, biases = [], []
            for gate in self._gate_names:
                weights.append(_pop(args, f"{self._prefix}{group}{gate}_weight", "pack_weights"))
                biases.append(_pop(args, f"{self._prefix}{group}{gate}_bias", "pack_weights"))
            args[f"{self._prefix}{group}_weight"] = _concatenate(weights)
            args[f"{self._prefix}{group}_bias"] = _concatenate(biases)
        return args

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """Apply the cell ``length`` times.

        ``inputs``: one Symbol ``(batch, length, ...)`` for layout 'NTC' or
        ``(length, batch, ...)`` for 'TNC' (split into steps), or a list of ``length``
        Symbols ``(batch, ...)``.  ``begin_state``: list of state Symbols (default
        ``begin_state()``).  ``merge_outputs``: True gives one Symbol with the time axis of
        ``layout``, False a list of per-step Symbols, None whichever is at hand.
        Returns ``(outputs, states)``, the states after the last step.
        """
        self.reset()
        inputs, _ = _normalize_sequence(length, inputs, layout, False)
        if begin_state is None:
            begin_state = self.begin_state()
        states = begin_state
        outputs = []
        for step in range(length):
            output, states = self(inputs[step], states)
            outputs.append(output)
        outputs, _ = _normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, inputs, activation, **kwargs):
        """``Activation(act_type=activation)`` for a string, else ``activation(inputs, **kwargs)``."""
        if isinstance(activation, str):
            return symbol.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs, **kwargs)
