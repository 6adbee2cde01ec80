"""The recording layer: what ``mx.autograd`` records, held below the operators.

- the per-thread flags of ``mx.autograd`` (``is_recording``, ``is_training``, the ``record`` /
  ``pause`` / ``train_mode`` / ``predict_mode`` scopes), read by the operator registry, the
  imperative front end and the executor;
- gradient carriers: the float tensor through which torch's autograd reaches an integer
  tensor that MXNet would differentiate;
- the variables' owners (``attach_grad`` / ``mark_variables`` arrays) and the record-time graph
  that ``mx.autograd.get_symbol`` rebuilds (one small node per recorded operator call).

It imports nothing of mxtorch but ``exceptions``: every layer above reads the same state, so
``mx.autograd.record()`` is seen by ``ops.registry.record_call`` however either was imported.
The flags are per thread, as MXNet's were.
"""
from __future__ import annotations

import threading

import torch

_state = threading.local()


def is_training():
    """Whether operators run in training mode now (Dropout drops, BatchNorm uses batch statistics)."""
    return getattr(_state, "training", False)


def is_recording():
    """Whether NDArray operations are being recorded for differentiation now."""
    return getattr(_state, "recording", False)


def set_training(train_mode):
    """Set the training flag of this thread; returns the previous value."""
    previous = is_training()
    _state.training = bool(train_mode)
    return previous


def set_recording(is_record):
    """Set the recording flag of this thread; returns the previous value."""
    previous = is_recording()
    _state.recording = bool(is_record)
    return previous


class _Scope:
    def __init__(self, recording, training):
        self._recording = recording
        self._training = training
        self._previous = None

    def __enter__(self):
        self._previous = (is_recording(), is_training())
        if self._recording is not None:
            set_recording(self._recording)
        if self._training is not None:
            set_training(self._training)

    def __exit__(self, *exc):
        set_recording(self._previous[0])
        set_training(self._previous[1])


def record(train_mode=True):
    """Scope that records NDArray operations; ``train_mode`` sets the training flag inside it."""
    return _Scope(True, train_mode)


def pause(train_mode=False):
    """Scope that stops recording; ``train_mode`` sets the training flag inside it."""
    return _Scope(False, train_mode)


def train_mode():
    """Scope in training mode; recording is left as it is."""
    return _Scope(None, True)


def predict_mode():
    """Scope in inference mode; recording is left as it is."""
    return _Scope(None, False)


# -- gradient carriers and variables -------------------------------------------------------------
def gradient_carrier(tensor):
    """The tensor through which autograd reaches ``tensor``: itself, or for an integer tensor
    that MXNet would differentiate (an integer variable marked with ``attach_grad``, or an
    integer output of a recorded operator: ``Cast`` to int32, ``topk`` / ``argsort`` indices,
    ``take`` of an integer array) the float tensor attached to it, since torch records no
    gradient on integer tensors.  MXNet differentiated integer arrays: a gradient through
    ``Cast(int32)`` then ``Cast(float32)`` passes (truncated to integers), and an integer
    variable receives (truncated) gradients."""
    if tensor is None or tensor.requires_grad:
        return tensor
    return getattr(tensor, "_mx_declared_gradient_carrier", tensor)


def carrier_dtype(dtype):
    """The float dtype of the gradient carrier of an integer tensor of ``dtype`` (float64 for
    64-bit integers, whose values float32 does not hold exactly; else float32)."""
    return torch.float64 if dtype in (torch.int64, torch.uint64) else torch.float32


def attach_carrier(tensor):
    """Give the integer tensor ``tensor`` a new float carrier leaf (zeros, recording gradients)
    and return the carrier: how an integer variable is differentiated (``attach_grad``)."""
    carrier = torch.zeros(tensor.shape, dtype=carrier_dtype(tensor.dtype), device=tensor.device,
                          requires_grad=True)
    tensor._mx_declared_gradient_carrier = carrier
    return carrier


