"""The inference plan: how an executor bound without gradients runs ``forward(is_train=False)``.

An executor whose arguments all have ``grad_req='null'`` (``Module.bind(for_training=False)``,
``Module.predict``, ``FeedForward.predict``) never needs autograd, so its graph is
rewritten once for prediction:

- BatchNorm (an operator declaring ``channel_affine()``) folded into the Convolution or
  FullyConnected (``channel_linear_rank()``) that feeds it, when the layer's output goes only
  to that BatchNorm, normalised over the channel axis:
  ``weight' = weight * gamma / sqrt(var + eps)`` per output channel and
  ``bias' = beta + (bias - mean) * gamma / sqrt(var + eps)`` (gamma = 1 under
  ``fix_gamma``), as MXNet's oneDNN subgraph backend does for inference;
- on the CPU, float32 FullyConnected (flatten) and 2-D Convolution, with the relu / sigmoid /
  tanh that is their only reader (``pointwise_fusion()``, ``activation_kind()``), run as one
  oneDNN inner product or convolution
  (``torch.ops.mkldnn._linear_pointwise`` / ``_convolution_pointwise``, channels-last memory);
  in the eager plan the inner products' weights are reordered into oneDNN's layout once per
  parameter version (``MXTORCH_PREPACK=0`` turns that off);
- every node run without autograd recording;
- on the CPU, for float32 graphs made only of operators that trace exactly
  (``Operator.traceable``) with a convolution (or, under oneDNN Graph, a fused inner
  product), the folded graph traced with ``torch.jit.trace``, frozen
  (parameters become constants) and run under oneDNN Graph fusion
  (``torch.jit.enable_onednn_fusion``, switched on for the graph's own calls only), which
  fuses convolutions with the BatchNorm, activations and additions around them and keeps them
  on blocked memory; where oneDNN Graph is unavailable, off (``MXTORCH_ONEDNN_GRAPH=0``), fails
  or differs, the frozen graph goes through ``torch.jit.optimize_for_inference`` instead
  (oneDNN convolutions on blocked memory, elementwise operators unfused).  The traced graph
  is checked against the eager folded graph on its first batch and dropped (for the
  lifetime of the executor) if it differs or fails.

The folded weights and the traced graph depend on the parameter values.  The plan
keys them on the parameter tensors and their in-place version counters (every
``set_params``, ``init_params``, ``copy_params_from``, ``load`` or optimizer update
changes one of them), so changed parameters are refolded before the next batch.

``MXTORCH_COMPILE`` (read when the executor is bound): ``0`` never traces (eager,
folded), ``1`` traces from the first batch, ``auto`` (default) from the second batch
with the same parameters, so a single prediction does not pay for the tracing, and
stops tracing for an executor whose parameters change between most batches.
"""
from __future__ import annotations

import logging
import os
import warnings

import numpy as np
import torch

from ..engine import fork_generation
from ..ops.registry import Operator
from .plan import last_uses

__all__ = ["InferencePlan", "compile_mode"]

_LOG = logging.getLogger("mxtorch")
_LOGGED = set()

# argument names that hold learned parameters: variables used only there are constant in inference
_PARAMETER_ARGUMENTS = frozenset({"weight", "bias", "gamma", "beta", "parameters", "alpha"})

# activations oneDNN's inner product and convolution apply in the same kernel
_POINTWISE_ACTIVATIONS = ("relu", "sigmoid", "tanh")
_PROBES = {}


def _probe(name, check):
    """Whether ``check()`` (a small oneDNN computation compared with plain torch) runs and
    returns True in this torch build; asked once per process, any exception counting as no."""
    if name not in _PROBES:
        try:
            _PROBES[name] = bool(torch.backends.mkldnn.is_available() and check())
        except Exception:
            _PROBES[name] = False
    return _PROBES[name]


def _relu_linear_sample():
    x, w, b = torch.rand(3, 4), torch.rand(2, 4) - 0.5, torch.rand(2) - 0.5
    return x, w, b, torch.relu(torch.nn.functional.linear(x, w, b))


def _check_linear_pointwise():
    x, w, b, expected = _relu_linear_sample()
    return torch.allclose(torch.ops.mkldnn._linear_pointwise(x, w, b, "relu", [], ""), expected, atol=1e-5)


def _check_prepacked_linear():
    x, w, b, expected = _relu_linear_sample()
    packed = torch.ops.mkldnn._reorder_linear_weight(w, 3)
    return torch.allclose(torch.ops.mkldnn._linear_pointwise(x, packed, b, "relu", [], ""), expected, atol=1e-5)


