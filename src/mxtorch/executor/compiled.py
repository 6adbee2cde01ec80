"""The compiled training step: an executor's forward and backward traced into one graph.

An executor bound with gradient requests runs ``forward(is_train=True)`` + ``backward()`` as
the node-by-node plan under autograd: per step one Python call per operator, the autograd
engine's graph building, and the engine's walk back.  For a fixed binding (shapes, dtypes,
devices of the arguments and aux states) that work is the same every batch, so this module
traces it once into a straight-line graph of ATen operations and then runs that graph
without autograd:

1. ``torch.fx.experimental.proxy_tensor.make_fx`` (fake tensors: no real computation, and any
   read of a tensor value on the host -- a Python custom operator, ``.item()``, a shape that
   depends on data -- makes the trace fail) records the executor's own plan (``_execute``)
   followed by the same ``torch.autograd.grad`` call ``Executor.backward`` makes, with the
   head gradients a loss head gets (ones); the ATen operations the autograd engine runs for
   the backward pass are recorded with the forward's;
2. the graph's ``detach`` nodes and dead values are dropped;
3. the graph is traced once more with ``torch.jit.trace`` (TorchScript runs a straight-line
   graph with less per-operation overhead than Python; on a copy of the aux states and with
   the random generator's state restored, so tracing changes neither); when that fails the
   FX graph runs as Python.

The compiled forward computes the gradients too (at ``forward`` time) and ``backward`` writes
them into the gradient arrays exactly as the eager backward does ('write' adopting the fresh
buffer, 'add' accumulating).  BatchNorm's moving statistics are updated in place by the
graph, as by the eager operators.  Randomness (Dropout) is recorded as the random operators
themselves, so each run draws fresh numbers from torch's generator, in the order the eager
plan draws them (``mx.random.seed`` gives the same masks in both).

When the step applies: the executor is bound with gradients reaching some argument, on one
device (no ``group2ctx``), every gradient argument is floating point, no monitor is
installed, and every output that carries a gradient is a loss head (``SoftmaxOutput``,
``MakeLoss``, ...: these ignore head gradients, so the gradients are known at forward
time).  A graph with other outputs carrying gradients (whose head gradients come only with
``backward(out_grads)``), a failed trace, or a failed run make the executor run eagerly from
then on (one log line).

``MXTORCH_COMPILE`` (read when the executor is bound): ``0`` never traces; ``1`` traces at
the first training batch; ``auto`` (default) traces bindings whose arguments and aux states
hold at most ``AUTO_MAX_ELEMENTS`` elements in all, at their ``AUTO_AFTER_BATCHES``-th
training batch of the same shapes, and says why it falls back at INFO level only (under
``1`` a fallback is a warning).  Measured on the idle 2-core CPU machine, one thread
(docs/performance.md): the traced step is 2x faster on the 5-8-3 MLP (Python per-operator
overhead), 12 % on the MLP 784-512-512-10, 8 % on LeNet, 3 % on ResNet-20, for a trace of
0.6-1.1 s (paid back after ~300-1,300 batches) and, on ResNet-20, ~50 MiB more resident
memory; so tracing waits for a loop that has shown it runs long.
"""
from __future__ import annotations

import logging
import warnings

import torch

from .inference import compile_mode

__all__ = ["TrainingStep", "AUTO_AFTER_BATCHES", "AUTO_MAX_ELEMENTS"]

AUTO_AFTER_BATCHES = 200
AUTO_MAX_ELEMENTS = 1 << 24

_LOG = logging.getLogger("mxtorch")
_LOGGED = set()


def _log_once(key, message, level=logging.INFO):
    if key not in _LOGGED:
        _LOGGED.add(key)
        _LOG.log(level, message)


class CompiledGradients:
    """What a compiled forward leaves for ``backward``: the outputs and, for each gradient
    argument (``leaves``, argument indices), its gradient tensor or None."""
    __slots__ = ("outputs", "leaves", "grads", "carrying")

    def __init__(self, outputs, leaves, grads, carrying):
        self.outputs = outputs
        self.leaves = leaves
        self.grads = grads
        self.carrying = carrying          # per output: whether a gradient flows from it