def grad_owner(tensor):
    """The NDArray that ``tensor`` is the variable of (attach_grad / mark_variables), or None."""
    owner = getattr(tensor, "_mx_grad_owner", None)
    return owner() if owner is not None else None


# -- the record-time graph (for mx.autograd.get_symbol) -------------------------------------------
class RecordedCall:
    """An operator call made inside ``record()``, kept for :func:`get_symbol`: the Operator
    (its attributes) and its inputs as ``(RecordedCall or RecordedLeaf, output index)``.
    Holds no tensors, so it keeps no memory alive."""

    __slots__ = ("op", "inputs", "name")

    def __init__(self, op, inputs):
        self.op = op
        self.inputs = inputs
        # MXNet named the nodes at record time, counting every recorded call of the thread
        count = getattr(_state, "recorded_calls", 0)
        _state.recorded_calls = count + 1
        self.name = f"node_{count}"


class RecordedLeaf:
    """An input of recorded calls that no recorded call computed: a variable (``attach_grad``)
    or a constant array."""

    __slots__ = ("variable", "order")

    def __init__(self, variable):
        self.variable = variable
        # MXNet numbered the variables of a rebuilt graph in the order the arrays entered the
        # recording machinery (attach_grad, or first use inside record())
        count = getattr(_state, "recorded_leaves", 0)
        _state.recorded_leaves = count + 1
        self.order = count


def recorded_entry(tensor):
    """The ``(call or leaf, output index)`` that produced ``tensor`` (a leaf made and kept on it
    when no recorded call did)."""
    entry = getattr(tensor, "_mx_recorded", None)
    if entry is None:
        entry = (RecordedLeaf(grad_owner(gradient_carrier(tensor)) is not None), 0)
        tensor._mx_recorded = entry
    return entry


def note_operator_call(op, inputs, outputs):
    """Record, for :func:`get_symbol`, that operator ``op`` (an Operator instance) computed the
    tensors ``outputs`` from the tensors ``inputs`` (arguments then aux states).  Called by the
    imperative front end (``mx.nd``) for each operator call inside ``record()`` only."""
    call = RecordedCall(op, [recorded_entry(tensor) for tensor in inputs])
    for index, tensor in enumerate(outputs):
        tensor._mx_recorded = (call, index)


def differentiate(outputs, inputs, grad_outputs, retain_graph=None, create_graph=False):
    """``torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
    allow_unused=True)``: the gradients of ``outputs`` (tensors) with respect to ``inputs``, given
    the gradient of each output (a tensor of its shape); None for an input they do not reach.

    The one way mxtorch runs torch's autograd engine.  When every given gradient is a tensor of
    its output's shape and kind, it goes to the engine directly: ``torch.autograd.grad``'s own
    check of given gradients imports ``torch.fx.experimental.symbolic_shapes`` (and with it
    sympy: ~34 MiB and 1-2 s) on its first call, which a training process would otherwise pay
    for at its first ``backward`` (docs/performance.md, "Start-up and memory").  Anything else (a missing
    or mismatched gradient, tensor subclasses, a torch without the engine entry point) takes
    ``torch.autograd.grad`` itself, with its errors (RuntimeError)."""
    outputs, inputs, grad_outputs = tuple(outputs), tuple(inputs), tuple(grad_outputs)
    run = getattr(getattr(torch.autograd, "graph", None), "_engine_run_backward", None)
    direct = (run is not None and len(outputs) == len(grad_outputs)
              and all(type(t) is torch.Tensor for t in outputs + inputs)
              and all(type(g) is torch.Tensor and g.shape == o.shape and g.is_complex() == o.is_complex()
                      and g.device == o.device for o, g in zip(outputs, grad_outputs)))
    if not direct:
        return torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph=retain_graph,
                                   create_graph=create_graph, allow_unused=True)
    if retain_graph is None:
        retain_graph = create_graph
    return run(outputs, grad_outputs, retain_graph, create_graph, inputs, True, accumulate_grad=False)
