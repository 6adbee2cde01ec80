"""MXNet's int8 operators of ``contrib`` (``quantized_fully_connected``, ``quantized_conv``,
``quantized_pooling``, ..., ``requantize``, ``quantize_asym``): the computation on quantized
arrays that ``mxnet.contrib.quantization`` graphs run.

A quantized array travels with its float range as two ``(1,)`` float32 inputs (``min_data``,
``max_data``; ``real = max(|min|, |max|)``).  The numbers are those of MXNet 1.9.1's CPU build
(its oneDNN kernels), measured with ``~/mxref``:

- ``quantized_fully_connected`` / ``quantized_conv`` accumulate ``data`` (int8 or uint8) times
  ``weight`` (int8) in int32; the int32 result stands for ``real_data / Ld * real_weight / 127``
  per step, where ``Ld`` is 127 for int8 data and 255 for uint8 (FC) or 127 for both (conv),
  and its range is that step times 2147483647.  The FC bias (int8) is brought to the output
  step as ``trunc(bias * (real_bias / 127) / (real_data / Qd * real_weight / 127))`` with ``Qd``
  127.5 (int8) or 255.5 (uint8); the conv bias is added unscaled, as MXNet's CPU kernel did.
  With ``min_calib_range`` / ``max_calib_range`` the int32 result is requantized to int8.
- ``requantize`` maps int32 to int8 over the calibration range, or over the data's own
  largest magnitude: ``round_half_even(value * real_in / 2147483647 / real_out * 127)``.
- ``quantized_elemwise_add`` adds the two real values (``q * real / 127.5`` each) into int32 over
  ``real_a + real_b``, or, calibrated, into int8 (``q * real / 127`` each).
- ``quantized_pooling`` (max, avg counting padding, sum) and ``quantized_concat`` work on the
  integers: averages and rescaled inputs round half to even, the range is kept (pooling) or is
  the union of the input ranges (concat).
- ``quantized_act`` (relu only, as MXNet), ``quantized_flatten`` and ``quantized_embedding``
  keep the integers and the range.
- ``quantized_batch_norm`` reads int8 steps of ``real / 127.5`` and writes int8 steps of
  ``calibrated / 127.5``.

None of them has a gradient.
"""
from __future__ import annotations

import numpy as np
import torch

from .convolution import Convolution
from .nn.fully_connected import FullyConnected
from .nn.pooling import Pooling
from .registry import Attr, Bool, Choice, Float, Int, Operator, Str, get_operator, merge_shape, optional, register

__all__ = []

_INT32_MAX = 2147483647.0
_F32 = np.dtype(np.float32)


def _real(low, high):
    """``max(|min|, |max|)`` of two ``(1,)`` range tensors, as a Python float."""
    return max(abs(float(low.reshape(-1)[0])), abs(float(high.reshape(-1)[0])))


def _range(value, device):
    return [torch.tensor([-value], dtype=torch.float32, device=device),
            torch.tensor([value], dtype=torch.float32, device=device)]


def _int8(values):
    return torch.round(values).clamp(-128, 127).to(torch.int8)


def _requantize_int32(values, step, calibrated, device):
    """int32 ``values`` of real step ``step`` as int8 over the calibration range ``calibrated``
    ((min, max) or None: the values' own largest magnitude) -> [int8, min, max]."""
    real = values.to(torch.float64) * step
    if calibrated is None:
        out_real = float(real.abs().max()) if real.numel() else 0.0
    else:
        out_real = max(abs(calibrated[0]), abs(calibrated[1]))
    scale = 127.0 / out_real if out_real else 0.0
    return [_int8(real * scale)] + _range(out_real, values.device)


class _Calibrated:
    min_calib_range = Attr(optional(Float), default=None)
    max_calib_range = Attr(optional(Float), default=None)

    def calibration(self):
        if self.min_calib_range is None or self.max_calib_range is None:
            return None
        return self.min_calib_range, self.max_calib_range


def _range_shapes(count):
    return [(1,)] * count


class _QuantizedOutputs:
    def outputs(self):
        return ["output", "min_output", "max_output"]

    def num_visible_outputs(self):
        return 3