class _Graph:
    """One traced step: ``run(flat tensors) -> (outputs, grads)``."""

    def __init__(self, function, num_outputs, grad_positions, num_leaves, carrying, clone_outputs=None):
        self.function = function
        self.carrying = carrying
        self.num_outputs = num_outputs
        self.grad_positions = grad_positions      # leaf position of each returned gradient
        self.num_leaves = num_leaves
        self.clone_outputs = clone_outputs        # per output: it aliases an input (set on the first run)

    def run(self, flat):
        with torch.no_grad():
            results = self.function(*flat)
        outputs = list(results[:self.num_outputs])
        if self.clone_outputs is None:
            inputs = {t.untyped_storage().data_ptr() for t in flat if t.numel()}
            self.clone_outputs = [t.numel() > 0 and t.untyped_storage().data_ptr() in inputs for t in outputs]
        if any(self.clone_outputs):
            # an output that is an argument (or a view of one) is handed out as a copy, as the
            # eager training forward hands out every output
            outputs = [t.clone() if clone else t for t, clone in zip(outputs, self.clone_outputs)]
        grads = [None] * self.num_leaves
        for position, grad in zip(self.grad_positions, results[self.num_outputs:]):
            grads[position] = grad
        return outputs, grads


class TrainingStep:
    """The compiled forward + backward of one executor (see the module docstring)."""

    def __init__(self, executor):
        self._executor = executor
        self._mode = compile_mode()
        self._graphs = {}
        self._seen = {}
        self._disabled = self._mode == "0" or not self._eligible()
        if self._mode == "auto":
            size = sum(array.size for array in list(executor.arg_arrays) + list(executor.aux_arrays))
            self._after = AUTO_AFTER_BATCHES if size <= AUTO_MAX_ELEMENTS else None
            self._disabled = self._disabled or self._after is None
        else:
            self._after = 1
        leaves = [index for _, kind, index, leaf in executor._variables if kind == "arg" and leaf]
        self._leaves = leaves

    def _eligible(self):
        executor = self._executor
        if executor._placement is not None:
            return False
        return all(executor.arg_arrays[index]._tensor.is_floating_point()
                   for index in executor._recorded_indices)

    @property
    def active(self):
        return not self._disabled

    def _disable(self, reason, level=logging.WARNING):
        if self._mode == "auto":
            # a speculative trace the user did not ask for: falling back is not worth a warning
            level = min(level, logging.INFO)
        self._disabled = True
        self._graphs.clear()
        _log_once(("disabled", reason), f"mxtorch: the compiled training step is not used for this executor: "
                  f"{reason}; it runs eagerly (MXTORCH_COMPILE=0 turns compiling off)", level)

    def run(self, is_train):
        """The outputs and gradients of one training forward, or None: run the eager plan."""
        if self._disabled:
            return None
        executor = self._executor
        flat = [array._tensor for array in executor.arg_arrays] + [array._tensor for array in executor.aux_arrays]
        key = (is_train, tuple((t.shape, t.dtype, t.device) for t in flat))
        graph = self._graphs.get(key)
        if graph is None:
            seen = self._seen.get(key, 0) + 1
            self._seen[key] = seen
            if seen < self._after:
                return None
            graph = self._build(flat, is_train)
            if graph is None:
                return None
            self._graphs[key] = graph
        try:
            outputs, grads = graph.run(flat)
        except RuntimeError as error:
            self._disable(f"the traced graph failed ({error})")
            return None
        return outputs, CompiledGradients(outputs, self._leaves, grads, graph.carrying)

    # -- tracing ----------------------------------------------------------------------------------
    def _step_function(self, is_train, num_args, carries):
        """The function traced: the executor's plan on ``*tensors`` (arguments then aux states)
        with the recorded arguments as leaves, then the gradients ``backward`` would ask for."""
        executor = self._executor

        def step(*tensors):
            args, aux = tensors[:num_args], tensors[num_args:]
            values = [None] * executor._num_slots
            leaves = []
            for slot, kind, index, leaf in executor._variables:
                if kind == "aux":
                    values[slot] = aux[index]
                    continue
                tensor = args[index]
                if leaf:
                    tensor = tensor.detach().requires_grad_(True)
                    leaves.append(tensor)
                values[slot] = tensor
            with torch.enable_grad():
                executor._execute(values, is_train)
                outputs = [values[i] for i in executor._output_slots]
                heads, head_grads, carrying = executor._heads(outputs, None)
                carries.extend(carrying)
                if heads and leaves:
                    grads = torch.autograd.grad(heads, leaves, head_grads, allow_unused=True)
                else:
                    grads = [None] * len(leaves)
            return [t.detach() for t in outputs] + [g for g in grads if g is not None], \
                [i for i, g in enumerate(grads) if g is not None]

        return step

    def _build(self, flat, is_train):
        from torch.fx.experimental.proxy_tensor import make_fx
        executor = self._executor
        num_args = len(executor.arg_arrays)
        carries, positions = [], []
        step = self._step_function(is_train, num_args, carries)

        def traced(*tensors):
            results, found = step(*tensors)
            positions[:] = found
            return results

        _log_once(("compile", "training"), "mxtorch: compiling the training step (forward + backward traced "
                  "into one graph; MXTORCH_COMPILE=0 turns this off)")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                module = make_fx(traced, tracing_mode="fake")(*flat)
        except Exception as error:          # any failure of the tracer: run eagerly, as before
            self._disable(f"tracing failed ({type(error).__name__}: {str(error)[:200]})")
            return None
        loss_heads = executor._output_is_loss
        if not all(loss or not carry for carry, loss in zip(carries, loss_heads)):
            names = [name for name, carry, loss in zip(executor._symbol.list_outputs(), carries, loss_heads)
                     if carry and not loss]
            self._disable(f"outputs {names} are not loss heads, so their head gradients are known only at "
                          f"backward", logging.INFO)
            return None
        _simplify(module)
        try:
            function = _script(module, flat)
        except Exception as error:          # the graph does not run (a kernel the tracer mis-recorded)
            self._disable(f"the traced graph failed ({type(error).__name__}: {str(error)[:200]})")
            return None
        return _Graph(function, len(executor._output_slots), list(positions), len(self._leaves), list(carries))


