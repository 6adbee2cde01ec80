"""Miscellaneous operators of MXNet 1.9.1:

- ``im2col`` / ``col2im``: sliding blocks of 1-D, 2-D or 3-D data and their adjoint (as
  ``torch.nn.functional.unfold`` / ``fold``, for any of the three spatial ranks);
- ``Correlation``: FlowNet's correlation layer (one visible output, two hidden ones holding the
  padded inputs in ``(batch, height, width, channel)`` layout, as MXNet keeps them);
- ``_random_pdf_<distribution>`` (aliases ``random_pdf_<distribution>``): densities of samples
  under per-element parameters, differentiable with respect to the samples (continuous
  distributions) and the parameters;
- ``multi_sum_sq``, ``all_finite``, ``multi_all_finite``, ``reset_arrays``: helpers of mixed
  precision and gradient clipping, without gradients (MXNet registers none);
- ``IdentityAttachKLSparseReg``: identity whose backward adds a KL sparseness penalty.
"""
from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from .registry import Attr, Operator, register, Int, Float, Bool, Shape, merge_shape, product
from .geometry import _expand_conv_geometry, _check_geometry, _conv_output_size

__all__ = []


# -- sliding blocks -------------------------------------------------------------------------------
def _shape_text(shape):
    return "None" if shape is None else str(tuple(shape))


class _SlidingBlocks(Operator):
    kernel = Attr(Shape, required=True)
    stride = Attr(Shape, default=())
    dilate = Attr(Shape, default=())
    pad = Attr(Shape, default=())

    def validate(self):
        if len(self.kernel) not in (1, 2, 3):
            raise self.error(f"attribute 'kernel' must have 1, 2 or 3 entries, got {self.kernel}")
        _expand_conv_geometry(self)
        _check_geometry(self, kernel=self.kernel, stride=self.stride_, dilate=self.dilate_, pad=self.pad_)

    def _block_index(self, spatial, device):
        """``(prod(kernel), blocks)`` flat indices into the padded spatial grid: entry ``[k, b]``
        is the position read by kernel offset ``k`` of block ``b`` (both in row-major order)."""
        padded = [x + 2 * p for x, p in zip(spatial, self.pad_)]
        out = _conv_output_size(self, spatial)
        ndim = len(spatial)
        row_major = [product(padded[i + 1:]) for i in range(ndim)]
        index = torch.zeros(tuple(self.kernel) + tuple(out), dtype=torch.int64, device=device)
        for i in range(ndim):
            view_kernel = [1] * (2 * ndim)
            view_kernel[i] = self.kernel[i]
            view_block = [1] * (2 * ndim)
            view_block[ndim + i] = out[i]
            offsets = torch.arange(self.kernel[i], device=device) * self.dilate_[i]
            starts = torch.arange(out[i], device=device) * self.stride_[i]
            index = index + (offsets.view(view_kernel) + starts.view(view_block)) * row_major[i]
        return index.reshape(product(self.kernel), product(out)), padded

    def _padding(self):
        padding = []
        for p in reversed(self.pad_):
            padding.extend([p, p])
        return padding