@register("_contrib_requantize")
class Requantize(_Calibrated, _QuantizedOutputs, Operator):
    """int32 ``data`` (any shape) with its range ``min_range`` / ``max_range`` to int8 over
    ``[min_calib_range, max_calib_range]``, or without them over the data's own largest
    magnitude; outputs the int8 array and its range (MXNet's ``contrib.requantize``)."""

    out_type = Attr(Choice("auto", "int8", "uint8"), default="int8")

    def arguments(self):
        return ["data", "min_range", "max_range"]

    def outputs(self):
        # MXNet 1.9.1 registered no output names for requantize: 'output0'...
        return ["output0", "output1", "output2"]

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name}")
        return [data, (1,), (1,)], [data, (1,), (1,)], []

    def infer_type(self, in_types):
        return [np.dtype(np.int32), _F32, _F32], [np.dtype(np.int8), _F32, _F32], []

    def forward(self, is_train, inputs, aux):
        data, low, high = inputs
        if data.dtype != torch.int32:
            raise self.error(f"data must be int32, got {data.dtype}")
        return _requantize_int32(data, _real(low, high) / _INT32_MAX, self.calibration(), data.device)


@register("_contrib_quantize_asym")
class QuantizeAsym(_Calibrated, Operator):
    """float32 ``data`` to uint8 with a scale and a shift (asymmetric quantization, MXNet's
    ``contrib.quantize_asym``): ``out = saturate(trunc(data * scale + shift + 0.5))`` with
    ``scale = 255 / (max - min)`` and ``shift = 255 - max * scale`` over the calibration range,
    or the data's minimum and maximum without one.  Outputs ``out``, ``scale`` and ``shift``
    (``(1,)`` float32 each).  (MXNet 1.9.1's CPU kernel crashed on imperative calls; this follows
    its documented formula.)"""

    def outputs(self):
        return ["output", "scale", "shift"]

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name}")
        return [data], [data, (1,), (1,)], []

    def infer_type(self, in_types):
        return [_F32], [np.dtype(np.uint8), _F32, _F32], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0].detach().to(torch.float32)
        calibrated = self.calibration()
        low, high = calibrated if calibrated is not None else (float(data.min()), float(data.max()))
        scale = np.float32(255.0) / np.float32(high - low) if high > low else np.float32(1.0)
        shift = np.float32(255.0) - np.float32(high) * scale
        out = torch.trunc(data * float(scale) + float(shift) + 0.5).clamp(0, 255).to(torch.uint8)
        return [out, torch.tensor([float(scale)], device=data.device), torch.tensor([float(shift)], device=data.device)]


@register("_contrib_quantized_flatten")
class QuantizedFlatten(_QuantizedOutputs, Operator):
    """``Flatten`` of an int8 / uint8 ``data`` ``(batch, ...)`` to ``(batch, rest)``; the range
    passes through (MXNet's ``contrib.quantized_flatten``)."""

    def arguments(self):
        return ["data", "min_data", "max_data"]

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        out = None if data is None else (data[0], int(np.prod(data[1:])))
        return [data, (1,), (1,)], [out, (1,), (1,)], []

    def infer_type(self, in_types):
        return [in_types[0], _F32, _F32], [in_types[0], _F32, _F32], []

    def forward(self, is_train, inputs, aux):
        data, low, high = inputs
        return [data.reshape(data.shape[0], -1).clone(), low.clone(), high.clone()]


@register("_contrib_quantized_act")
class QuantizedActivation(_QuantizedOutputs, Operator):
    """``relu`` of an int8 / uint8 ``data``; the range passes through (MXNet's
    ``contrib.quantized_act``, which supports ``act_type='relu'`` only: MXNetError otherwise)."""

    act_type = Attr(Choice("relu", "sigmoid", "tanh", "softrelu", "softsign"), required=True)

    def validate(self):
        if self.act_type != "relu":
            raise self.error(f"only act_type='relu' is supported (as in MXNet 1.9.1), got {self.act_type!r}")

    def arguments(self):
        return ["data", "min_data", "max_data"]

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name}")
        return [data, (1,), (1,)], [data, (1,), (1,)], []

    def infer_type(self, in_types):
        return [in_types[0], _F32, _F32], [in_types[0], _F32, _F32], []

    def forward(self, is_train, inputs, aux):
        data, low, high = inputs
        return [data.clamp(min=0), low.clone(), high.clone()]


