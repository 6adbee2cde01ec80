"""MXNet 1.9.1's oneDNN fused operators ``_sg_mkldnn_conv``, ``_sg_mkldnn_fully_connected`` and
``_sg_mkldnn_selfatt_qk`` / ``_sg_mkldnn_selfatt_valatt`` (the last two: see their classes): the nodes the ``MKLDNN`` / ``MKLDNN_QUANTIZE`` subgraph backends (``mxtorch.subgraph.mkldnn``)
put in place of a Convolution (+ BatchNorm) (+ activation) (+ elemwise_add) (+ activation) chain
and of a FullyConnected (+ elementwise) pair.  Each node holds the chain as its subgraph (the
``"subgraphs"`` key of symbol JSON), as MXNet writes it.

Inputs, in MXNet's order (``FListInputNames``):

- ``_sg_mkldnn_conv``: ``data, weight, [bias], [gamma, beta, mean, var], [sum]``, and with
  ``quantized``: ``data_min, data_max, [sum_min, sum_max]``.  ``mean`` / ``var`` are auxiliary
  states (MXNet's mutable inputs) although arguments follow them: mxtorch keeps a node's
  auxiliary states last, and ``json_input_order`` maps the two orders when symbol JSON is read
  and written.
- ``_sg_mkldnn_fully_connected``: ``data, weight, [bias]`` and, quantized, ``min_data,
  max_data`` then (tensor-wise) ``min_weight, max_weight, [min_bias, max_bias]``.

Float32 (``quantized`` false): the node computes its subgraph (the numbers of the unfused chain;
the fusion is a speed rewrite).  Quantized, the node computes what MXNet's oneDNN kernels
compute (``src/operator/subgraph/mkldnn/mkldnn_conv.cc``, ``mkldnn_fc.cc``), emulated exactly
in float64 / float32 on torch:

- scales: ``s_data = L / max(|min_data|, |max_data|)`` with ``L`` 127.5 (int8) or 255.5 (uint8),
  MXNet 1.9.1's ``kInt8Range`` / ``kUint8Range`` (the levels ``quantize_v2`` quantizes with); the
  convolution folds BatchNorm into its float weight and bias (``alpha = gamma / sqrt(var + eps)``,
  ``w *= alpha``, ``b = beta + alpha * (b - mean)``) and quantizes the weight itself, per output
  channel (``s_w[c] = 127.5 / max|w[c]|``, lowered so that ``|b[c]| * s_data * s_w[c]`` stays within
  2**31 / 2) when the output is calibrated, else over the whole tensor; int8 weights are
  ``round_half_even(w * s_w)`` and the int32 bias ``round(b * s_data * s_w)``;
- the int32 accumulation ``data * weight + bias`` becomes, with ``min_calib_range`` /
  ``max_calib_range``, ``act(acc * s_out / s_data / s_w)`` (``s_out`` over the calibration
  range, 255 when the fused activation makes the output uint8), plus ``s_out / s_sum * sum`` for
  a fused sum, then the post-sum activation, rounded half to even and saturated; without them
  the output is the int32 accumulation with the range ``max|data| / L * max|w| / 127 * (2**31-1)``;
- the FullyConnected's int8 ``weight`` / ``bias`` come quantized with their ranges (tensor-wise)
  or float (``channel_wise_quantize``); ``enable_float_output`` gives float32
  ``act(acc / s_data / s_w)``.

Outputs: ``output`` (float32), or ``output`` and its range ``(1,)`` float32 pair.  No gradient
(MXNet's are inference-only operators).

oneDNN's int8 arithmetic depends on the CPU (``_onednn_vnni``): with AVX-512 VNNI the int32
products are exact; without it (AVX2, AVX-512 without VNNI) the convolution of an int8 source
quantizes its weights at half the scale (``round(w * s_w / 2)``, bias halved, output scale
doubled) and that of a uint8 source sums the products of input channels ``2p, 2p+1`` at each
kernel position in int16 with saturation.  mxtorch follows the CPU it runs on
(``MXTORCH_ONEDNN_VNNI=1`` / ``0`` chooses), and reproduces MXNet's int8 convolution outputs
exactly on both kinds (tests/data/mkldnn: VNNI reference graphs, and single_conv.npz from an AVX2
CPU).  Not modelled: the same saturation inside oneDNN's int8 matrix products without VNNI (the
FullyConnected and the self-attention products, whose int8 source is shifted by 128 to uint8),
which changes MXNet's results there only when pairs of large products meet.
"""
from __future__ import annotations

import os

import numpy as np
import torch

from .registry import Attr, Bool, Float, Int, optional, register
from .subgraph_op import CachedOp

__all__ = []

_INT32_MAX = 2147483647.0
_F32 = np.dtype(np.float32)


def _scalar(tensor):
    return float(tensor.reshape(-1)[0])


def _max_abs(low, high):
    return max(abs(low), abs(high))


def _quantize_scale(dtype, low, high):
    """MXNet's ``GetQuantizeScale``: levels per unit of the range ``(low, high)``, with MXNet
    1.9.1's ``kUint8Range`` 255.5 and ``kInt8Range`` 127.5 (the levels ``quantize_v2`` uses, so
    the kernels read its int8 values at the scale they were made with); a zero range gives
    2147483647 (MXNet's stand-in for an infinite scale)."""
    levels = 255.5 if dtype in (torch.uint8, np.dtype(np.uint8)) else 127.5
    real = _max_abs(low, high)
    return np.float32(levels / real) if real else np.float32(_INT32_MAX)


def _saturate(values, dtype):
    """Round half to even and saturate to ``dtype`` (oneDNN's float -> int8 / uint8 store)."""
    low, high = (0, 255) if dtype == torch.uint8 else (-128, 127)
    return torch.round(values).clamp(low, high).to(dtype)


def _ranges(low, high, device):
    return [torch.tensor([low], dtype=torch.float32, device=device),
            torch.tensor([high], dtype=torch.float32, device=device)]