def _check_convolution_pointwise():
    x, w, b = torch.rand(1, 2, 5, 5), torch.rand(3, 2, 3, 3) - 0.5, torch.rand(3) - 0.5
    got = torch.ops.mkldnn._convolution_pointwise(
        x.contiguous(memory_format=torch.channels_last), w.contiguous(memory_format=torch.channels_last),
        b, [1, 1], [1, 1], [1, 1], 1, "relu", [], "")
    return torch.allclose(got, torch.relu(torch.nn.functional.conv2d(x, w, b, 1, 1)), atol=1e-5)


def _linear_pointwise_works():
    """Whether ``torch.ops.mkldnn._linear_pointwise`` (oneDNN inner product with a fused
    activation) exists in this torch build and computes ``relu(x @ w.T + b)``."""
    return _probe("linear_pointwise", _check_linear_pointwise)


def _prepacked_linear_works():
    """Whether oneDNN inner products take a weight reordered once ahead of time
    (``torch.ops.mkldnn._reorder_linear_weight``) and compute the same ``relu(x @ w.T + b)``;
    ``MXTORCH_PREPACK=0`` turns prepacking off."""
    if os.environ.get("MXTORCH_PREPACK", "1") == "0" or not _linear_pointwise_works():
        return False
    return _probe("prepacked_linear", _check_prepacked_linear)


def _fuse_convolutions():
    """Whether ``torch.ops.mkldnn._convolution_pointwise`` exists and computes
    ``relu(conv2d(x, w, b))`` (``MXTORCH_FUSE_CONV=0`` turns the fusion off)."""
    if os.environ.get("MXTORCH_FUSE_CONV", "1") == "0":
        return False
    return _probe("convolution_pointwise", _check_convolution_pointwise)


class _FusedLinear(Operator):
    """FullyConnected (flatten=True) and the activation after it as one oneDNN inner product, for
    float32 CPU inference: ``act(data.reshape(batch, -1) @ weight.T + bias)``; a plan step, not
    a registered operator."""

    name = "_fused_linear"
    traceable = True

    def __init__(self, no_bias, activation):
        self.attrs = {}
        self.no_bias = no_bias
        self.activation = activation

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        data = data.reshape(data.shape[0], -1)
        if not data.is_contiguous():
            data = data.contiguous()
        bias = None if self.no_bias else inputs[2]
        if torch.jit.is_tracing():
            # the tracer cannot record the fused operator's optional scalar list: trace the parts,
            # which optimize_for_inference turns into oneDNN operations of its own
            output = torch.nn.functional.linear(data, inputs[1], bias)
            return [output if self.activation == "none" else getattr(torch, self.activation)(output)]
        return [torch.ops.mkldnn._linear_pointwise(data, inputs[1], bias, self.activation, [], "")]


def compile_mode():
    """``MXTORCH_COMPILE`` as '0', '1' or 'auto' (unset or anything else)."""
    value = os.environ.get("MXTORCH_COMPILE", "auto").strip().lower()
    if value in ("0", "off", "false", "no"):
        return "0"
    if value in ("1", "on", "true", "yes"):
        return "1"
    return "auto"


def _log_once(key, message):
    if key not in _LOGGED:
        _LOGGED.add(key)
        _LOG.info(message)


class _Entry:
    """One node of the rewritten graph: ``op`` on the values in ``inputs`` / ``aux``."""
    __slots__ = ("name", "op", "inputs", "aux", "outputs", "constant_shape")

    def __init__(self, name, op, inputs, aux, outputs, constant_shape):
        self.name = name
        self.op = op
        self.inputs = inputs
        self.aux = aux
        self.outputs = outputs
        self.constant_shape = constant_shape