@register("_contrib_quantized_embedding")
class QuantizedEmbedding(_QuantizedOutputs, Operator):
    """Row lookup in an int8 ``weight`` ``(input_dim, output_dim)`` for float ``data`` indices
    (clipped to the table); the output is int8 ``data.shape + (output_dim,)`` with the weight's
    range (MXNet's ``contrib.quantized_embedding``)."""

    input_dim = Attr(Int, required=True)
    output_dim = Attr(Int, required=True)
    dtype = Attr(Str, default="float32")
    sparse_grad = Attr(Bool, default=False)

    def arguments(self):
        return ["data", "weight", "min_weight", "max_weight"]

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        out = None if data is None else tuple(data) + (self.output_dim,)
        return [data, (self.input_dim, self.output_dim), (1,), (1,)], [out, (1,), (1,)], []

    def infer_type(self, in_types):
        return [in_types[0] or _F32, np.dtype(np.int8), _F32, _F32], [np.dtype(np.int8), _F32, _F32], []

    def forward(self, is_train, inputs, aux):
        data, weight, low, high = inputs
        rows = data.detach().to(torch.float64).trunc().to(torch.int64).clamp(0, self.input_dim - 1)
        return [weight[rows], low.clone(), high.clone()]


@register("_contrib_quantized_concat")
class QuantizedConcat(_QuantizedOutputs, Operator):
    """``Concat`` of ``num_args`` int8 / uint8 arrays along ``dim``; inputs are the arrays then
    ``min_i``, ``max_i`` of each.  The output is uint8 when every input is, else int8; its range
    is the union of the input ranges; each input is rescaled to it
    (``round_half_even(q * (real_i / L_i) / (real_out / L_out))``, ``L`` 255 for uint8, 127 for
    int8) as MXNet's CPU kernel does (MXNet's ``contrib.quantized_concat``)."""

    variadic = True
    num_args = Attr(Int, required=True)
    dim = Attr(Int, default=1)

    def arguments(self):
        names = [f"arg{i}" for i in range(self.num_args)]
        for i in range(self.num_args):
            names += [f"arg{i}_min", f"arg{i}_max"]
        return names

    def infer_shape(self, in_shapes, out_shapes):
        concat = get_operator("Concat")({"num_args": self.num_args, "dim": self.dim})
        data, out, _ = concat.infer_shape(in_shapes[:self.num_args], out_shapes[:1])
        return list(data) + _range_shapes(2 * self.num_args), [out[0], (1,), (1,)], []

    def infer_type(self, in_types):
        known = [t for t in in_types[:self.num_args] if t is not None]
        first = known[0] if known else None
        data = [t if t is not None else first for t in in_types[:self.num_args]]
        if not known:
            out = None
        else:
            # int8 as soon as one input is int8 (a uint8 input is rescaled into it)
            out = np.dtype(np.uint8) if all(np.dtype(t) == np.uint8 for t in known) else np.dtype(np.int8)
        return data + [_F32] * (2 * self.num_args), [out, _F32, _F32], []

    def forward(self, is_train, inputs, aux):
        arrays, ranges = inputs[:self.num_args], inputs[self.num_args:]
        lows = [float(r.reshape(-1)[0]) for r in ranges[0::2]]
        highs = [float(r.reshape(-1)[0]) for r in ranges[1::2]]
        low, high = min(lows), max(highs)
        out_real = max(abs(low), abs(high))
        out_dtype = torch.uint8 if all(a.dtype == torch.uint8 for a in arrays) else torch.int8
        levels = lambda dtype: 255.0 if dtype == torch.uint8 else 127.0
        parts = []
        for array, a, b in zip(arrays, lows, highs):
            real = max(abs(a), abs(b))
            factor = (real / levels(array.dtype)) / (out_real / levels(out_dtype)) if out_real else 1.0
            if factor == 1.0:
                parts.append(array.to(out_dtype))
            else:
                parts.append(torch.round(array.to(torch.float64) * factor).to(out_dtype))
        device = arrays[0].device
        return [torch.cat(parts, dim=self.dim), torch.tensor([low], device=device),
                torch.tensor([high], device=device)]