def _eltwise(node, values):
    """The activation of subgraph node ``node`` (Activation, LeakyReLU, clip, square, sqrt, exp,
    abs) on ``values`` (torch float), as oneDNN's eltwise post-op computes it."""
    op = node.op
    name = op.name
    if name == "Activation":
        kind = op.act_type
        if kind == "relu":
            return torch.relu(values)
        if kind == "sigmoid":
            return torch.sigmoid(values)
        if kind == "tanh":
            return torch.tanh(values)
        if kind == "softrelu":
            return torch.nn.functional.softplus(values)
        if kind == "softsign":
            return values / (1 + values.abs())
        raise op.error(f"act_type {kind!r} cannot be fused")
    if name == "LeakyReLU":
        kind = op.act_type
        if kind == "leaky":
            return torch.where(values > 0, values, values * op.slope)
        if kind == "elu":
            return torch.where(values > 0, values, op.slope * torch.expm1(values))
        if kind == "gelu":
            return torch.nn.functional.gelu(values)
        raise op.error(f"act_type {kind!r} cannot be fused")
    if name == "clip":
        return values.clamp(op.a_min, op.a_max)
    if name == "square":
        return values * values
    if name == "sqrt":
        return torch.sqrt(values)
    if name == "exp":
        return torch.exp(values)
    if name == "abs":
        return values.abs()
    raise op.error("cannot be fused into a oneDNN operator")


def _uint8_activation(node):
    """MXNet's ``IsOutputUInt8``: the activation gives a non-negative output (relu, sigmoid,
    softrelu, clip from 0)."""
    if node is None:
        return False
    op = node.op
    if op.name == "Activation":
        return op.act_type in ("relu", "sigmoid", "softrelu")
    return op.name == "clip"


def _chain(graph):
    """The operator nodes of a subgraph, inputs before readers."""
    return [node for node in graph._nodes() if node.op is not None]


class _MKLDNNFused(CachedOp):
    """What both fused operators share: the subgraph, the ``quantized`` form and its inputs."""

    quantized = Attr(Bool, default=False)
    min_calib_range = Attr(optional(Float), default=None)
    max_calib_range = Attr(optional(Float), default=None)
    traceable = False
    int32_output = True
    quantized_flag = "true"

    def quantized_operator(self):
        # the int8 form is the same operator with quantized=true (MXNet's FQuantizedOp)
        return None if self.quantized else self.name

    def quantized_attributes(self, attrs, granularity="tensor-wise"):
        attrs = dict(attrs)
        attrs["quantized"] = self.quantized_flag
        return attrs

    def calibration(self):
        if self.min_calib_range is None or self.max_calib_range is None:
            return None
        return float(self.min_calib_range), float(self.max_calib_range)

    # -- inputs ------------------------------------------------------------------------------------
    def quantized_extras(self):
        """The names of the range inputs of the quantized form (after the subgraph's inputs)."""
        raise NotImplementedError

    def _json_layout(self):
        """``(names, auxiliary flags)`` of the inputs in MXNet's order."""
        if self._layout is None:
            self.check_subgraphs(self.name)
            graph = self.subgraphs[0]
            names = list(graph.list_inputs())
            aux = set(graph.list_auxiliary_states())
            flags = [name in aux for name in names]
            if self.quantized:
                extras = self.quantized_extras()
                names += extras
                flags += [False] * len(extras)
            self._layout = (names, flags, False)
        return self._layout

    def _inputs_layout(self):
        return self._json_layout()

    @property
    def aux_repeated(self):
        return False

    def arguments(self):
        if not self.subgraphs:
            return []
        names, flags, _ = self._json_layout()
        return [n for n, is_aux in zip(names, flags) if not is_aux]

    def auxiliary_states(self):
        if not self.subgraphs:
            return []
        names, flags, _ = self._json_layout()
        return [n for n, is_aux in zip(names, flags) if is_aux]

    def json_input_order(self):
        """Position in ``arguments() + auxiliary_states()`` of each input in MXNet's order."""
        names, flags, _ = self._json_layout()
        arguments = [i for i, is_aux in enumerate(flags) if not is_aux]
        states = [i for i, is_aux in enumerate(flags) if is_aux]
        where = {position: k for k, position in enumerate(arguments + states)}
        return [where[i] for i in range(len(names))]

    def _mxnet_values(self, inputs, aux):
        names, flags, _ = self._json_layout()
        arguments, states = iter(inputs), iter(aux)
        return [next(states) if is_aux else next(arguments) for is_aux in flags]

    def _float_count(self):
        return len(self.subgraphs[0].list_inputs())

    def outputs(self):
        return ["output", "output_min", "output_max"] if self.quantized else ["output"]

    def num_outputs(self):
        return len(self.outputs())

    # -- inference ---------------------------------------------------------------------------------
    def _split_given(self, values):
        """Node-order values (arguments only; None for unknown aux) as MXNet-order values."""
        names, flags, _ = self._json_layout()
        arguments = iter(values)
        return [None if is_aux else next(arguments) for is_aux in flags]

    def _node_order(self, values):
        names, flags, _ = self._json_layout()
        return ([v for v, is_aux in zip(values, flags) if not is_aux],
                [v for v, is_aux in zip(values, flags) if is_aux])

    def infer_shape(self, in_shapes, out_shapes):
        if not self.quantized:
            return super().infer_shape(in_shapes, out_shapes)
        self.check_subgraphs("infer_shape")
        given = self._split_given(in_shapes)
        count = self._float_count()
        floats = list(given[:count])
        refined, outputs = self.subgraph_shapes(0, floats)
        values = list(refined) + [(1,)] * (len(given) - count)
        arguments, states = self._node_order(values)
        out = [outputs[0] if outputs[0] is not None else out_shapes[0]] + [(1,)] * (self.num_outputs() - 1)
        return arguments, out, states

    def infer_type(self, in_types):
        if not self.quantized:
            return super().infer_type(in_types)
        self.check_subgraphs("infer_type")
        given = self._split_given(in_types)
        types = self.quantized_input_types(given)
        arguments, states = self._node_order(types)
        return arguments, self.quantized_output_types(given), states

    # -- running -----------------------------------------------------------------------------------
    def forward(self, is_train, inputs, aux):
        values = self._mxnet_values(inputs, aux)
        if not self.quantized:
            return self._run_chain(values)
        with torch.no_grad():
            return self.quantized_forward(values)

    def _run_chain(self, values):
        """The float subgraph on ``values`` (its inputs in order), each node's operator run in
        turn for inference (the chain is a few operators: no executor is bound for it)."""
        graph = self.subgraphs[0]
        by_name = dict(zip(graph.list_inputs(), values))
        computed = {}
        for node in graph._nodes():      # the Symbol's nodes in topological order
            if node.op is None:
                computed[(id(node), 0)] = by_name[node.name]
                continue
            given = [computed[(id(child), index)] for child, index in node.inputs]
            count = len(node.op.arguments())
            outputs = node.op.apply(False, given[:count], given[count:])
            for index, value in enumerate(outputs):
                computed[(id(node), index)] = value
        return [computed[(id(node), index)] for node, index in graph._outputs[:1]]


