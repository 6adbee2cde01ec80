"""The converters of ``mxtorch.export`` (the package docstring describes them)."""
from __future__ import annotations

import os
import tempfile

import torch

from ..base import MXNetError
from ..exceptions import MissingDependencyError
from .graph import UnsupportedOperatorError, build_graph_module, normalize_shapes, OperatorModule

__all__ = ["to_torch", "to_torchscript", "to_onnx", "convert_checkpoint", "UnsupportedOperatorError",
           "default_data_shapes"]


def to_torch(symbol, arg_params, aux_params, data_shapes):
    """``symbol`` with ``arg_params`` / ``aux_params`` (``{name: NDArray}``) as a
    ``torch.fx.GraphModule`` in eval mode; ``data_shapes``: ``[(name, shape), ...]`` (or
    a dict / DataDesc list) of the data inputs.  See ``mxtorch.export.graph``.

    Raises MXNetError for a data name that is not an argument, a missing parameter or
    parameters whose shapes do not fit the data shapes."""
    return build_graph_module(symbol, arg_params, aux_params, data_shapes)


def _sample_inputs(data_shapes, seed=0):
    generator = torch.Generator().manual_seed(seed)
    # values in [0, 1): valid for float inputs and, truncated, for token ids of Embedding layers
    return tuple(torch.rand(shape, generator=generator) for _, shape in data_shapes)


def _as_tuple(outputs):
    return tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)


def _check_same(route, expected, got, rtol=1e-4, atol=1e-5):
    """Raise MXNetError unless each output of ``got`` has the shape of ``expected``'s and
    ``|got - expected| <= atol + rtol * (|expected| + max|expected|)``: the rounding of
    another runtime's kernels (onnxruntime's convolutions) grows with the output's scale, so
    an element near zero of an output of magnitude 100 may differ by 1e-4 without a bug."""
    expected, got = _as_tuple(expected), _as_tuple(got)
    if len(expected) != len(got):
        raise MXNetError(f"{route}: the traced graph has {len(got)} outputs, the symbol {len(expected)}")
    for index, (want, have) in enumerate(zip(expected, got)):
        have = torch.as_tensor(have)
        scale = float(want.float().abs().max()) if want.numel() else 0.0
        if tuple(want.shape) != tuple(have.shape) or not torch.allclose(want.float(), have.float(), rtol=rtol,
                                                                          atol=atol + rtol * scale):
            raise MXNetError(f"{route}: the traced graph does not reproduce output {index} of the symbol "
                             f"(an operator with data-dependent Python control flow?); not exported")


def to_torchscript(symbol, arg_params, aux_params, data_shapes):
    """The ``to_torch`` module traced with ``torch.jit.trace`` at ``data_shapes`` (a
    ``torch.jit.ScriptModule``; save it with ``torch.jit.save``, load it without mxtorch).

    Raises UnsupportedOperatorError for an operator that cannot be traced, MXNetError when
    the traced graph does not reproduce the module's outputs."""
    data_shapes = normalize_shapes(data_shapes)
    module = build_graph_module(symbol, arg_params, aux_params, data_shapes, check_exportable=True)
    inputs = _sample_inputs(data_shapes)
    import warnings
    with torch.no_grad(), warnings.catch_warnings():
        # the trace is for these shapes; a second input checks what the tracer froze
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        traced = torch.jit.trace(module, inputs, check_trace=False)
        other = _sample_inputs(data_shapes, seed=1)    # a second input: catches values frozen by the trace
        _check_same("to_torchscript", module(*other), traced(*other))
    return traced


def _atomic_path(path):
    from ..util import temporary_beside
    return temporary_beside(path)