@register("_contrib_quantized_elemwise_add")
class QuantizedElementwiseAdd(_Calibrated, _QuantizedOutputs, Operator):
    """The sum of two quantized arrays of one shape, ``lhs`` and ``rhs``, with their ranges
    (``lhs_min``, ``lhs_max``, ``rhs_min``, ``rhs_max``): int32 over ``real_lhs + real_rhs``, or
    int8 over the calibration range (MXNet's ``contrib.quantized_elemwise_add``; see the module
    rules).  MXNet 1.9.1 dropped a uint8 operand added to an int8 one; here both count."""

    int32_output = True

    def arguments(self):
        return ["lhs", "rhs", "lhs_min", "lhs_max", "rhs_min", "rhs_max"]

    def infer_shape(self, in_shapes, out_shapes):
        shape = merge_shape(in_shapes[0], in_shapes[1], f"Operator {self.name}")
        shape = merge_shape(shape, out_shapes[0], f"Operator {self.name}")
        return [shape, shape] + _range_shapes(4), [shape, (1,), (1,)], []

    def infer_type(self, in_types):
        out = np.dtype(np.int8) if self.calibration() is not None else np.dtype(np.int32)
        return [in_types[0], in_types[1]] + [_F32] * 4, [out, _F32, _F32], []

    def forward(self, is_train, inputs, aux):
        lhs, rhs, lhs_low, lhs_high, rhs_low, rhs_high = inputs
        lhs_real, rhs_real = _real(lhs_low, lhs_high), _real(rhs_low, rhs_high)
        calibrated = self.calibration()
        levels = lambda t, calib: (255.0 if calib else 255.5) if t.dtype == torch.uint8 else \
            (127.0 if calib else 127.5)
        total = lhs.to(torch.float64) * (lhs_real / levels(lhs, calibrated)) + \
            rhs.to(torch.float64) * (rhs_real / levels(rhs, calibrated))
        if calibrated is not None:
            out_real = max(abs(calibrated[0]), abs(calibrated[1]))
            return [_int8(total * (127.0 / out_real))] + _range(out_real, lhs.device)
        # MXNet's CPU kernel lands on the float32 nearest to the exact int32 step count
        out_real = lhs_real + rhs_real
        steps = (total * (_INT32_MAX / out_real)).to(torch.float32).to(torch.float64)
        values = torch.round(steps).clamp(-_INT32_MAX, _INT32_MAX).to(torch.int32)
        return [values] + _range(out_real, lhs.device)


@register("_contrib_quantized_elemwise_mul")
class QuantizedElementwiseMul(_Calibrated, _QuantizedOutputs, Operator):
    """The product of two int8 arrays of one shape with their ranges: int32 ``lhs * rhs`` standing
    for steps of ``real_lhs / 127 * real_rhs / 127`` (range that step times 2147483647), int8
    over the calibration range when given, or float32 with ``enable_float_output``
    (``contrib.quantized_elemwise_mul``; MXNet 1.9.1's imperative front end could not run it,
    so these are the rules of its other int8 kernels)."""

    enable_float_output = Attr(Bool, default=False)

    def arguments(self):
        return ["lhs", "rhs", "lhs_min", "lhs_max", "rhs_min", "rhs_max"]

    def outputs(self):
        return ["output"] if self.enable_float_output else ["output", "min_output", "max_output"]

    def num_visible_outputs(self):
        return len(self.outputs())

    def infer_shape(self, in_shapes, out_shapes):
        shape = merge_shape(in_shapes[0], in_shapes[1], f"Operator {self.name}")
        return [shape, shape] + _range_shapes(4), [shape] + _range_shapes(len(self.outputs()) - 1), []

    def infer_type(self, in_types):
        if self.enable_float_output:
            return [in_types[0], in_types[1]] + [_F32] * 4, [_F32], []
        out = np.dtype(np.int8) if self.calibration() is not None else np.dtype(np.int32)
        return [in_types[0], in_types[1]] + [_F32] * 4, [out, _F32, _F32], []

    def forward(self, is_train, inputs, aux):
        lhs, rhs, lhs_low, lhs_high, rhs_low, rhs_high = inputs
        step = _real(lhs_low, lhs_high) / 127.0 * _real(rhs_low, rhs_high) / 127.0
        product = lhs.to(torch.int32) * rhs.to(torch.int32)
        if self.enable_float_output:
            return [(product.to(torch.float64) * step).to(torch.float32)]
        if self.calibration() is not None:
            return _requantize_int32(product, step, self.calibration(), lhs.device)
        return [product] + _range(step * _INT32_MAX, lhs.device)