@register("_sg_mkldnn_conv")
class SgMKLDNNConv(_MKLDNNFused):
    """A Convolution (+ BatchNorm) (+ activation) (+ elemwise_add) (+ activation) chain as one
    node, float32 or int8 (see the module docstring); ``with_bn``, ``with_act``, ``with_sum``,
    ``with_postsum_act`` say which parts the chain has (MXNet's ``_sg_mkldnn_conv``)."""

    with_bn = Attr(Bool, default=False)
    with_act = Attr(Bool, default=False)
    with_sum = Attr(Bool, default=False)
    with_postsum_act = Attr(Bool, default=False)
    # MXNet 1.5's names (the int8 model files GluonCV ships), read as 1.9.1's
    legacy_attributes = {"with_relu": "with_act", "with_postsum_relu": "with_postsum_act"}
    dedup_subgraph = Attr(Bool, default=False)

    def quantized_extras(self):
        return ["data_min", "data_max"] + (["sum_min", "sum_max"] if self.with_sum else [])

    def quantized_input_positions(self, granularity="tensor-wise"):
        # data and the sum operand; the weight, bias and BatchNorm parameters stay float
        # (the kernel quantizes them itself)
        positions = {0}
        if self.with_sum:
            positions.add(self._float_count() - 1)
        return positions

    def parts(self):
        """``(conv, bn, act, postsum_act)`` nodes of the subgraph (None where absent)."""
        conv = bn = act = post = None
        seen_sum = False
        for node in _chain(self.subgraphs[0]):
            name = node.op.name
            if name == "Convolution":
                conv = node
            elif name == "BatchNorm":
                bn = node
            elif name == "elemwise_add":
                seen_sum = True
            elif seen_sum:
                post = node
            else:
                act = node
        if conv is None:
            raise self.error("the subgraph holds no Convolution")
        return conv, bn, act, post

    def _uint8_output(self):
        conv, bn, act, post = self.parts()
        if self.with_postsum_act or post is not None:
            return _uint8_activation(post)
        return act is not None and not self.with_sum and _uint8_activation(act)

    def quantized_input_types(self, given):
        count = self._float_count()
        data = given[0] if given[0] is not None else np.dtype(np.int8)
        types = [data] + [_F32] * (count - 1)
        if self.with_sum:
            types[count - 1] = given[count - 1] if given[count - 1] is not None else np.dtype(np.int8)
        return types + [_F32] * (len(given) - count)

    def quantized_output_types(self, given):
        if self.calibration() is None:
            out = np.dtype(np.int32)
        else:
            out = np.dtype(np.uint8) if self._uint8_output() else np.dtype(np.int8)
        return [out, _F32, _F32]

    def _folded(self, values, conv, bn):
        """Float32 weight and bias (or None) with the BatchNorm folded in."""
        weight = values[1].to(torch.float32)
        position = 2
        bias = None
        if not conv.op.no_bias:
            bias = values[position].to(torch.float32)
            position += 1
        if bn is not None:
            gamma, beta, mean, var = (v.to(torch.float32) for v in values[position:position + 4])
            position += 4
            if bn.op.fix_gamma:
                gamma = torch.ones_like(gamma)
            alpha = gamma / torch.sqrt(var + np.float32(bn.op.eps))
            base = bias if bias is not None else torch.zeros_like(beta)
            bias = beta + alpha * (base - mean)
            weight = weight * alpha.reshape((-1,) + (1,) * (weight.dim() - 1))
        return weight, bias, position

    def quantized_forward(self, values):
        conv, bn, act, post = self.parts()
        data = values[0]
        if data.dtype not in (torch.int8, torch.uint8):
            raise self.error(f"quantized data must be int8 or uint8, got {data.dtype}")
        ranges = [_scalar(v) for v in values[self._float_count():]]
        data_min, data_max = ranges[0], ranges[1]
        if data_min < 0 and data.dtype != torch.int8:
            raise self.error("Expect int8 when data_min < 0.0, consider quantize model with int8.")
        data_scale = _quantize_scale(data.dtype, data_min, data_max)
        calibrated = self.calibration()
        position = 2 + (0 if conv.op.no_bias else 1) + (4 if bn is not None else 0)
        if calibrated is not None and self._torch_kernel_fits(data, act, post):
            previous = torch.backends.quantized.engine
            torch.backends.quantized.engine = "onednn"
            try:
                return self._torch_forward(conv, bn, values, position, data, data_scale, act, post, ranges,
                                           calibrated)
            finally:
                torch.backends.quantized.engine = previous
        weight, bias, position = self._folded(values, conv, bn)
        sum_value = values[position] if self.with_sum else None
        channels = weight.shape[0]
        flat = weight.reshape(channels, -1).to(torch.float64)
        if calibrated is not None:
            scales = _channel_scales(weight, bias, data_scale)
        else:
            low, high = float(flat.min()), float(flat.max())
            scales = torch.full((channels,), float(_quantize_scale(torch.int8, low, high)), dtype=torch.float32)
        shape = (-1,) + (1,) * (weight.dim() - 1)
        # oneDNN without VNNI: an int8 source runs with halved weights and a doubled output
        # scale, a uint8 source with int16-saturated pair sums (see _onednn_vnni)
        adjust = 1.0 if data.dtype == torch.uint8 or _onednn_vnni() else 0.5
        weight_q = torch.round(weight * scales.reshape(shape) * adjust).clamp(-128, 127).to(torch.float64)
        accumulated = _convolve(conv.op, data.to(torch.float64), weight_q)
        if data.dtype == torch.uint8 and not _onednn_vnni():
            _saturate_pairs(conv.op, data, weight_q, accumulated)
        accumulated = accumulated.to(torch.float32)
        if bias is not None:
            bias_q = torch.round(bias * (scales * data_scale)).to(torch.float32) * np.float32(adjust)
            accumulated = accumulated + bias_q.reshape((1, -1) + (1,) * (accumulated.dim() - 2))
        device = data.device
        if calibrated is None:
            # the int32 accumulation (MXNet fused no requantize): range of one step, from
            # MXNet's 127 / 255 levels of a product's range
            levels = 127.0 if data.dtype == torch.int8 else 255.0
            step = _max_abs(data_min, data_max) / levels * _max_abs(float(flat.min()), float(flat.max())) / 127.0
            out = accumulated.to(torch.float64) / adjust
            if act is not None:
                out = _eltwise(act, out)
            if self.with_sum:
                sum_scale = float(data_scale * scales[0]) / float(
                    _quantize_scale(sum_value.dtype, ranges[2], ranges[3]))
                out = out + sum_scale * sum_value.to(torch.float64)
            if post is not None:
                out = _eltwise(post, out)
            values_out = torch.round(out).clamp(-_INT32_MAX, _INT32_MAX).to(torch.int32)
            return [values_out] + _ranges(-step * _INT32_MAX, step * _INT32_MAX, device)
        out_dtype = torch.uint8 if self._uint8_output() else torch.int8
        out_scale = _quantize_scale(out_dtype, *calibrated)
        requantize = (out_scale / data_scale / scales).to(torch.float32) / np.float32(adjust)
        out = accumulated * requantize.reshape((1, -1) + (1,) * (accumulated.dim() - 2))
        if act is not None and not (act.op.name == "clip" and not self.with_sum):
            # conv + relu6 without a sum: the output scale's saturation does the cut-off
            out = _eltwise(act, out)
        if self.with_sum:
            sum_scale = out_scale / _quantize_scale(sum_value.dtype, ranges[2], ranges[3])
            out = out + np.float32(sum_scale) * sum_value.to(torch.float32)
        if post is not None:
            out = _eltwise(post, out)
        return [_saturate(out, out_dtype)] + _ranges(calibrated[0], calibrated[1], device)

    # -- torch's int8 kernels (see _int8_exact) -------------------------------------------------
    _packed = None

    def _torch_kernel_fits(self, data, act, post):
        """Whether torch's quantized convolution computes this node: a 2-D convolution on CPU,
        its activations relu (or a clip from 0 without a sum, which the output saturation does)."""
        if _int8_exact() or data.dim() != 4 or data.device.type != "cpu" or _onednn_vnni() != _cpu_vnni() \
                or "onednn" not in torch.backends.quantized.supported_engines:
            return False
        relu = lambda node: node.op.name == "Activation" and node.op.act_type == "relu"
        if act is not None and not (relu(act) or (act.op.name == "clip" and not self.with_sum)):
            return False
        return post is None or relu(post)

    def _torch_forward(self, conv, bn, values, position, data, data_scale, act, post, ranges, calibrated):
        """The calibrated int8 convolution by torch's oneDNN quantized kernels
        (``torch.ops.quantized.conv2d[_relu|_add|_add_relu]``): the int8 source as quint8 (an
        int8 one shifted by 128, zero point 128), MXNet's int8 weights per channel at ``1 /
        s_w`` (halved for an int8 source without VNNI, as oneDNN in MXNet), its int32 bias, the
        output at ``1 / s_out`` (int8 as quint8 with zero point 128); a fused sum is oneDNN's sum
        post-op.  The packed weights are kept while the parameters and the data range stay."""
        op = conv.op
        out_dtype = torch.uint8 if self._uint8_output() else torch.int8
        out_scale = float(_quantize_scale(out_dtype, *calibrated))
        sum_value = values[position] if self.with_sum else None
        params = values[1:position]
        key = (tuple((p.data_ptr(), p._version) for p in params), float(data_scale), data.dtype, _onednn_vnni())
        if self._packed is None or self._packed[0] != key:
            weight, bias, _ = self._folded(values, conv, bn)
            scales = _channel_scales(weight, bias, data_scale)
            channels = weight.shape[0]
            # an int8 source is shifted to uint8: without VNNI, oneDNN's halved weights keep the
            # int16 pair sums from saturating, and torch's kernels then give MXNet's numbers
            adjust = 0.5 if data.dtype == torch.int8 and not _onednn_vnni() else 1.0
            weight_q = torch.round(weight * scales.reshape(-1, 1, 1, 1) * adjust).clamp(-128, 127).to(torch.int8)
            weight_scales = 1.0 / scales.to(torch.float64)
            qweight = torch._make_per_channel_quantized_tensor(
                weight_q, weight_scales / adjust, torch.zeros(channels, dtype=torch.long), 0)
            bias_f = None
            if bias is not None:
                bias_q = torch.round(bias * (scales * data_scale)).to(torch.float64)
                bias_f = (bias_q * weight_scales / float(data_scale)).to(torch.float32)
            stride = list(op.stride) if op.stride else [1, 1]
            dilate = list(op.dilate) if op.dilate else [1, 1]
            pad = list(op.pad) if op.pad else [0, 0]
            self._packed = (key, torch.ops.quantized.conv2d_prepack(qweight, bias_f, stride, pad, dilate,
                                                                    op.num_group))
        packed = self._packed[1]
        source = _as_quint8(data, float(data_scale))
        signed_out = out_dtype == torch.int8
        zero = 128 if signed_out else 0
        relu = act is not None and act.op.name == "Activation"
        if self.with_sum and not relu:
            # oneDNN's sum post-op, as MXNet's fused sum: conv * scale + sum (+ relu), rounded once
            accum = _as_quint8(sum_value, float(_quantize_scale(sum_value.dtype, ranges[2], ranges[3])))
            function = torch.ops.quantized.conv2d_add_relu if post is not None else torch.ops.quantized.conv2d_add
            result = function(source, accum, packed, 1.0 / out_scale, zero)
        elif self.with_sum:
            # relu before the sum: the rounded convolution, then the sum
            convolved = torch.ops.quantized.conv2d_relu(source, packed, 1.0 / out_scale, 128)
            sum_scale = out_scale / _quantize_scale(sum_value.dtype, ranges[2], ranges[3])
            out = convolved.int_repr().to(torch.float32) - 128.0 + np.float32(sum_scale) * sum_value.to(torch.float32)
            if post is not None:
                out = torch.relu(out)
            return [_saturate(out, out_dtype)] + _ranges(calibrated[0], calibrated[1], data.device)
        else:
            function = torch.ops.quantized.conv2d_relu if relu else torch.ops.quantized.conv2d
            result = function(source, packed, 1.0 / out_scale, zero)
        result = result.int_repr()
        if signed_out:
            result = (result ^ 128).view(torch.int8)
        return [result] + _ranges(calibrated[0], calibrated[1], data.device)