class _Fold:
    """BatchNorm ``norm`` folded into the Convolution/FullyConnected ``layer``: the slots read and
    the two slots (beyond the executor's) that receive the folded weight and bias."""
    __slots__ = ("weight", "bias", "gamma", "beta", "mean", "var", "eps", "fix_gamma", "weight_slot",
                 "bias_slot")

    def __init__(self, layer, norm, weight_slot, bias_slot):
        self.weight = layer.inputs[1]
        self.bias = layer.inputs[2] if len(layer.inputs) > 2 else None
        self.gamma, self.beta = norm.inputs[1], norm.inputs[2]
        self.mean, self.var = norm.aux
        self.eps = norm.op.eps
        self.fix_gamma = norm.op.fix_gamma
        self.weight_slot = weight_slot
        self.bias_slot = bias_slot

    def compute(self, values):
        with torch.no_grad():
            weight = values[self.weight]
            scale = torch.rsqrt(values[self.var] + self.eps)
            if not self.fix_gamma:
                scale = scale * values[self.gamma]
            bias = -values[self.mean] * scale + values[self.beta]
            if self.bias is not None:
                bias = bias + values[self.bias] * scale
            values[self.weight_slot] = weight * scale.reshape((-1,) + (1,) * (weight.dim() - 1))
            values[self.bias_slot] = bias


class _FusedConvolution(Operator):
    """A 2-D float32 CPU Convolution and the relu/sigmoid/tanh after it as one oneDNN convolution
    on channels-last memory (``torch.ops.mkldnn._convolution_pointwise``); ``geometry`` is what
    the convolution's ``pointwise_fusion()`` gives.  A plan step, not a registered operator."""

    name = "_fused_convolution"
    traceable = True
    is_convolution = True

    def __init__(self, no_bias, geometry, activation):
        self.attrs = {}
        self.no_bias = no_bias
        self.padding = geometry["padding"]
        self.stride = geometry["stride"]
        self.dilation = geometry["dilation"]
        self.groups = geometry["groups"]
        self.activation = activation

    def forward(self, is_train, inputs, aux):
        data, weight = inputs[0], inputs[1]
        bias = None if self.no_bias else inputs[2]
        if torch.jit.is_tracing():
            output = torch.nn.functional.conv2d(data, weight, bias, self.stride, self.padding, self.dilation,
                                                self.groups)
            return [output if self.activation == "none" else getattr(torch, self.activation)(output)]
        data = data.contiguous(memory_format=torch.channels_last)
        weight = weight.contiguous(memory_format=torch.channels_last)
        return [torch.ops.mkldnn._convolution_pointwise(data, weight, bias, self.padding, self.stride,
                                                        self.dilation, self.groups, self.activation, [], "")]


class _TracedGraph(torch.nn.Module):
    """The folded graph as a module (constants as buffers) for ``torch.jit.trace``.  Its
    operators compute on the memory format of their inputs (``on_plain_memory``): oneDNN's
    blocked formats replace the channels-last copies the eager CPU kernels make."""

    def __init__(self, plan, constants):
        super().__init__()
        self._plan = plan
        self._entries = [_Entry(entry.name, entry.op.on_plain_memory(), entry.inputs, entry.aux, entry.outputs,
                                entry.constant_shape) for entry in plan._entries]
        self._constant_slots = [slot for slot, _ in constants]
        for position, (_, tensor) in enumerate(constants):
            self.register_buffer(f"constant{position}", tensor)

    def forward(self, *inputs):
        values = [None] * self._plan._num_values
        for slot, tensor in zip(self._plan._input_slots, inputs):
            values[slot] = tensor
        for position, slot in enumerate(self._constant_slots):
            values[slot] = getattr(self, f"constant{position}")
        return tuple(self._plan._run_entries(values, self._entries))