@register("im2col")
class Im2col(_SlidingBlocks):
    """Sliding blocks of ``data`` ``(batch, channel, *spatial)`` (1, 2 or 3 spatial axes, as many
    as ``kernel`` has entries) as columns: output ``(batch, channel * prod(kernel), blocks)``,
    the rows ordered channel first then kernel offsets in row-major order, the blocks in
    row-major order of their positions (``torch.nn.functional.unfold``).  ``stride`` and
    ``dilate`` default to 1, ``pad`` (zeros on both sides) to 0.

    MXNet 1.9.1's CPU kernel fails on 1-D and 3-D blocks; mxtorch computes them.
    """

    def infer_shape(self, in_shapes, out_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            if len(data) != len(self.kernel) + 2:
                raise self.error(f"argument 'data' must have {len(self.kernel) + 2} dimensions (batch, channel, "
                                 f"spatial...) for kernel {self.kernel}, got shape {tuple(data)}")
            spatial = _conv_output_size(self, data[2:])
            rows = data[1] * product(self.kernel)
            blocks = product(spatial) if all(spatial) else 0
            out = merge_shape(out, (data[0], rows, blocks), f"Operator {self.name} output")
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        batch, channels = data.shape[:2]
        index, _ = self._block_index(tuple(data.shape[2:]), data.device)
        padded = F.pad(data, self._padding()) if any(self.pad_) else data
        columns = padded.reshape(batch, channels, -1).index_select(2, index.reshape(-1))
        return [columns.reshape(batch, channels * index.shape[0], index.shape[1])]


@register("col2im")
class Col2im(_SlidingBlocks):
    """Adds columns back into an image, the adjoint of ``im2col``: ``data``
    ``(batch, channel * prod(kernel), blocks)`` gives ``(batch, channel, *output_size)``, where
    overlapping blocks sum and padding is cut off (``torch.nn.functional.fold``).  ``blocks``
    must be the number of blocks ``im2col`` makes from ``output_size``.

    MXNet 1.9.1's CPU kernel fails on 1-D and 3-D blocks; mxtorch computes them.
    """

    output_size = Attr(Shape, required=True)
    # MXNet's signature: col2im(data, output_size, kernel, stride, dilate, pad)
    positional_order = ("output_size", "kernel", "stride", "dilate", "pad")

    def validate(self):
        super().validate()
        if len(self.output_size) != len(self.kernel):
            raise self.error(f"attribute 'output_size' {self.output_size} must have as many entries as "
                             f"'kernel' {self.kernel}")
        if any(size < 1 for size in self.output_size):
            raise self.error(f"attribute 'output_size' must be positive, got {self.output_size}")
        self.blocks = product(_conv_output_size(self, self.output_size))

    def infer_shape(self, in_shapes, out_shapes):
        data, out = in_shapes[0], out_shapes[0]
        window = product(self.kernel)
        if data is not None:
            if len(data) != 3:
                raise self.error(f"argument 'data' must be 3-D (batch, channel * prod(kernel), blocks), "
                                 f"got shape {tuple(data)}")
            if data[1] and data[1] % window:
                raise self.error(f"argument 'data': axis 1 ({data[1]}) must be a multiple of prod(kernel) = "
                                 f"{window}, got shape {tuple(data)}")
            if data[2] and data[2] != self.blocks:
                raise self.error(f"argument 'data': axis 2 must be the {self.blocks} blocks of output_size "
                                 f"{self.output_size}, got shape {tuple(data)}")
            out = merge_shape(out, (data[0], data[1] // window) + tuple(self.output_size),
                              f"Operator {self.name} output")
        if out is not None:
            data = merge_shape(data, (out[0], out[1] * window, self.blocks), f"Operator {self.name} argument 'data'")
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        batch = data.shape[0]
        index, padded = self._block_index(tuple(self.output_size), data.device)
        channels = data.shape[1] // index.shape[0]
        columns = data.reshape(batch, channels, -1)
        image = columns.new_zeros((batch, channels, product(padded))).index_add(2, index.reshape(-1), columns)
        image = image.reshape((batch, channels) + tuple(padded))
        crop = tuple(slice(p, p + size) for p, size in zip(self.pad_, self.output_size))
        return [image[(slice(None), slice(None)) + crop]]


# -- FlowNet correlation ---------------------------------------------------------------------------
@register("Correlation")
class Correlation(Operator):
    """FlowNet correlation of ``data1`` and ``data2`` ``(batch, channel, height, width)`` (same shape).

    Both inputs are zero-padded by ``pad_size``.  For each output position ``(y, x)`` the
    ``kernel_size`` square patch of ``data1`` at ``(y * stride1 + max_displacement,
    x * stride1 + max_displacement)`` is compared with the patch of ``data2`` displaced by
    ``(dy, dx)``, ``dy, dx`` in ``stride2 * [-r, r]`` with ``r = max_displacement // stride2``:
    the mean over patch and channels of the product (``is_multiply``) or of the absolute
    difference (whose gradient at equal values is +1 for ``data1``, -1 for ``data2``, as in
    MXNet 1.9.1).  Output ``(batch, (2r + 1)^2, out_height, out_width)``, the displacement
    channels ordered by ``dy`` then ``dx``; ``out_height = ceil((height + 2 * pad_size - 2 *
    (max_displacement + (kernel_size - 1) // 2)) / stride1)``, the same for width.

    Hidden outputs (as MXNet): the two padded inputs as ``(batch, height + 2 * pad_size,
    width + 2 * pad_size, channel)``.  Raises MXNetError for an even or zero ``kernel_size``
    and for inputs of different shapes (MXNet read outside its buffers there).
    """

    kernel_size = Attr(Int, default=1)
    max_displacement = Attr(Int, default=1)
    stride1 = Attr(Int, default=1)
    stride2 = Attr(Int, default=1)
    pad_size = Attr(Int, default=0)
    is_multiply = Attr(Bool, default=True)

    def validate(self):
        if self.kernel_size < 1 or self.kernel_size % 2 == 0:
            raise self.error(f"attribute 'kernel_size' must be a positive odd number, got {self.kernel_size}")
        if self.stride1 < 1 or self.stride2 < 1:
            raise self.error(f"attributes 'stride1' and 'stride2' must be positive, got {self.stride1} and "
                             f"{self.stride2}")
        if self.max_displacement < 0 or self.pad_size < 0:
            raise self.error(f"attributes 'max_displacement' and 'pad_size' must be >= 0, got "
                             f"{self.max_displacement} and {self.pad_size}")
        self.radius = self.max_displacement // self.stride2
        self.border = self.max_displacement + (self.kernel_size - 1) // 2

    def arguments(self):
        return ["data1", "data2"]

    def outputs(self):
        return ["output", "tmp1", "tmp2"]

    def num_visible_outputs(self):
        return 1

    def _output_size(self, size):
        if not size:
            return 0
        result = math.ceil((size + 2 * self.pad_size - 2 * self.border) / self.stride1)
        if result < 1:
            raise self.error(f"the input size {size} padded by {self.pad_size} is too small for max_displacement "
                             f"{self.max_displacement} and kernel_size {self.kernel_size}")
        return result

    def infer_shape(self, in_shapes, out_shapes):
        data = None
        for name, shape in zip(("data1", "data2"), in_shapes):
            if shape is not None and len(shape) != 4:
                raise self.error(f"argument {name!r} must be 4-D (batch, channel, height, width), got shape "
                                 f"{tuple(shape)}")
            data = merge_shape(data, shape, f"Operator {self.name} argument {name!r}")
        outs = list(out_shapes)
        if data is not None:
            batch, channels, height, width = data
            padded = (batch, height + 2 * self.pad_size if height else 0,
                      width + 2 * self.pad_size if width else 0, channels)
            expected = [(batch, (2 * self.radius + 1) ** 2, self._output_size(height), self._output_size(width)),
                        padded, padded]
            outs = [merge_shape(o, e, f"Operator {self.name} output {i}")
                    for i, (o, e) in enumerate(zip(outs, expected))]
        return [data, data], outs, []

    def forward(self, is_train, inputs, aux):
        data1, data2 = inputs
        if data1.shape != data2.shape:
            raise self.error(f"arguments 'data1' and 'data2' must have one shape, got {tuple(data1.shape)} and "
                             f"{tuple(data2.shape)}")
        pad = self.pad_size
        padded1 = F.pad(data1, [pad] * 4) if pad else data1
        padded2 = F.pad(data2, [pad] * 4) if pad else data2
        channels, height, width = padded1.shape[1:]
        shift = self.max_displacement
        rows, cols = height - 2 * shift, width - 2 * shift
        anchor = padded1[:, :, shift:shift + rows, shift:shift + cols]
        out_height, out_width = self._output_size(data1.shape[2]), self._output_size(data1.shape[3])
        maps = []
        displacements = range(-self.radius * self.stride2, self.radius * self.stride2 + 1, self.stride2)
        for dy in displacements:
            for dx in displacements:
                moved = padded2[:, :, shift + dy:shift + dy + rows, shift + dx:shift + dx + cols]
                if self.is_multiply:
                    combined = (anchor * moved).sum(1, keepdim=True)
                else:
                    # |a - b| whose gradient is +1 for data1 and -1 for data2 at a tie, as MXNet
                    sign = torch.where(anchor >= moved, 1.0, -1.0).to(anchor.dtype).detach()
                    combined = ((anchor - moved) * sign).sum(1, keepdim=True)
                pooled = F.avg_pool2d(combined, self.kernel_size, self.stride1)
                maps.append(pooled[:, :, :out_height, :out_width])
        output = torch.cat(maps, 1) / channels
        hidden = [padded1.detach().permute(0, 2, 3, 1).contiguous(), padded2.detach().permute(0, 2, 3, 1).contiguous()]
        return [output] + hidden


# -- densities --------------------------------------------------------------------------------------
def _negative_binomial_log_density(sample, k, p):
    return (torch.lgamma(sample + k) - torch.lgamma(sample + 1) - torch.lgamma(k)
            + k * torch.log(p) + sample * torch.log1p(-p))


def _log_density(distribution, sample, parameters):
    """Log-density of ``sample`` (parameters already broadcastable to it); MXNet 1.9.1's formulas."""
    if distribution == "uniform":
        low, high = parameters
        return (-torch.log(high - low)).expand_as(sample)
    if distribution == "normal":
        mu, sigma = parameters
        return -0.5 * ((sample - mu) / sigma) ** 2 - torch.log(sigma) - 0.5 * math.log(2 * math.pi)
    if distribution == "gamma":
        alpha, beta = parameters
        return alpha * torch.log(beta) + (alpha - 1) * torch.log(sample) - beta * sample - torch.lgamma(alpha)
    if distribution == "exponential":
        (lam,) = parameters
        return torch.log(lam) - lam * sample
    if distribution == "poisson":
        (lam,) = parameters
        return sample * torch.log(lam) - lam - torch.lgamma(sample + 1)
    if distribution == "negative_binomial":
        k, p = parameters
        return _negative_binomial_log_density(sample, k, p)
    if distribution == "generalized_negative_binomial":
        mu, alpha = parameters
        return _negative_binomial_log_density(sample, 1 / alpha, 1 / (1 + alpha * mu))
    if distribution == "dirichlet":
        (alpha,) = parameters
        return (torch.lgamma(alpha.sum(-1)) - torch.lgamma(alpha).sum(-1)
                + ((alpha - 1) * torch.log(sample)).sum(-1))
    raise ValueError(distribution)  # pragma: no cover - guarded by the declarations below


_DENSITY_PARAMETERS = {
    "uniform": ("low", "high"), "normal": ("mu", "sigma"), "gamma": ("alpha", "beta"),
    "exponential": ("lam",), "poisson": ("lam",), "negative_binomial": ("k", "p"),
    "generalized_negative_binomial": ("mu", "alpha"), "dirichlet": ("alpha",),
}
_DISCRETE = ("poisson", "negative_binomial", "generalized_negative_binomial")
_DENSITY_FORMULAS = {
    "uniform": "1 / (high - low) at every sample (MXNet does not check the support)",
    "normal": "exp(-(x - mu)^2 / (2 sigma^2)) / (sigma sqrt(2 pi))",
    "gamma": "beta^alpha x^(alpha - 1) exp(-beta x) / Gamma(alpha): MXNet's density takes beta as a rate, "
             "although its sampler takes beta as a scale",
    "exponential": "lam exp(-lam x) (MXNet does not check the support)",
    "poisson": "lam^x exp(-lam) / Gamma(x + 1)",
    "negative_binomial": "Gamma(x + k) / (Gamma(k) Gamma(x + 1)) p^k (1 - p)^x",
    "generalized_negative_binomial": "the negative binomial with k = 1 / alpha, p = 1 / (1 + alpha mu)",
    "dirichlet": "Gamma(sum alpha) / prod Gamma(alpha) prod x^(alpha - 1) over the last axis "
                 "(MXNet does not check that samples lie on the simplex)",
}


class _Density(Operator):
    """Base of ``_random_pdf_<distribution>``."""

    distribution = None
    is_log = Attr(Bool, default=False)

    def arguments(self):
        return ["sample"] + list(_DENSITY_PARAMETERS[self.distribution])

    def infer_shape(self, in_shapes, out_shapes):
        names = self.arguments()
        sample, out = in_shapes[0], out_shapes[0]
        parameters = None
        for name, shape in zip(names[1:], in_shapes[1:]):
            parameters = merge_shape(parameters, shape, f"Operator {self.name} argument {name!r}")
        vector = self.distribution == "dirichlet"
        if sample is not None and parameters is not None:
            batch = parameters[:-1] if vector else parameters
            if vector and (not parameters or len(sample) < len(parameters)):
                raise self.error(f"argument 'alpha' of shape {tuple(parameters)} needs a 'sample' of shape "
                                 f"alpha.shape[:-1] + (draws..., alpha.shape[-1]), got {tuple(sample)}")
            if len(sample) < len(batch) or any(a and b and a != b for a, b in zip(sample, batch)) or \
                    (vector and sample[-1] and parameters[-1] and sample[-1] != parameters[-1]):
                expected = "alpha.shape[:-1] + (draws..., alpha.shape[-1])" if vector else \
                    "the parameter shape followed by any number of axes"
                raise self.error(f"argument 'sample' of shape {tuple(sample)} does not fit parameters of shape "
                                 f"{tuple(parameters)}: expected {expected}")
        if sample is not None:
            out = merge_shape(out, tuple(sample[:-1]) if vector else tuple(sample), f"Operator {self.name} output")
        return [sample] + [parameters] * (len(names) - 1), [out], []

    def forward(self, is_train, inputs, aux):
        sample, parameters = inputs[0], list(inputs[1:])
        if not sample.is_floating_point():
            raise self.error(f"argument 'sample' must be a float array, got {sample.dtype}")
        if self.distribution in _DISCRETE:
            sample = sample.detach()   # MXNet gives discrete samples a zero gradient
        extra = sample.dim() - parameters[0].dim()
        if self.distribution == "dirichlet":
            batch = parameters[0].shape[:-1]
            parameters = [p.reshape(tuple(batch) + (1,) * extra + (p.shape[-1],)) for p in parameters]
        else:
            parameters = [p.reshape(tuple(p.shape) + (1,) * extra) for p in parameters]
        result = _log_density(self.distribution, sample, parameters)
        return [result if self.is_log else torch.exp(result)]


def _declare_density(distribution):
    names = _DENSITY_PARAMETERS[distribution]
    shape = ("alpha ``P + (k,)``, sample ``P + (draws..., k)``, output ``P + (draws...)``"
             if distribution == "dirichlet" else
             f"parameters {', '.join(names)} of one shape ``P``, sample ``P + (draws...)``, output the sample's shape")
    doc = (f"Density of the {distribution} distribution at ``sample``: {_DENSITY_FORMULAS[distribution]}; "
           f"its logarithm when ``is_log``.\n\n{shape}; float dtypes.  Gradients flow to the parameters"
           + ("" if distribution in _DISCRETE else " and to the sample") + " (MXNet 1.9.1's).")
    declaration = type(f"Density_{distribution}", (_Density,), dict(distribution=distribution, __doc__=doc))
    register(f"_random_pdf_{distribution}", f"random_pdf_{distribution}")(declaration)


for _distribution in _DENSITY_PARAMETERS:
    _declare_density(_distribution)


# -- gradient helpers -----------------------------------------------------------------------------
class _ArrayList(Operator):
    variadic = True
    num_arrays = Attr(Int, required=True)

    def validate(self):
        if self.num_arrays < 1:
            raise self.error(f"attribute 'num_arrays' must be positive, got {self.num_arrays}")

    def arguments(self):
        return [f"arg{i}" for i in range(self.num_arrays)]

    def infer_shape(self, in_shapes, out_shapes):
        return list(in_shapes), [merge_shape(out_shapes[0], self._output_shape, f"Operator {self.name} output")], []

    def infer_type(self, in_types):
        return list(in_types), [np.dtype(np.float32)], []


@register("multi_sum_sq")
class MultiSumSq(_ArrayList):
    """Sum of squares of each of ``num_arrays`` arrays of any shapes: output ``(num_arrays,)``
    float32 (accumulated in float32 at least).  No gradient (MXNet registers none)."""

    @property
    def _output_shape(self):
        return (self.num_arrays,)

    def forward(self, is_train, inputs, aux):
        with torch.no_grad():
            work = [t.to(torch.float64 if t.dtype == torch.float64 else torch.float32) for t in inputs]
            return [torch.stack([t.square().sum() for t in work]).to(torch.float32)]


def _all_finite(tensors):
    with torch.no_grad():
        finite = torch.ones((), dtype=torch.bool, device=tensors[0].device)
        for t in tensors:
            finite = finite & torch.isfinite(t).all()
        return finite.to(torch.float32).reshape(1)


@register("multi_all_finite")
class MultiAllFinite(_ArrayList):
    """``[1.]`` when every element of the ``num_arrays`` (default 1) arrays is finite, else ``[0.]``;
    output ``(1,)`` float32, no gradient.

    ``init_output=False`` made MXNet only ever write 0 into the output's previous contents;
    mxtorch does not see those contents and computes the flag as if they held 1.
    """

    num_arrays = Attr(Int, default=1)
    init_output = Attr(Bool, default=True)
    _output_shape = (1,)

    def forward(self, is_train, inputs, aux):
        return [_all_finite(inputs)]


@register("all_finite")
class AllFinite(Operator):
    """``[1.]`` when every element of ``data`` is finite, else ``[0.]``; output ``(1,)`` float32,
    no gradient.  ``init_output=False``: as ``multi_all_finite``."""

    init_output = Attr(Bool, default=True)

    def infer_shape(self, in_shapes, out_shapes):
        return list(in_shapes), [merge_shape(out_shapes[0], (1,), f"Operator {self.name} output")], []

    def infer_type(self, in_types):
        return list(in_types), [np.dtype(np.float32)], []

    def forward(self, is_train, inputs, aux):
        return [_all_finite(inputs)]


@register("reset_arrays")
class ResetArrays(_ArrayList):
    """Sets each of its ``num_arrays`` inputs to zero in place; no outputs (``mx.nd.reset_arrays``
    returns ``[]``)."""

    def outputs(self):
        return []

    def infer_shape(self, in_shapes, out_shapes):
        return list(in_shapes), [], []

    def infer_type(self, in_types):
        return list(in_types), [], []

    def forward(self, is_train, inputs, aux):
        with torch.no_grad():
            for tensor in inputs:
                tensor.zero_()
        return []


# -- KL sparseness regularisation ---------------------------------------------------------------------
@register("IdentityAttachKLSparseReg")
class IdentityAttachKLSparseReg(Operator):
    """Identity on ``data`` ``(batch, channel, ...)`` (activations in (0, 1)) whose backward adds
    ``penalty * (-sparseness_target / avg + (1 - sparseness_target) / (1 - avg))`` per channel,
    where ``avg`` is the auxiliary state ``moving_avg`` ``(channel,)`` after backward updates it
    to ``momentum * moving_avg + (1 - momentum) * mean(data over all axes but 1)`` (as MXNet
    1.9.1: forward leaves ``moving_avg`` alone).  MXNet's kernel is only right for 2-D data;
    mxtorch uses the per-channel mean for more axes.
    """

    sparseness_target = Attr(Float, default=0.1)
    penalty = Attr(Float, default=0.001)
    momentum = Attr(Float, default=0.9)

    def auxiliary_states(self):
        return ["moving_avg"]

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} argument 'data'")
        channel = None
        if data is not None:
            if len(data) < 2:
                raise self.error(f"argument 'data' must have at least 2 dimensions (batch, channel, ...), "
                                 f"got shape {tuple(data)}")
            channel = (data[1],)
        return [data], [data], [channel]

    def forward(self, is_train, inputs, aux):
        return [inputs[0].clone()]

    def backward(self, out_grads, inputs, outputs, aux):
        """Update ``moving_avg`` in place, then add the penalty's gradient to the head gradient."""
        data, average, grad = inputs[0], aux[0], out_grads[0]
        axes = [axis for axis in range(data.dim()) if axis != 1]
        mean = data.mean(dim=axes) if axes else data
        updated = self.momentum * average + (1 - self.momentum) * mean.to(average.dtype)
        average.copy_(updated)
        target = self.sparseness_target
        penalty = self.penalty * (-target / updated + (1 - target) / (1 - updated))
        view = [1] * data.dim()
        view[1] = data.shape[1]
        return [grad + penalty.to(grad.dtype).view(view)]