def _channel_scales(weight, bias, data_scale):
    """MXNet's per-channel weight scales (``GetWeightScales``): ``127.5 / max|w[c]|``, lowered
    where the int32 bias ``b[c] * s_data * s_w[c]`` would pass 2**31 / 2; float32."""
    channels = weight.shape[0]
    flat = weight.reshape(channels, -1).to(torch.float64)
    real = torch.maximum(flat.min(1).values.abs(), flat.max(1).values.abs())
    scales = torch.where(real > 0, 127.5 / real, torch.tensor(_INT32_MAX, dtype=torch.float64))
    scales = scales.to(torch.float32)
    if bias is not None:
        limit = torch.where(bias > 0, torch.tensor(_INT32_MAX + 1), torch.tensor(-_INT32_MAX - 1))
        bound = (limit.to(torch.float32) / 2 / bias / data_scale).to(torch.float32)
        scales = torch.where(bias != 0, torch.minimum(scales, bound), scales)
    return scales


def _as_quint8(values, scale):
    """int8 / uint8 ``values`` at ``scale`` levels per unit as a torch quint8 tensor (an int8
    one shifted by 128: zero point 128)."""
    if values.dtype == torch.int8:
        return torch._make_per_tensor_quantized_tensor(values.view(torch.uint8) ^ 128, 1.0 / scale, 128)
    return torch._make_per_tensor_quantized_tensor(values, 1.0 / scale, 0)