class InferencePlan:
    """Runs ``executor``'s graph for ``forward(is_train=False)``; see the module docstring.

    ``run()`` returns the output tensors of one forward pass, computed from the executor's
    bound arrays as they are now.
    """

    def __init__(self, executor):
        self._executor = executor
        self._fork_generation = fork_generation()
        self._mode = compile_mode()
        self._device = executor._device
        steps = executor._run_steps
        graph_outputs = set(executor._output_slots)
        uses = {}
        for position, step in enumerate(steps):
            names = step.op.arguments()
            for index, slot in enumerate(step.inputs):
                name = names[index] if index < len(names) else "data"
                uses.setdefault(slot, []).append((position, index, name))
            for slot in step.aux:
                uses.setdefault(slot, []).append((position, -1, "aux"))
        # variables: constants (parameters, aux states) and inputs (data, labels)
        self._constant_variables = []      # (slot, kind, index)
        self._input_variables = []
        arrays = {"arg": executor.arg_arrays, "aux": executor.aux_arrays}
        for slot, kind, index in executor._variable_slots:
            used_as = {name for _, _, name in uses.get(slot, [])}
            if kind == "aux" or (used_as and used_as <= _PARAMETER_ARGUMENTS):
                self._constant_variables.append((slot, kind, index))
            else:
                self._input_variables.append((slot, kind, index))
        self._input_slots = [slot for slot, _, _ in self._input_variables]
        # every slot's inferred dtype (an AMP graph's amp_cast outputs are bfloat16 / float16), the
        # bound variables' own where they are known
        dtypes = dict(getattr(executor, "_slot_types", {}))
        dtypes.update({slot: np.dtype(arrays[kind][index].dtype).name for slot, kind, index in executor._variable_slots})
        constant_slots = {slot for slot, _, _ in self._constant_variables}

        # the rewritten graph, with BatchNorm folded where it can be
        entries = [_Entry(step.node.name, step.op, list(step.inputs), list(step.aux), list(step.outputs),
                          step.constant_shape) for step in steps]
        self._folds = []
        removed = set()
        next_slot = executor._num_slots
        for position, step in enumerate(steps):
            output_dims = step.op.channel_linear_rank()
            if output_dims is None:
                continue
            consumers = uses.get(step.outputs[0], [])
            if len(consumers) != 1 or step.outputs[0] in graph_outputs:
                continue
            norm_position, input_index, _ = consumers[0]
            norm = steps[norm_position]
            affine = norm.op.channel_affine()
            if affine is None or input_index != 0:
                continue
            if any(uses.get(slot) or slot in graph_outputs for slot in norm.outputs[1:]):
                continue
            if affine[0] % output_dims != 1:
                continue
            read = step.inputs[1:] + norm.inputs[1:] + norm.aux
            if not all(slot in constant_slots for slot in read):
                continue
            kinds = {dtypes[slot] for slot in read}
            if len(kinds) != 1 or kinds.pop() not in ("float32", "float64"):
                continue
            fold = _Fold(step, norm, next_slot, next_slot + 1)
            next_slot += 2
            self._folds.append(fold)
            layer = entries[position]
            layer.op = step.op.with_bias()
            layer.inputs = [step.inputs[0], fold.weight_slot, fold.bias_slot]
            layer.outputs = [norm.outputs[0]]
            removed.add(norm_position)
        self._entries = [entry for position, entry in enumerate(entries) if position not in removed]
        if self._device.type == "cpu" and _linear_pointwise_works():
            self._fuse_linear(uses, graph_outputs, dtypes)
        self._num_values = next_slot
        self._output_slots = list(executor._output_slots)

        self._onednn_graph = onednn_graph_enabled()
        self._traceable = (self._mode != "0" and self._device.type == "cpu"
                           and all(entry.op.traceable for entry in self._entries)
                           and all(dtype == "float32" for dtype in dtypes.values())
                           # what tracing gains is oneDNN's fused primitives: convolutions always;
                           # inner products only under oneDNN Graph (optimize_for_inference runs
                           # them no faster than the eager prepacked ones)
                           and any(entry.op.is_convolution
                                   or (isinstance(entry.op, _FusedLinear) and self._onednn_graph)
                                   for entry in self._entries))
        # eager plans on the CPU: the weights of the fused inner products reordered into oneDNN's
        # layout once per parameter version instead of on every call (the traced graph freezes its own)
        self._packs = []      # (weight slot, packed slot, batch size)
        if not self._traceable and self._device.type == "cpu" and _prepacked_linear_works():
            constant = constant_slots | {fold.weight_slot for fold in self._folds}
            shapes = executor._slot_shapes
            for entry in self._entries:
                if not isinstance(entry.op, _FusedLinear):
                    continue
                data_shape = shapes.get(entry.inputs[0])
                if entry.inputs[1] in constant and data_shape:
                    self._packs.append((entry.inputs[1], self._num_values, int(data_shape[0])))
                    entry.inputs = [entry.inputs[0], self._num_values] + entry.inputs[2:]
                    self._num_values += 1
        # each value is dropped after its last reader, as the training plan does: without this a
        # forward pass held every intermediate of the graph until it returned (ResNet-20 predict at
        # b64: ~145 MiB more at the peak)
        self._release = last_uses(self._entries, self._output_slots)
        self._key_tensors = None
        self._key_versions = None
        self._folded = {}
        self._traced = None
        self._batches_with_key = 0
        self._traces = 0
        self._batches = 0

    def _fuse_linear(self, uses, graph_outputs, dtypes):
        """FullyConnected (+ relu/sigmoid/tanh when only that activation reads it) -> _FusedLinear."""
        producers = {slot: entry for entry in self._entries for slot in entry.outputs}
        consumers = {}
        for entry in self._entries:
            for slot in entry.inputs + entry.aux:
                consumers.setdefault(slot, []).append(entry)
        removed = set()
        for entry in self._entries:
            op = entry.op
            fusion = op.pointwise_fusion()
            if fusion is None or (fusion[0] == "convolution2d" and not _fuse_convolutions()):
                continue
            if any(dtypes.get(slot, "float32") != "float32" for slot in entry.inputs if slot in dtypes):
                continue
            source = producers.get(entry.inputs[0])
            if source is None and dtypes.get(entry.inputs[0]) != "float32":
                continue
            activation = "none"
            readers = consumers.get(entry.outputs[0], [])
            if (len(readers) == 1 and entry.outputs[0] not in graph_outputs
                    and readers[0].op.activation_kind() in _POINTWISE_ACTIVATIONS):
                activation = readers[0].op.activation_kind()
                entry.outputs = list(readers[0].outputs)
                removed.add(id(readers[0]))
            no_bias = len(entry.inputs) < 3
            entry.op = (_FusedLinear(no_bias, activation) if fusion[0] == "inner_product"
                        else _FusedConvolution(no_bias, fusion[1], activation))
        self._entries = [entry for entry in self._entries if id(entry) not in removed]

    # -- running ------------------------------------------------------------------------------
    def _variables(self):
        executor = self._executor
        arrays = {"arg": executor.arg_arrays, "aux": executor.aux_arrays}
        constants = [arrays[kind][index]._tensor for _, kind, index in self._constant_variables]
        inputs = [arrays[kind][index]._tensor for _, kind, index in self._input_variables]
        return constants, inputs

    def _run_entries(self, values, entries):
        """Run ``entries`` (this plan's, or the traced module's copies of them: the same slots in
        the same order) on ``values``, dropping each value after its last reader."""
        device = self._device
        for entry, release in zip(entries, self._release):
            if entry.constant_shape is not None:
                results = [entry.op.create(entry.constant_shape, device)]
            else:
                results = entry.op.forward(False, [values[i] for i in entry.inputs], [values[i] for i in entry.aux])
            for slot, tensor in zip(entry.outputs, results):
                values[slot] = tensor
            del results
            for slot in release:
                values[slot] = None
        return [values[slot] for slot in self._output_slots]

    def _run_eager(self, constants, inputs):
        values = [None] * self._num_values
        for (slot, _, _), tensor in zip(self._constant_variables, constants):
            values[slot] = tensor
        for slot, tensor in zip(self._input_slots, inputs):
            values[slot] = tensor
        for slot, tensor in self._folded.items():
            values[slot] = tensor
        return self._run_entries(values, self._entries)

    def _refold(self, constants):
        values = [None] * self._num_values
        for (slot, _, _), tensor in zip(self._constant_variables, constants):
            values[slot] = tensor
        for fold in self._folds:
            fold.compute(values)
        self._folded = {slot: values[slot] for fold in self._folds for slot in (fold.weight_slot, fold.bias_slot)}
        for source, target, batch in self._packs:
            self._folded[target] = torch.ops.mkldnn._reorder_linear_weight(values[source].contiguous(), batch)

    def _trace(self, constants, inputs):
        """The folded graph traced, frozen and optimised, or None (and no more tries) on failure."""
        values = {slot: tensor for (slot, _, _), tensor in zip(self._constant_variables, constants)}
        values.update(self._folded)
        module = _TracedGraph(self, sorted(values.items())).eval()
        _log_once(("trace", id(type(self))), "mxtorch: tracing and freezing the inference plan "
                  "(MXTORCH_COMPILE=0 turns this off)")
        try:
            with warnings.catch_warnings():
                # shape arithmetic on traced sizes warns; shapes are fixed for a bound executor, and
                # traceable operators take no decision on tensor values in inference
                warnings.simplefilter("ignore")
                traced = torch.jit.trace(module, tuple(inputs), check_trace=False)
            expected = self._run_eager(constants, inputs)
            optimized = _onednn_graph(traced, inputs, expected) if self._onednn_graph else None
            if optimized is None:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    optimized = torch.jit.optimize_for_inference(torch.jit.freeze(traced))
                got = list(optimized(*inputs))
                if not _all_close(got, expected):
                    raise RuntimeError("the traced graph's outputs differ from the eager graph's")
        except Exception as error:      # any failure: stay on the eager folded graph
            _log_once(("trace-failed", type(error).__name__, str(error)[:80]),
                      f"mxtorch: inference plan stays eager ({type(error).__name__}: {str(error)[:600]})")
            self._traceable = False
            return None, None
        return optimized, expected

    def run(self):
        constants, inputs = self._variables()
        self._batches += 1
        if self._fork_generation != fork_generation():
            # a forked child: the traced graph's oneDNN partitions were compiled for the parent's
            # OpenMP thread pool, which does not exist here; trace again (mx.engine)
            self._fork_generation = fork_generation()
            self._key_tensors = None
        same = (self._key_tensors is not None and len(constants) == len(self._key_tensors)
                and all(a is b for a, b in zip(constants, self._key_tensors))
                and all(t._version == v for t, v in zip(constants, self._key_versions)))
        if not same:
            self._key_tensors = constants
            self._key_versions = [t._version for t in constants]
            self._batches_with_key = 0
            self._traced = None
            with torch.no_grad():
                self._refold(constants)
        self._batches_with_key += 1
        with torch.no_grad():
            if self._traced is not None:
                return list(self._traced(*inputs))
            if self._traceable and (self._mode == "1" or self._batches_with_key >= 2):
                if self._mode == "auto" and self._traces >= 3 and self._batches < 4 * self._traces:
                    self._traceable = False       # the parameters change too often to pay for tracing
                else:
                    self._traces += 1
                    self._traced, outputs = self._trace(constants, inputs)
                    if outputs is not None:
                        # the frozen graph holds its own (reordered) weights; the eager plan's
                        # folded copies are refolded before it runs again (new parameters, a fork)
                        self._folded = {}
                        return outputs
            return self._run_eager(constants, inputs)