def _float_operator(op, name):
    """The float operator ``name`` with the attributes of quantized ``op`` that it declares."""
    cls = get_operator(name)
    return cls({key: value for key, value in op.attrs.items() if key in cls.schema})


class _QuantizedLayer(_Calibrated, _QuantizedOutputs):
    """Base of quantized_fully_connected / quantized_conv: the float layer's attributes, inputs
    ``data, weight[, bias], min_data, max_data, min_weight, max_weight[, min_bias, max_bias]``."""

    float_name = None
    data_levels = None      # {dtype: levels of the output step}
    quantized_name = None   # not inherited from the float layer
    sparse_storage = None

    def float_arguments(self):
        return ["data", "weight"] + ([] if self.no_bias else ["bias"])

    def arguments(self):
        ranges = ["min_data", "max_data", "min_weight", "max_weight"] + ([] if self.no_bias else ["min_bias", "max_bias"])
        return self.float_arguments() + ranges

    def infer_shape(self, in_shapes, out_shapes):
        count = len(self.float_arguments())
        layer = _float_operator(self, self.float_name)
        shapes_in, shapes_out, _ = layer.infer_shape(list(in_shapes[:count]), list(out_shapes[:1]))
        return list(shapes_in) + _range_shapes(len(in_shapes) - count), [shapes_out[0], (1,), (1,)], []

    def infer_type(self, in_types):
        data = in_types[0] if in_types[0] is not None else np.dtype(np.int8)
        count = len(self.float_arguments())
        out = np.dtype(np.int8) if self.calibration() is not None else np.dtype(np.int32)
        return [data] + [np.dtype(np.int8)] * (count - 1) + [_F32] * (len(in_types) - count), [out, _F32, _F32], []

    def forward(self, is_train, inputs, aux):
        count = len(self.float_arguments())
        data, weight = inputs[0], inputs[1]
        if data.dtype not in (torch.int8, torch.uint8) or weight.dtype != torch.int8:
            raise self.error(f"data must be int8 or uint8 and weight int8, got {data.dtype} and {weight.dtype}")
        ranges = inputs[count:]
        data_real, weight_real = _real(ranges[0], ranges[1]), _real(ranges[2], ranges[3])
        layer = _float_operator(self, self.float_name)
        values = [data.to(torch.float64), weight.to(torch.float64)]
        if not self.no_bias:
            values.append(self.bias_in_steps(inputs[2], _real(ranges[4], ranges[5]), data, data_real, weight_real))
        accumulated = torch.round(layer.forward(False, values, [])[0]).to(torch.int32)
        step = data_real / self.data_levels[data.dtype] * weight_real / 127.0
        if self.calibration() is not None:
            return _requantize_int32(accumulated, step, self.calibration(), data.device)
        return [accumulated] + _range(step * _INT32_MAX, data.device)


@register("_contrib_quantized_fully_connected")
class QuantizedFullyConnected(_QuantizedLayer, FullyConnected):
    """``FullyConnected`` of int8 / uint8 ``data`` and int8 ``weight`` accumulated in int32, with
    the ranges of data, weight and bias as ``(1,)`` float32 inputs; outputs int32 (int8 when
    calibrated) and its range (MXNet's ``contrib.quantized_fully_connected``; module rules)."""

    int32_output = True

    float_name = "FullyConnected"
    data_levels = {torch.int8: 127.0, torch.uint8: 255.0}

    def bias_in_steps(self, bias, bias_real, data, data_real, weight_real):
        levels = 127.5 if data.dtype == torch.int8 else 255.5
        factor = np.float32(bias_real / 127.0) / np.float32(data_real / levels * weight_real / 127.0)
        return torch.trunc(bias.to(torch.float64) * float(factor))