def _int8_exact():
    """``MXTORCH_INT8_EXACT=1``: the int8 oneDNN nodes emulate oneDNN's integer arithmetic
    exactly (float32 / float64 products, see the module docstring) instead of running torch's
    quantized kernels where they apply."""
    return os.environ.get("MXTORCH_INT8_EXACT", "0").strip() not in ("", "0", "false", "False")


def _onednn_vnni():
    """Whether the int8 kernels follow oneDNN on a CPU with VNNI (exact int32 products), rather
    than without it (the AVX2 / AVX-512 kernels MXNet 1.9.1 runs elsewhere, which sum pairs of
    uint8 x int8 products in int16 with ``vpmaddubsw``: the convolution of an int8 source quantizes
    the weights at half their scale and doubles the output scale, that of a uint8 source
    saturates each pair sum to [-32768, 32767]).  ``MXTORCH_ONEDNN_VNNI=1`` / ``0`` chooses; by
    default, whether this CPU reports ``avx512_vnni`` (what MXNet's oneDNN would run here)."""
    choice = os.environ.get("MXTORCH_ONEDNN_VNNI", "").strip()
    if choice:
        return choice not in ("0", "false", "False")
    return _cpu_vnni()


def _cpu_vnni():
    """Whether this CPU reports AVX-512 VNNI (read once from /proc/cpuinfo)."""
    if _CPU_VNNI[0] is None:
        try:
            with open("/proc/cpuinfo") as handle:
                _CPU_VNNI[0] = "avx512_vnni" in handle.read()
        except OSError:
            _CPU_VNNI[0] = False
    return _CPU_VNNI[0]


_CPU_VNNI = [None]