class _OneDNNGraphModule:
    """A frozen TorchScript graph run with oneDNN Graph fusion (``torch.jit.enable_onednn_fusion``)
    switched on for its calls only: the profiling executor hands the graph to oneDNN Graph, which
    fuses convolutions with the BatchNorm, activation and addition around them (the fusions
    MXNet's oneDNN subgraph backend makes) and keeps the fused partitions on blocked memory.
    The switch is process-wide in torch, so it is restored after every call: other TorchScript
    graphs (the compiled training step) are not handed to oneDNN Graph."""

    def __init__(self, module):
        self.module = module

    def __call__(self, *inputs):
        previous = torch.jit.onednn_fusion_enabled()
        torch.jit.enable_onednn_fusion(True)
        try:
            return self.module(*inputs)
        finally:
            torch.jit.enable_onednn_fusion(previous)


# the profiling executor optimises a graph after its profiled runs; oneDNN Graph's fused
# partitions exist from the run after that (checked against the eager graph there)
_ONEDNN_GRAPH_WARMUP = 3


def onednn_graph_enabled():
    """Whether traced inference graphs are handed to oneDNN Graph (``MXTORCH_ONEDNN_GRAPH``,
    default 1; read when the executor is bound)."""
    return (os.environ.get("MXTORCH_ONEDNN_GRAPH", "1").strip() != "0"
            and hasattr(torch.jit, "enable_onednn_fusion") and torch.backends.mkldnn.is_available())