@register("_contrib_quantized_conv")
class QuantizedConvolution(_QuantizedLayer, Convolution):
    """``Convolution`` of int8 / uint8 ``data`` and int8 ``weight`` accumulated in int32 (the int8
    bias added as it is, as MXNet's CPU kernel does), with the ranges of data, weight and bias as
    ``(1,)`` float32 inputs; outputs int32 (int8 when calibrated) and its range (MXNet's
    ``contrib.quantized_conv``; module rules)."""

    int32_output = True

    float_name = "Convolution"
    data_levels = {torch.int8: 127.0, torch.uint8: 127.0}

    def bias_in_steps(self, bias, bias_real, data, data_real, weight_real):
        return bias.to(torch.float64)


@register("_contrib_quantized_pooling")
class QuantizedPooling(_QuantizedOutputs, Pooling):
    """``Pooling`` (max, avg, sum) of an int8 / uint8 ``data`` with its range ``min_data`` /
    ``max_data``: averages round half to even; the integers keep their dtype and the range
    passes through (MXNet's ``contrib.quantized_pooling``)."""

    quantized_name = None

    def arguments(self):
        return ["data", "min_data", "max_data"]

    def infer_shape(self, in_shapes, out_shapes):
        shapes_in, shapes_out, _ = _float_operator(self, "Pooling").infer_shape(in_shapes[:1], out_shapes[:1])
        return list(shapes_in) + [(1,), (1,)], [shapes_out[0], (1,), (1,)], []

    def infer_type(self, in_types):
        return [in_types[0], _F32, _F32], [in_types[0], _F32, _F32], []

    def forward(self, is_train, inputs, aux):
        data, low, high = inputs
        pooled = _float_operator(self, "Pooling").forward(False, [data.to(torch.float64)], [])[0]
        info = torch.iinfo(data.dtype)
        return [torch.round(pooled).clamp(info.min, info.max).to(data.dtype), low.clone(), high.clone()]


@register("_contrib_quantized_batch_norm")
class QuantizedBatchNorm(_Calibrated, _QuantizedOutputs, Operator):
    """Inference ``BatchNorm`` of an int8 ``data`` (range ``min_data`` / ``max_data``, step
    ``real / 127.5``) with float32 ``gamma``, ``beta``, ``moving_mean``, ``moving_var`` over axis 1,
    requantized to int8 over ``[min_calib_range, max_calib_range]``, which MXNet 1.9.1 requires
    (MXNetError without it) (MXNet's ``contrib.quantized_batch_norm``).  As MXNet's CPU kernel:
    ``gamma`` is applied whatever ``fix_gamma`` says, and the result is quantized with 127.5
    steps per ``max(|min_calib_range|, |max_calib_range|)`` (saturating at 127)."""

    eps = Attr(Float, default=1e-3)
    momentum = Attr(Float, default=0.9)
    fix_gamma = Attr(Bool, default=True)
    use_global_stats = Attr(Bool, default=False)
    output_mean_var = Attr(Bool, default=False)
    axis = Attr(Int, default=1)
    cudnn_off = Attr(Bool, default=False)

    def validate(self):
        if self.calibration() is None:
            raise self.error("min_calib_range and max_calib_range are required (MXNet's quantized BatchNorm has "
                             "no uncalibrated form)")

    def arguments(self):
        return ["data", "gamma", "beta", "moving_mean", "moving_var", "min_data", "max_data"]

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        channels = None if data is None else (data[self.axis % len(data)],)
        return [data] + [channels] * 4 + [(1,), (1,)], [data, (1,), (1,)], []

    def infer_type(self, in_types):
        return [np.dtype(np.int8)] + [_F32] * 6, [np.dtype(np.int8), _F32, _F32], []

    def forward(self, is_train, inputs, aux):
        data, gamma, beta, mean, var, low, high = inputs
        shape = [1] * data.dim()
        shape[self.axis % data.dim()] = -1
        real = data.to(torch.float64) * (_real(low, high) / 127.5)
        scale = gamma.to(torch.float64)
        normalised = (real - mean.to(torch.float64).reshape(shape)) / \
            torch.sqrt(var.to(torch.float64).reshape(shape) + self.eps)
        result = normalised * scale.reshape(shape) + beta.to(torch.float64).reshape(shape)
        out_real = max(abs(self.min_calib_range), abs(self.max_calib_range))
        return [_int8(result * (127.5 / out_real))] + _range(out_real, data.device)