def _onnx_export(module, inputs, path, input_names, output_names, opset_version, optimize=False):
    """``torch.onnx.export`` through ``torch.export`` (the dynamo exporter, which covers more
    operators), falling back to the TorchScript-based exporter when that one fails.
    ``optimize``: let onnxscript's optimizer rewrite the file (constant folding, fusions); off by
    default: its rewrites change BERT's numbers beyond the check, and it ran for over ten
    minutes on the 7,600 nodes of GluonCV's Faster R-CNN (onnxruntime optimizes on load)."""
    import contextlib
    import io
    import warnings
    import logging
    quiet = io.StringIO()
    # torch.fx's symbolic shapes logger prints the whole traced graph when the torch.export route
    # meets a data-dependent check (an index bounds check), before the fallback exporter succeeds
    loggers = [logging.getLogger(name) for name in ("onnxscript", "onnx_ir", "torch.onnx", "torch.export",
                                                    "torch.onnx._internal.exporter._registration",
                                                    "torch.fx.experimental.symbolic_shapes")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        _onnx_export_quietly(module, inputs, path, input_names, output_names, opset_version, quiet, optimize)
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


def _onnx_export_quietly(module, inputs, path, input_names, output_names, opset_version, quiet, optimize):
    import contextlib
    import warnings
    with warnings.catch_warnings(), contextlib.redirect_stdout(quiet):
        warnings.simplefilter("ignore")
        try:
            # stderr too: torch.export prints the partial graph of a failed trace there (a
            # data-dependent check such as an index bounds check), although the fallback succeeds
            with contextlib.redirect_stderr(quiet):
                program = torch.onnx.export(module, inputs, input_names=input_names, output_names=output_names,
                                            opset_version=opset_version, dynamo=True, verbose=False,
                                            external_data=False, custom_translation_table=_dynamo_translations(),
                                            optimize=optimize)
            program.save(path)
            return
        except Exception:       # noqa: BLE001 - the older exporter gets a try before giving up
            pass
        _register_legacy_symbolics()
        torch.onnx.export(module, inputs, path, input_names=input_names, output_names=output_names,
                          opset_version=opset_version, dynamo=False)


def _sort_stable_onnx(self, stable=None, dim=-1, descending=False):
    """``aten.sort.stable`` (mxtorch's ``topk`` / ``sort`` / ``argsort``, stable as in MXNet) for
    the ``torch.export``-based exporter, which has none: ONNX ``TopK`` over the whole axis,
    whose ties come lower index first (the ONNX specification), i.e. a stable sort."""
    from onnxscript import opset18 as op
    size = op.Reshape(op.Gather(op.Shape(self), op.Constant(value_int=dim)), op.Constant(value_ints=[1]))
    values, indices = op.TopK(self, size, axis=dim, largest=1 if descending else 0, sorted=1)
    return values, indices


def _greedy_nms_onnx(boxes, priority, classes, overlap_thresh: float):
    """``mxtorch::greedy_nms`` (box_nms under a graph capture) as ONNX ``NonMaxSuppression``:
    one ONNX class per distinct class value (``Unique``'s inverse indices), the priorities
    as scores (candidates >= 1, others 0 and below the 0.5 score threshold; distinct, so the
    greedy order is the priority order), at most N boxes per class; the selected
    ``(batch, class, box)`` triples scattered into a ``(B, N)`` mask.  onnxruntime suppresses
    at IoU strictly above the threshold and never by a box of zero area, as MXNet."""
    from onnxscript import opset18 as op
    shape = op.Shape(priority)
    _, _, inverse, _ = op.Unique(op.Reshape(classes, op.Constant(value_ints=[-1])), sorted=1)
    members = op.Reshape(inverse, shape)                                          # (B, N) class numbers
    kinds = op.Add(op.ReduceMax(members, keepdims=0), op.Constant(value_int=1))
    numbers = op.Range(op.Constant(value_int=0), kinds, op.Constant(value_int=1))
    member = op.Equal(op.Unsqueeze(members, op.Constant(value_ints=[1])),
                      op.Unsqueeze(numbers, op.Constant(value_ints=[0, 2])))      # (B, C, N)
    scores = op.Where(member, op.Unsqueeze(priority, op.Constant(value_ints=[1])), op.Constant(value_float=0.0))
    count = op.Slice(shape, op.Constant(value_ints=[1]), op.Constant(value_ints=[2]))
    selected = op.NonMaxSuppression(boxes, scores, count, op.Constant(value_floats=[overlap_thresh]),
                                    op.Constant(value_floats=[0.5]), center_point_box=0)
    places = op.Gather(selected, op.Constant(value_ints=[0, 2]), axis=1)          # (K, 2): batch, box
    ones = op.Expand(op.Constant(value_float=1.0), op.Slice(op.Shape(selected), op.Constant(value_ints=[0]),
                                                            op.Constant(value_ints=[1])))
    mask = op.ScatterND(op.Expand(op.Constant(value_float=0.0), shape), places, ones)
    return op.Cast(mask, to=9)      # BOOL


def _dynamo_translations():
    """The ONNX translations mxtorch adds to the ``torch.export``-based exporter."""
    from ..ops.boxes import greedy_nms  # noqa: F401  (registers torch.ops.mxtorch.greedy_nms)
    return {torch.ops.aten.sort.stable: _sort_stable_onnx,
            torch.ops.mxtorch.greedy_nms.default: _greedy_nms_onnx}


def _expm1_symbolic(g, value):
    """``aten::expm1`` for the TorchScript-based exporter, which has none (LeakyReLU's 'elu'):
    ``exp(x) - 1``."""
    return g.op("Sub", g.op("Exp", value), g.op("Constant", value_t=torch.tensor(1.0)))


def _trunc_symbolic(g, value):
    """``aten::trunc`` for the TorchScript-based exporter, which has none (Embedding truncates
    its float indices): ``sign(x) * floor(|x|)``."""
    return g.op("Mul", g.op("Sign", value), g.op("Floor", g.op("Abs", value)))


_LEGACY_SYMBOLICS = {"aten::trunc": _trunc_symbolic, "aten::expm1": _expm1_symbolic}
_LEGACY_REGISTERED = []


def _register_legacy_symbolics():
    """Give the TorchScript-based exporter the ONNX forms of the aten operators mxtorch's
    operators record and it lacks (once per process; opset 9 and later)."""
    if _LEGACY_REGISTERED:
        return
    for name, symbolic in _LEGACY_SYMBOLICS.items():
        torch.onnx.register_custom_op_symbolic(name, symbolic, 9)
    _LEGACY_REGISTERED.append(True)


def _check_onnx(path, module, input_names, inputs):
    """Compare the ONNX model's outputs in onnxruntime with the module's (skipped without onnxruntime)."""
    try:
        import onnxruntime
    except ImportError:
        return
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    got = session.run(None, {name: tensor.numpy() for name, tensor in zip(input_names, inputs)})
    with torch.no_grad():
        expected = module(*inputs)
    _check_same("to_onnx", expected, [torch.from_numpy(value) for value in got])


def _first_unexportable(module, inputs, opset_version):
    """The first operator of ``module`` that torch.onnx cannot export on its own (its MXNet
    operator name, node name and torch.onnx's error), found by exporting the first node of
    each operator type with the inputs it receives on ``inputs``; None if each exports."""
    recorded = {}

    def record(sub, args):
        # a forward pre-hook returning a value replaces the inputs: record, return None
        recorded.setdefault(sub.op.name, (sub, args))

    hooks = []
    for name, sub in module.named_modules():
        if isinstance(sub, OperatorModule):
            hooks.append(sub.register_forward_pre_hook(record))
    try:
        with torch.no_grad():
            module(*inputs)
    finally:
        for hook in hooks:
            hook.remove()
    for sub, args in recorded.values():
        temporary = _atomic_path(os.path.join(tempfile.gettempdir(), "probe.onnx"))
        try:
            _onnx_export(sub, args, temporary, None, None, opset_version)
        except Exception as error:      # noqa: BLE001 - reported with the operator's name
            return sub.op.name, sub.mxnet_name, error
        finally:
            if os.path.exists(temporary):
                os.remove(temporary)
    return None


def to_onnx(symbol, arg_params, aux_params, input_shapes, path, opset_version=18):
    """Write ``symbol`` with its parameters as the ONNX model ``path`` (returns ``path``).

    ``input_shapes``: ``[(name, shape), ...]`` of the data inputs: the ONNX graph's inputs
    have these names and shapes, its outputs the Symbol's output names.  The model is
    exported by ``torch.onnx.export`` (the ``torch.export``-based exporter, else the
    TorchScript-based one) from the ``to_torch`` module and, where onnxruntime is installed,
    checked against it before the file is written.

    Raises
    ------
    UnsupportedOperatorError
        for an operator that cannot be traced or that torch.onnx cannot express (naming the
        MXNet operator, its node and torch.onnx's message).
    MXNetError
        as ``to_torch``; MissingDependencyError (an MXNetError and an ImportError) naming the
        ``onnx`` extra when ``onnx`` is missing.
    """
    try:
        import onnx  # noqa: F401  (torch.onnx needs it)
    except ImportError:
        raise MissingDependencyError("to_onnx", "onnx", "onnx") from None
    input_shapes = normalize_shapes(input_shapes, "input_shapes")
    module = build_graph_module(symbol, arg_params, aux_params, input_shapes, check_exportable=True)
    inputs = _sample_inputs(input_shapes)
    input_names = [name for name, _ in input_shapes]
    temporary = _atomic_path(path)
    try:
        try:
            with torch.no_grad():
                _onnx_export(module, inputs, temporary, input_names, list(symbol.list_outputs()), opset_version)
        except Exception as error:      # noqa: BLE001 - turned into an error naming the operator
            culprit = _first_unexportable(module, inputs, opset_version)
            if culprit is not None:
                op_name, node_name, cause = culprit
                raise UnsupportedOperatorError(f"to_onnx: operator {op_name!r} (node {node_name!r}) cannot be "
                                               f"exported to ONNX opset {opset_version}: {cause}") from None
            raise MXNetError(f"to_onnx: torch.onnx.export failed: {error}") from error
        try:
            _check_onnx(temporary, module, input_names, _sample_inputs(input_shapes, seed=1))
        except MXNetError:
            raise
        except Exception:  # noqa: BLE001 - onnxruntime refused the unoptimized file: the optimized one, checked
            # (the unoptimized form of a folded 3-D convolution gives Conv a bias that is not 1-D)
            with torch.no_grad():
                _onnx_export(module, inputs, temporary, input_names, list(symbol.list_outputs()), opset_version,
                             optimize=True)
            _check_onnx(temporary, module, input_names, _sample_inputs(input_shapes, seed=1))
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    return path


def default_data_shapes(symbol, arg_params, aux_params):
    """The data shapes recorded in the symbol's variables (``__shape__`` attributes of the
    arguments that are not parameters, labels excepted); raises MXNetError asking for
    ``--data-shapes`` when a data input has none."""
    from .graph import _label_inputs
    inputs = [name for name in symbol.list_arguments() if name not in arg_params]
    labels = _label_inputs(symbol, inputs)
    attributes = symbol.attr_dict()
    shapes, unknown = [], []
    for name in inputs:
        text = attributes.get(name, {}).get("__shape__")
        if text:
            shape = tuple(int(d) for d in text.strip("()[] ").split(",") if d.strip())
            if shape and all(d > 0 for d in shape):
                shapes.append((name, shape))
                continue
        if name not in labels:
            unknown.append(name)
    if unknown:
        raise MXNetError(f"convert: the symbol does not record the shape of its data input(s) {unknown}; give "
                         f"them with --data-shapes, e.g. --data-shapes {unknown[0]}:1x3x224x224")
    return shapes


def convert_checkpoint(prefix, epoch, to, path, data_shapes=None):
    """Export the checkpoint ``prefix-symbol.json`` + ``prefix-EPOCH.params`` to ``path``
    (``to``: 'torch' -> ``torch.save`` of the GraphModule (load with
    ``torch.load(path, weights_only=False)`` where mxtorch is installed); 'torchscript' ->
    ``torch.jit.save``; 'onnx' -> an ONNX file).  ``data_shapes`` default: those recorded in the
    symbol.  Returns ``path``."""
    from ..model import load_checkpoint
    if to not in ("torch", "torchscript", "onnx"):
        raise MXNetError(f"convert: --to must be torch, torchscript or onnx, got {to!r}")
    symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
    if data_shapes is None:
        data_shapes = default_data_shapes(symbol, arg_params, aux_params)
    if to == "onnx":
        return to_onnx(symbol, arg_params, aux_params, data_shapes, path)
    temporary = _atomic_path(path)
    try:
        if to == "torch":
            torch.save(to_torch(symbol, arg_params, aux_params, data_shapes), temporary)
        else:
            torch.jit.save(to_torchscript(symbol, arg_params, aux_params, data_shapes), temporary)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    return path