def _onednn_graph(traced, inputs, expected):
    """``traced`` frozen and run under oneDNN Graph fusion, or None (use
    ``optimize_for_inference``) when that fails or its outputs differ from ``expected`` after
    the warm-up runs that build the fused partitions."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = _OneDNNGraphModule(torch.jit.freeze(traced))
            for _ in range(_ONEDNN_GRAPH_WARMUP):
                got = list(module(*inputs))
    except Exception as error:      # oneDNN Graph could not take this graph
        _log_once(("onednn-graph", type(error).__name__), f"mxtorch: oneDNN Graph fusion not used for this "
                  f"inference graph ({type(error).__name__}: {str(error)[:300]})")
        return None
    if not _all_close(got, expected):
        _log_once(("onednn-graph", "differs"), "mxtorch: oneDNN Graph fusion not used for this inference graph "
                  "(its outputs differ from the eager graph's)")
        return None
    return module


def _all_close(got, expected):
    return len(got) == len(expected) and all(_close(a, b) for a, b in zip(got, expected))


def _close(actual, expected):
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return False
    if not actual.dtype.is_floating_point:
        return bool(torch.equal(actual, expected))
    scale = float(expected.abs().max()) if expected.numel() else 0.0
    return bool(torch.allclose(actual, expected, rtol=1e-3, atol=1e-4 * max(scale, 1.0)))