def _saturate_pairs(op, data, weight, accumulated, chunk=256):
    """Add to ``accumulated`` (the exact convolution of uint8 ``data`` by int8-valued ``weight``,
    float64, 2-D) what oneDNN's int16 saturation of each pair sum ``x[2p] w[2p] + x[2p+1]
    w[2p+1]`` (input channels 2p, 2p+1 of a group at one kernel position) takes away.  Only pairs
    whose weights share a sign and exceed 32767 / 255 together can saturate; those are found
    first, so the cost follows their number."""
    if data.dim() != 4 or weight.shape[1] < 2:
        return
    out_channels, per_group = weight.shape[:2]
    pairs = per_group // 2
    w0, w1 = weight[:, 0:2 * pairs:2], weight[:, 1:2 * pairs:2]
    risky = (w0 * w1 > 0) & ((w0.abs() + w1.abs()) * 255 > 32767)
    if not bool(risky.any()):
        return
    o, p, kh, kw = risky.nonzero(as_tuple=True)
    stride = tuple(op.stride) if op.stride else (1, 1)
    dilate = tuple(op.dilate) if op.dilate else (1, 1)
    pad = tuple(op.pad) if op.pad else (0, 0)
    padded = torch.nn.functional.pad(data.to(torch.float64), (pad[1], pad[1], pad[0], pad[0]))
    height, width = accumulated.shape[2], accumulated.shape[3]
    rows = torch.arange(height, device=data.device) * stride[0]
    cols = torch.arange(width, device=data.device) * stride[1]
    first = (o // (out_channels // op.num_group)) * per_group + 2 * p
    for start in range(0, o.numel(), chunk):
        part = slice(start, start + chunk)
        ys = (rows[None, :] + (kh[part] * dilate[0])[:, None])[:, :, None]     # (R, H, 1)
        xs = (cols[None, :] + (kw[part] * dilate[1])[:, None])[:, None, :]     # (R, 1, W)
        c0 = first[part][:, None, None]
        x0 = padded[:, c0, ys, xs]                                             # (N, R, H, W)
        x1 = padded[:, c0 + 1, ys, xs]
        a = w0[o[part], p[part], kh[part], kw[part]].reshape(1, -1, 1, 1)
        b = w1[o[part], p[part], kh[part], kw[part]].reshape(1, -1, 1, 1)
        total = x0 * a + x1 * b
        accumulated.index_add_(1, o[part], total.clamp(-32768, 32767) - total)


def _exact_dtype(terms):
    """float32 when a sum of ``terms`` products of int8 by uint8 values stays exact in it (below
    2**24), else float64."""
    return torch.float32 if terms * 127 * 255 < 2 ** 24 else torch.float64


def _convolve(op, data, weight):
    """Convolution of integer-valued ``data`` and ``weight`` with the geometry of Convolution
    ``op``, exact (float32 where that is exact, else float64); float64 result."""
    dtype = _exact_dtype(weight[0].numel())
    data, weight = data.to(dtype), weight.to(dtype)
    dims = data.dim() - 2
    stride = tuple(op.stride) if op.stride else (1,) * dims
    dilate = tuple(op.dilate) if op.dilate else (1,) * dims
    pad = tuple(op.pad) if op.pad else (0,) * dims
    function = {1: torch.nn.functional.conv1d, 2: torch.nn.functional.conv2d,
                3: torch.nn.functional.conv3d}[dims]
    return function(data, weight, None, stride, pad, dilate, op.num_group).to(torch.float64)


@register("_sg_mkldnn_fully_connected")
class SgMKLDNNFullyConnected(_MKLDNNFused):
    """A FullyConnected (+ elementwise: Activation, LeakyReLU, clip from 0, square, sqrt, exp,
    abs) pair as one node, float32 or int8 (see the module docstring); ``with_eltwise`` says
    the pair has the elementwise part (MXNet's ``_sg_mkldnn_fully_connected``)."""

    with_eltwise = Attr(Bool, default=False)
    enable_float_output = Attr(Bool, default=False)
    channel_wise_quantize = Attr(optional(Bool), default=None)
    dedup_subgraph = Attr(Bool, default=False)

    def parts(self):
        fc = eltwise = None
        for node in _chain(self.subgraphs[0]):
            if node.op.name == "FullyConnected":
                fc = node
            else:
                eltwise = node
        if fc is None:
            raise self.error("the subgraph holds no FullyConnected")
        return fc, eltwise

    quantized_flag = "True"

    def channel_wise(self):
        return bool(self.channel_wise_quantize)

    def quantized_input_positions(self, granularity="tensor-wise"):
        # channel-wise: the weight and bias stay float (the kernel scales them per channel)
        if granularity == "channel-wise":
            return {0}
        return set(range(self._float_count()))

    def quantized_attributes(self, attrs, granularity="tensor-wise"):
        attrs = super().quantized_attributes(attrs, granularity)
        if granularity == "channel-wise":
            attrs["channel_wise_quantize"] = "True"
        return attrs

    def quantized_extras(self):
        fc, _ = self.parts()
        names = ["min_data", "max_data"]
        if not self.channel_wise():
            names += ["min_weight", "max_weight"] + ([] if fc.op.no_bias else ["min_bias", "max_bias"])
        return names

    def outputs(self):
        if self.quantized and not self.enable_float_output:
            return ["output", "min_output", "max_output"]
        return ["output"]

    def _uint8_output(self):
        _, eltwise = self.parts()
        return self.with_eltwise and _uint8_activation(eltwise)

    def quantized_input_types(self, given):
        count = self._float_count()
        data = given[0] if given[0] is not None else np.dtype(np.int8)
        params = _F32 if self.channel_wise() else np.dtype(np.int8)
        return [data] + [params] * (count - 1) + [_F32] * (len(given) - count)

    def quantized_output_types(self, given):
        if self.enable_float_output:
            return [_F32]
        if self.calibration() is None:
            return [np.dtype(np.int32), _F32, _F32]
        return [np.dtype(np.uint8) if self._uint8_output() else np.dtype(np.int8), _F32, _F32]

    def infer_shape(self, in_shapes, out_shapes):
        arguments, outputs, states = super().infer_shape(in_shapes, out_shapes)
        return arguments, outputs[:self.num_outputs()], states

    def quantized_forward(self, values):
        fc, eltwise = self.parts()
        data = values[0]
        if data.dtype not in (torch.int8, torch.uint8):
            raise self.error(f"quantized data must be int8 or uint8, got {data.dtype}")
        has_bias = not fc.op.no_bias
        count = self._float_count()
        ranges = [_scalar(v) for v in values[count:]]
        data_scale = _quantize_scale(data.dtype, ranges[0], ranges[1])
        weight = values[1]
        bias = values[2] if has_bias else None
        calibrated = self.calibration()
        channels = weight.shape[0]
        if self.channel_wise():
            if calibrated is None and not self.enable_float_output:
                raise self.error("channel-wise quantization requires a fused requantize or dequantize "
                                 "(min_calib_range / max_calib_range or enable_float_output)")
            w = weight.to(torch.float32)
            flat = w.reshape(channels, -1)
            real = torch.maximum(flat.min(1).values.abs(), flat.max(1).values.abs())
            scales = torch.where(real > 0, 127.5 / real.to(torch.float64),
                                 torch.tensor(_INT32_MAX, dtype=torch.float64)).to(torch.float32)
            if bias is not None:
                b = bias.to(torch.float32)
                limit = torch.where(b > 0, torch.tensor(_INT32_MAX + 1), torch.tensor(-_INT32_MAX - 1))
                bound = (limit.to(torch.float32) / 2 / b / data_scale).to(torch.float32)
                scales = torch.where(b != 0, torch.minimum(scales, bound), scales)
            weight_q = torch.round(w * scales.reshape(-1, 1)).clamp(-128, 127).to(torch.float64)
            bias_q = None if bias is None else torch.round(b * (scales * data_scale)).to(torch.float64)
        else:
            weight_scale = _quantize_scale(torch.int8, ranges[2], ranges[3])
            weight_q = weight.to(torch.float64)
            bias_q = None
            if bias is not None:
                bias_scale = _quantize_scale(torch.int8, ranges[4], ranges[5])
                with np.errstate(divide="ignore", invalid="ignore"):
                    # float32 as MXNet: a zero bias range gives an infinite scale, rescale 0
                    rescale = np.float32(data_scale * weight_scale / bias_scale)
                    bound = np.float32(_INT32_MAX) / np.float32(2) / np.float32(
                        _max_abs(ranges[4], ranges[5])) / bias_scale
                if rescale > bound:
                    rescale = bound
                    weight_rescale = np.float32(rescale * bias_scale / data_scale / weight_scale)
                    weight_q = torch.round(weight_q * float(weight_rescale))
                    weight_scale = np.float32(weight_scale * weight_rescale)
                bias_q = torch.round(bias.to(torch.float64) * float(rescale))
            scales = torch.full((channels,), float(weight_scale), dtype=torch.float32)
        flat_data = data.reshape(data.shape[0], -1) if fc.op.flatten else data.reshape(-1, data.shape[-1])
        dtype = _exact_dtype(flat_data.shape[-1])
        accumulated = (flat_data.to(dtype) @ weight_q.reshape(channels, -1).t().to(dtype)).to(torch.float64)
        if bias_q is not None:
            accumulated = accumulated + bias_q
        out_shape = (data.shape[0], channels) if fc.op.flatten else tuple(data.shape[:-1]) + (channels,)
        device = data.device
        if self.enable_float_output or calibrated is not None:
            base = (np.float32(1.0) / data_scale / scales).to(torch.float32)
            out = accumulated.to(torch.float32) * base
            if self.enable_float_output:
                if self.with_eltwise and eltwise is not None:
                    out = _eltwise(eltwise, out)
                return [out.reshape(out_shape)]
            out_dtype = torch.uint8 if self._uint8_output() else torch.int8
            out_scale = _quantize_scale(out_dtype, *calibrated)
            if self.with_eltwise and eltwise is not None:
                out = _eltwise(eltwise, out) * np.float32(out_scale)
            else:
                out = accumulated.to(torch.float32) * (out_scale / data_scale / scales).to(torch.float32)
            return [_saturate(out, out_dtype).reshape(out_shape)] + _ranges(calibrated[0], calibrated[1], device)
        levels = 127.0 if data.dtype == torch.int8 else 255.0
        step = _max_abs(ranges[0], ranges[1]) / levels * _max_abs(ranges[2], ranges[3]) / 127.0
        if self.with_eltwise and eltwise is not None:
            # the elementwise post-op runs on the int32 result (as oneDNN's does)
            accumulated = _eltwise(eltwise, accumulated)
        values_out = torch.round(accumulated).clamp(-_INT32_MAX, _INT32_MAX).to(torch.int32)
        return [values_out.reshape(out_shape)] + _ranges(-step * _INT32_MAX, step * _INT32_MAX, device)


from .recurrent import RNN as _RNN  # noqa: E402


@register("_contrib_quantized_rnn")
class QuantizedRNN(_RNN):
    """An LSTM over a uint8 ``data`` (MXNet's ``contrib.quantized_rnn``, oneDNN only): the inputs
    are RNN's (``data``, ``parameters``, ``state``, ``state_cell``) then the asymmetric
    quantization of ``data``, ``min_data`` = scale and ``max_data`` = shift ``(1,)`` float32
    (``q = data * scale + shift``).  Only ``mode='lstm'``.  Outputs those of RNN (float32).

    The LSTM runs in float32 on the dequantized input ``(q - shift) / scale`` with the float
    ``parameters``; MXNet's oneDNN kernel also quantized the weights to int8 per gate, so its
    results differ from these by that rounding (its own test bounds the mean squared error
    against the float LSTM by 1e-3)."""

    def validate(self):
        super().validate()
        if self.mode != "lstm":
            raise self.error(f"Quantized RNN operator only supports LSTM mode, got mode={self.mode!r}")

    def arguments(self):
        return super().arguments() + ["min_data", "max_data"]

    def outputs(self):
        # MXNet 1.9.1's names, its spelling included
        return ["output", "state_output", "statecell_ouput"] if self.state_outputs else ["output"]

    def infer_shape(self, in_shapes, out_shapes):
        arguments, outputs, aux = super().infer_shape(in_shapes, out_shapes)
        return list(arguments)[:-2] + [(1,), (1,)], outputs, aux

    def infer_type(self, in_types):
        data = in_types[0] if in_types[0] is not None else np.dtype(np.uint8)
        if np.dtype(data) != np.uint8:
            raise self.error(f"Quantized RNN operator only supports uint8 input, while {np.dtype(data)} is given")
        count = len(self.arguments())
        return [data] + [_F32] * (count - 1), [_F32] * self.num_outputs(), []

    def forward(self, is_train, inputs, aux):
        scale, shift = _scalar(inputs[-2]), _scalar(inputs[-1])
        data = (inputs[0].to(torch.float32) - np.float32(shift)) / np.float32(scale)
        return super().forward(False, [data] + list(inputs[1:-2]), aux)


def _int_bmm(lhs, rhs):
    """Batched product of integer-valued ``lhs`` ``(b, n, k)`` and ``rhs`` ``(b, k, m)``, exact
    (float32 where a sum of ``k`` int8 x uint8 products stays below 2**24, else float64);
    float64 result."""
    dtype = _exact_dtype(lhs.shape[-1])
    return torch.bmm(lhs.to(dtype), rhs.to(dtype)).to(torch.float64)


class _SelfAttention(_MKLDNNFused):
    """What the two oneDNN self-attention nodes share (MXNet's ``MKLDNNSelfAttParam``): the
    subgraph holds one ``interleaved_matmul_selfatt_*`` node; quantized, every input comes as
    int8 (``queries_keys_values``) or uint8 (``attention``) with its range, and the output is
    int32 with a range, int8 over ``min_calib_range`` / ``max_calib_range``, or float32 with
    ``enable_float_output``."""

    heads = Attr(Int, required=True)
    enable_float_output = Attr(Bool, default=False)
    quantized_flag = "True"
    input_dtypes = ()

    def outputs(self):
        if self.quantized and not self.enable_float_output:
            return ["output", "min_output", "max_output"]
        return ["output"]

    def quantized_extras(self):
        return ["min_qkv", "max_qkv", "min_attention", "max_attention"][:2 * len(self.input_dtypes)]

    def infer_shape(self, in_shapes, out_shapes):
        arguments, outputs, states = super().infer_shape(in_shapes, out_shapes)
        return arguments, outputs[:self.num_outputs()], states

    def quantized_input_types(self, given):
        names = ("queries_keys_values", "attention")
        types = []
        for name, want, got in zip(names, self.input_dtypes, given):
            if got is not None and np.dtype(got) != want:
                raise self.error(f"quantized {name} must be {want}, got {np.dtype(got)}")
            types.append(want)
        return types + [_F32] * (len(given) - len(types))

    def quantized_output_types(self, given):
        if self.enable_float_output:
            return [_F32]
        out = np.dtype(np.int8) if self.calibration() is not None else np.dtype(np.int32)
        return [out, _F32, _F32]

    def _heads(self, qkv):
        """``qkv`` ``(seq, batch, heads * 3 * head_dim)`` as ``(batch * heads, 3, seq, head_dim)``
        (the float operator's reading, an axis not a multiple of ``3 * heads`` included)."""
        from .attention import _heads_view
        return _heads_view(self, qkv, 3)


@register("_sg_mkldnn_selfatt_qk")
class SgMKLDNNSelfAttQK(_SelfAttention):
    """``interleaved_matmul_selfatt_qk`` as one oneDNN node (MXNet's ``_sg_mkldnn_selfatt_qk``):
    ``queries_keys_values`` ``(seq, batch, heads * 3 * head_dim)`` to the scores
    ``(batch * heads, seq, seq)`` = ``q @ k.T / sqrt(head_dim)``.

    Quantized (int8 ``queries_keys_values`` with ``min_qkv`` / ``max_qkv``, ``s = 127 /
    max|range|``): the int32 products ``q @ k.T`` times ``1 / s**2 / sqrt(head_dim)`` (float
    output), times ``s_out / s**2 / sqrt(head_dim)`` rounded half to even and saturated to int8
    (calibrated, ``s_out = 127 / max|calibration range|``), or times ``1 / sqrt(head_dim)``
    rounded to int32.  The int32 form's range is ``(0, 0)``: MXNet 1.9.1 computes it from two
    zero-initialised locals instead of the input range (``mkldnn_transformer.cc``), and mxtorch
    gives the same."""

    input_dtypes = (np.dtype(np.int8),)

    def quantized_forward(self, values):
        qkv = values[0]
        if qkv.dtype != torch.int8:
            raise self.error(f"quantized queries_keys_values must be int8, got {qkv.dtype}")
        parts, head_dim = self._heads(qkv)
        data_scale = _quantize_scale(torch.int8, _scalar(values[1]), _scalar(values[2]))
        accumulated = _int_bmm(parts[:, 0], parts[:, 1].transpose(1, 2)).to(torch.float32)
        calibrated = self.calibration()
        root = np.sqrt(np.float32(head_dim))
        device = qkv.device
        # MXNet's float32 oscale: (s_out or 1) / (s * s), then / sqrt(head_dim)
        if calibrated is not None:
            factor = _quantize_scale(torch.int8, *calibrated) / np.float32(data_scale * data_scale)
            out = accumulated * np.float32(np.float32(factor) / root)
            return [_saturate(out, torch.int8)] + _ranges(calibrated[0], calibrated[1], device)
        if self.enable_float_output:
            factor = np.float32(1.0) / np.float32(data_scale * data_scale)
            return [accumulated * np.float32(np.float32(factor) / root)]
        out = torch.round(accumulated * np.float32(np.float32(1.0) / root))
        return [out.clamp(-_INT32_MAX, _INT32_MAX).to(torch.int32)] + _ranges(0.0, 0.0, device)


@register("_sg_mkldnn_selfatt_valatt")
class SgMKLDNNSelfAttValAtt(_SelfAttention):
    """``interleaved_matmul_selfatt_valatt`` as one oneDNN node (MXNet's
    ``_sg_mkldnn_selfatt_valatt``): ``attention`` ``(batch * heads, seq, seq)`` times the values
    of ``queries_keys_values`` ``(seq, batch, heads * 3 * head_dim)``, giving ``(seq, batch,
    heads * head_dim)``.

    Quantized (int8 ``queries_keys_values`` with ``min_qkv`` / ``max_qkv``, uint8 ``attention``
    with ``min_attention`` / ``max_attention``; ``s_qkv = 127 / max|range|``, ``s_att = 255 /
    max|range|``): the int32 products times ``1 / (s_qkv * s_att)`` (float output), times
    ``s_out / (s_qkv * s_att)`` rounded half to even and saturated to int8 (calibrated), or
    as they are, with the range ``max|qkv range| / 127 * max|att range| / 255 * (2**31 - 1)``."""

    input_dtypes = (np.dtype(np.int8), np.dtype(np.uint8))

    def quantized_forward(self, values):
        qkv, attention = values[0], values[1]
        if qkv.dtype != torch.int8 or attention.dtype != torch.uint8:
            raise self.error(f"quantized queries_keys_values / attention must be int8 / uint8, "
                             f"got {qkv.dtype} / {attention.dtype}")
        ranges = [_scalar(v) for v in values[2:6]]
        qkv_scale = _quantize_scale(torch.int8, ranges[0], ranges[1])
        att_scale = _quantize_scale(torch.uint8, ranges[2], ranges[3])
        parts, head_dim = self._heads(qkv)
        seq, batch = qkv.shape[0], qkv.shape[1]
        accumulated = _int_bmm(attention, parts[:, 2])       # (batch * heads, seq, head_dim)
        accumulated = accumulated.permute(1, 0, 2).reshape(seq, batch, self.heads * head_dim)
        calibrated = self.calibration()
        device = qkv.device
        if calibrated is not None:
            out_scale = _quantize_scale(torch.int8, *calibrated)
            factor = np.float32(out_scale / np.float32(qkv_scale * att_scale))
            return [_saturate(accumulated.to(torch.float32) * factor, torch.int8)] + \
                _ranges(calibrated[0], calibrated[1], device)
        if self.enable_float_output:
            factor = np.float32(np.float32(1.0) / np.float32(qkv_scale * att_scale))
            return [accumulated.to(torch.float32) * factor]
        step = np.float32(np.float32(_max_abs(ranges[0], ranges[1]) / np.float32(127.0))
                          * np.float32(_max_abs(ranges[2], ranges[3]) / np.float32(255.0)))
        values_out = accumulated.clamp(-_INT32_MAX, _INT32_MAX).to(torch.int32)
        return [values_out] + _ranges(-step * _INT32_MAX, step * _INT32_MAX, device)