def _simplify(module):
    """Drop ``detach`` (an identity without autograd) and unused values from the FX graph."""
    graph = module.graph
    for node in list(graph.nodes):
        if node.op == "call_function" and node.target is torch.ops.aten.detach.default:
            node.replace_all_uses_with(node.args[0])
            graph.erase_node(node)
    graph.eliminate_dead_code()
    module.recompile()


def _script(module, flat):
    """``module`` traced with ``torch.jit.trace`` on copies of ``flat`` (the aux states it
    updates in place and the random generator's state are left as they were), or ``module``
    itself when that fails but ``module`` runs on the copies; raises the error of that run
    when it fails too (a graph that cannot run is found before it touches the bound arrays)."""
    copies = [t.clone() for t in flat]
    cpu_state = torch.random.get_rng_state()
    cuda_states = torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() else None
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            try:
                return torch.jit.trace(_Flat(module), tuple(copies), check_trace=False, strict=False)
            except Exception as error:      # TorchScript cannot take every graph: run the FX graph
                _log_once(("script", type(error).__name__), f"mxtorch: the compiled training step runs as an "
                          f"FX graph (TorchScript: {type(error).__name__})", logging.DEBUG)
                module(*[t.clone() for t in flat])
                return module
    finally:
        torch.random.set_rng_state(cpu_state)
        if cuda_states is not None:
            torch.cuda.set_rng_state_all(cuda_states)


class _Flat(torch.nn.Module):
    """The FX graph as a module returning a tuple (what ``torch.jit.trace`` records)."""

    def __init__(self, graph):
        super().__init__()
        self.graph_module = graph

    def forward(self, *tensors):
        return tuple(self.graph_module(*tensors))
