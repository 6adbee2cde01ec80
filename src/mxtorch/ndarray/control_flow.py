"""``mx.nd.contrib.foreach / while_loop / cond``: imperative control flow (MXNet 1.9.1's).

The loops are Python loops over NDArray operations, so inside ``mx.autograd.record()`` every
step is recorded and gradients flow through all of them.  The symbolic forms, which build one
graph node, are in ``mxtorch.symbol.control_flow``.
"""
from __future__ import annotations

from ..base import MXNetError
from ..util import flatten_nested, regroup_nested
from .array_functions import concat
from .creation import zeros
from .ndarray import NDArray, _call

__all__ = ["foreach", "while_loop", "cond"]


def _flatten(args, where):
    """``(flat list of NDArrays, format)``: format 0 for one array, a list for a (nested) list."""
    return flatten_nested(args, lambda item: 0 if isinstance(item, NDArray) else None, lambda item: MXNetError(
        f"{where} must be an NDArray or a (nested) list of NDArrays, got {type(item).__name__}"))



def _scalar(value, kind, label, function):
    if hasattr(value, "asscalar"):
        value = value.asscalar()
    try:
        return kind(value)
    except (TypeError, ValueError):
        raise MXNetError(f"{function}: cannot convert {label} {value!r} to {kind.__name__}") from None


def _stack(arrays):
    return _call("stack", *arrays, axis=0)


def foreach(body, data, init_states):
    """Run ``body(data_slice, states) -> (outputs, new_states)`` for each slice of ``data`` along
    axis 0 (MXNet's ``mx.nd.contrib.foreach``).

    ``data`` is an NDArray or a nested list of them (all sliced together; the first array's
    length is the number of steps), ``init_states`` likewise.  Returns ``(outputs, states)``:
    each output stacked over the steps, shape ``(T,) + step shape``, in the nesting ``body``
    returned, and the final states.  MXNetError when an input is not an NDArray.
    """
    flat_data, _ = _flatten(data, "foreach: data")
    _flatten(init_states, "foreach: init_states")
    single = isinstance(data, NDArray)
    length = flat_data[0].shape[0]
    states = init_states
    steps, out_fmt = [], None
    for t in range(length):
        slices = data[t] if single else regroup_nested([d[t] for d in flat_data], _flatten(data, "data")[1])[0]
        outputs, states = body(slices, states)
        flat_out, out_fmt = _flatten(outputs, "foreach: the body's outputs")
        steps.append(flat_out)
    if out_fmt is None:
        return [], states
    stacked = [_stack(items) for items in zip(*steps)]
    outputs, _ = regroup_nested(stacked, out_fmt)
    return outputs, states


def while_loop(cond, func, loop_vars, max_iterations=None):
    """Run ``func(*loop_vars) -> (step_output, new_loop_vars)`` while ``cond(*loop_vars)`` is
    true, at most ``max_iterations`` times (MXNet's ``mx.nd.contrib.while_loop``).

    Returns ``(outputs, final_loop_vars)``: each step output stacked on axis 0 and padded to
    ``max_iterations`` rows (the padding rows are zeros; MXNet left them uninitialised), and the
    final loop variables (one NDArray when ``loop_vars`` was one).  MXNetError when
    ``max_iterations`` is missing, ``loop_vars`` is empty, the number of loop variables or step
    outputs changes, or the step outputs' shapes differ between steps.
    """
    if max_iterations is None:
        raise MXNetError("while_loop: max_iterations should be specified")
    max_iterations = _scalar(max_iterations, int, "max_iterations", "while_loop")
    single = isinstance(loop_vars, NDArray)
    loop_vars = [loop_vars] if single else list(loop_vars)
    if not loop_vars:
        raise MXNetError("while_loop: loop_vars should contain at least one element")
    steps, out_fmt = [], None
    while len(steps) < max_iterations and _scalar(cond(*loop_vars), bool, "the value of cond", "while_loop"):
        step_output, new_vars = func(*loop_vars)
        step_output = [] if step_output is None else step_output
        new_vars = [] if new_vars is None else new_vars
        new_vars = [new_vars] if isinstance(new_vars, NDArray) else list(new_vars)
        if len(new_vars) != len(loop_vars):
            raise MXNetError(f"while_loop: func returned {len(new_vars)} loop_vars, {len(loop_vars)} were given")
        flat, out_fmt = _flatten(list(step_output) if isinstance(step_output, tuple) else step_output,
                                 "while_loop: step output")
        if steps and len(flat) != len(steps[0]):
            raise MXNetError(f"while_loop: step {len(steps)} gave {len(flat)} outputs, step 0 gave {len(steps[0])}")
        steps.append(flat)
        loop_vars = new_vars
    stacked = []
    for position, items in enumerate(zip(*steps)):
        shapes = {tuple(x.shape) for x in items}
        if len(shapes) > 1:
            raise MXNetError(f"while_loop: the shapes of step output {position} differ between steps: "
                             f"{[tuple(x.shape) for x in items]}")
        rows = [x.expand_dims(0) for x in items]
        if len(rows) < max_iterations:
            rows.append(zeros((max_iterations - len(rows),) + tuple(items[0].shape), ctx=items[0].context,
                              dtype=items[0].dtype))
        stacked.append(concat(*rows, dim=0))
    outputs = regroup_nested(stacked, out_fmt)[0] if out_fmt is not None else []
    return outputs, (loop_vars[0] if single else loop_vars)


def cond(pred, then_func, else_func):
    """``then_func()`` if the scalar NDArray ``pred`` is true, else ``else_func()`` (MXNet's
    ``mx.nd.contrib.cond``); the result is whatever the chosen function returns.  MXNetError
    when ``pred`` is not a scalar."""
    return then_func() if _scalar(pred, bool, "pred", "cond") else else_func()


# -- MXNet 1.9.1's private helpers of mxnet.ndarray.contrib, by their names and signatures ------------
def _regroup(args, fmt):
    """The inverse of ``_flatten``: ``(nested value, rest of args)`` for the format ``fmt``."""
    return regroup_nested(args, fmt, lambda value: MXNetError(
        f"output must be (nested) list of NDArray, but got {value} of type {type(value)}"))


def _flatten_list(nested_list):
    """The items of the lists in ``nested_list``, one level flattened."""
    return [item for sublist in nested_list for item in sublist]
