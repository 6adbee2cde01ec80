"""More of the NumPy front end's operators: window functions, index grids, reshaping by
repetition, differences, counting and statistics (``_npi_hanning``, ``_npi_indices``,
``_npi_resize_fallback``, ``_npi_diagflat``, ``_npi_diff``, ``_npi_ediff1d``, ``_npi_bincount``,
``_npi_unravel_index_fallback``, ``_npi_diag_indices_from``, ``_npi_polyval``,
``_npi_histogram``, ``_npi_percentile``, ``_npi_nan_to_num``, ``_npi_share_memory``, ...).

Declared once as in ``numpy_ops.py`` (shapes and dtypes inferred on torch's meta device); the
differentiable ones are torch computations, so autograd gives the gradients MXNet 1.9.1 defined
(``diff``'s, ``diagflat``'s, ``polyval``'s with respect to both inputs, ...).  The operators
whose output shape depends on the values (``bincount``, ``histogram`` with a bin count) have it
known once computed.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from ..base import MXNetError
from .helpers import device_of, host_check_failed
from .numpy_arrays import NumpySplit, _Shape, _Size
from .numpy_ops import NumpyAttr, _Axis, _Ctx, _Dtype, _NumpyOperator, _torch_dtype
from .registry import Attr, Bool, Float, Int, Str, optional, register

__all__ = ["WINDOWS"]

_OptionalFloat = optional(Float)
_FloatPair = optional(lambda value, name: tuple(float(v) for v in (
    eval(value, {"__builtins__": {}}) if isinstance(value, str) else value)))  # noqa: S307 (MXNet's tuple text)


def _is_meta(*tensors):
    return any(t.device.type == "meta" for t in tensors)


# -- window functions ------------------------------------------------------------------------------
def _window(coefficients):
    """The cosine-sum window ``sum_k (-1)^k a_k cos(2 pi k n / (M - 1))`` of NumPy."""
    def make(count, dtype, device):
        if count < 1:
            return torch.zeros((0,), dtype=dtype, device=device)
        if count == 1:
            return torch.ones((1,), dtype=dtype, device=device)
        n = torch.arange(count, dtype=torch.float64, device=device)
        phase = 2.0 * math.pi * n / (count - 1)
        result = torch.zeros_like(n)
        for k, a in enumerate(coefficients):
            result = result + (-1) ** k * a * torch.cos(k * phase)
        return result.to(dtype)
    return make


WINDOWS = {"hanning": _window((0.5, 0.5)), "hamming": _window((0.54, 0.46)),
           "blackman": _window((0.42, 0.5, 0.08))}


def _window_class(kind):
    make = WINDOWS[kind]

    class Window(_NumpyOperator):
        __doc__ = (f"NumPy's ``{kind}`` window of ``M`` points (empty for M < 1, ``[1]`` for M = 1), "
                   f"float32 unless ``dtype``.")
        deterministic = True
        traceable = False
        M = Attr(Int, default=0)
        ctx = Attr(_Ctx, default=None)
        dtype = Attr(_Dtype, default="float32")

        def arguments(self):
            return []

        def forward(self, is_train, inputs, aux):
            return [make(self.M, _torch_dtype(self.dtype or "float32"), device_of(self.ctx))]
    Window.__name__ = Window.__qualname__ = f"NumpyWindow_{kind}"
    return Window


for _kind in WINDOWS:
    register(f"_npi_{_kind}")(_window_class(_kind))


@register("_npi_indices")
class NumpyIndices(_NumpyOperator):
    """NumPy's ``indices``: the index grid of ``dimensions``, shape ``(len(dimensions),) +
    dimensions``, int32 unless ``dtype``."""

    traceable = False
    dimensions = NumpyAttr(_Size, default=())
    ctx = Attr(_Ctx, default=None)
    dtype = Attr(_Dtype, default="int32")

    def arguments(self):
        return []

    def forward(self, is_train, inputs, aux):
        dims = tuple(self.dimensions or ())
        dtype, device = _torch_dtype(self.dtype or "int32"), device_of(self.ctx)
        if not dims:
            return [torch.zeros((0,), dtype=dtype, device=device)]
        grids = torch.meshgrid(*[torch.arange(d, device=device) for d in dims], indexing="ij")
        return [torch.stack(grids).to(dtype)]


@register("_npi_diag_indices_from")
class NumpyDiagIndicesFrom(_NumpyOperator):
    """NumPy's ``diag_indices_from`` as one int64 array of shape ``(ndim, n)`` (the front end
    splits it into the ``ndim`` index arrays); the input must be at least 2-D with equal sides."""

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if data.ndim < 2 or len(set(data.shape)) != 1:
            raise MXNetError(f"Operator {self.name}: the input must be at least 2-D with all dimensions of equal "
                             f"length, got shape {tuple(data.shape)}")
        line = torch.arange(data.shape[0], device=data.device)
        return [line.expand(data.ndim, data.shape[0]).clone()]


@register("_npi_unravel_index_fallback")
class NumpyUnravelIndex(_NumpyOperator):
    """NumPy's ``unravel_index`` (C order) as one array of shape ``(len(shape),) +
    indices.shape`` of the input's dtype (the front end splits it)."""

    shape = Attr(_Shape, default=())

    def forward(self, is_train, inputs, aux):
        flat = inputs[0].to(torch.int64)
        dims = tuple(self.shape)
        rows, rest = [], flat
        for size in reversed(dims):
            rows.append(torch.remainder(rest, size))
            rest = torch.div(rest, size, rounding_mode="floor")
        return [torch.stack(list(reversed(rows))).to(inputs[0].dtype)]


# -- reshaping by repetition, diagonals, differences ---------------------------------------------------
@register("_npi_resize_fallback")
class NumpyResize(_NumpyOperator):
    """NumPy's ``resize``: the flattened input repeated cyclically to fill ``new_shape`` (zeros
    when the input is empty)."""

    new_shape = Attr(_Shape, default=())

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        shape = tuple(self.new_shape)
        if any(d < 0 for d in shape):
            raise MXNetError(f"Operator {self.name}: all elements of new_shape must be non-negative, got {shape}")
        total = int(np.prod(shape)) if shape else 1
        flat = data.reshape(-1)
        if flat.numel() == 0:
            return [torch.zeros(shape, dtype=data.dtype, device=data.device)]
        repeats = -(-total // flat.numel())
        return [flat.repeat(repeats)[:total].reshape(shape)]


@register("_npi_diagflat")
class NumpyDiagflat(_NumpyOperator):
    """NumPy's ``diagflat``: the flattened input on the ``k``-th diagonal of a square array."""

    k = Attr(Int, default=0)

    def forward(self, is_train, inputs, aux):
        return [torch.diagflat(inputs[0].reshape(-1), self.k)]


@register("_npi_diff")
class NumpyDiff(_NumpyOperator):
    """NumPy's ``diff``: the ``n``-th discrete difference along ``axis`` (the input's dtype)."""

    n = Attr(Int, default=1)
    axis = Attr(Int, default=-1)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if data.ndim == 0:
            raise MXNetError(f"Operator {self.name}: diff requires input that is at least one dimensional")
        axis = self.axis + data.ndim if self.axis < 0 else self.axis
        if not 0 <= axis < data.ndim:
            raise MXNetError(f"Operator {self.name}: axis {self.axis} is out of bounds for an array of dimension "
                             f"{data.ndim}")
        if self.n < 0:
            raise MXNetError(f"Operator {self.name}: order must be non-negative but got {self.n}")
        result = data
        for _ in range(min(self.n, data.shape[axis])):
            result = result.narrow(axis, 1, result.shape[axis] - 1) - result.narrow(axis, 0, result.shape[axis] - 1)
        if self.n > data.shape[axis]:
            result = result.narrow(axis, 0, 0)
        return [result.to(data.dtype) if data.dtype != torch.bool else result]


@register("_npi_ediff1d")
class NumpyEdiff1d(_NumpyOperator):
    """NumPy's ``ediff1d``: differences of the flattened input, with ``to_begin`` / ``to_end``
    put before / after (arrays as inputs when ``to_*_arr_given``, else the numbers
    ``to_*_scalar``, None: nothing), the input's dtype."""

    to_begin_arr_given = Attr(Bool, default=False)
    to_end_arr_given = Attr(Bool, default=False)
    to_begin_scalar = Attr(_OptionalFloat, default=None)
    to_end_scalar = Attr(_OptionalFloat, default=None)

    def arguments(self):
        return ["input1"] + (["input2"] if self.to_begin_arr_given else []) + \
            (["input3"] if self.to_end_arr_given else [])

    def forward(self, is_train, inputs, aux):
        data, rest = inputs[0].reshape(-1), list(inputs[1:])
        pieces = []

        def extra(given, scalar):
            if given:
                return rest.pop(0).reshape(-1).to(data.dtype)
            if scalar is not None:
                return torch.full((1,), scalar, dtype=data.dtype, device=data.device)
            return None
        begin = extra(self.to_begin_arr_given, self.to_begin_scalar)
        end = extra(self.to_end_arr_given, self.to_end_scalar)
        if begin is not None:
            pieces.append(begin)
        pieces.append(data[1:] - data[:-1] if data.numel() else data)
        if end is not None:
            pieces.append(end)
        return [torch.cat(pieces)]


@register("_npi_nan_to_num")
class NumpyNanToNum(_NumpyOperator):
    """NumPy's ``nan_to_num``: NaN by ``nan``, +inf by ``posinf`` and -inf by ``neginf``
    (None: the dtype's largest / smallest finite value); integers pass unchanged.  The
    gradient is 1 where the element was finite, else 0."""

    copy = Attr(Bool, default=True)
    nan = Attr(Float, default=0.0)
    posinf = Attr(_OptionalFloat, default=None)
    neginf = Attr(_OptionalFloat, default=None)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if not data.is_floating_point():
            return [data.clone()]
        return [torch.nan_to_num(data, nan=self.nan, posinf=self.posinf, neginf=self.neginf)]


# -- counting and statistics ----------------------------------------------------------------------------
@register("_npi_bincount")
class NumpyBincount(_NumpyOperator):
    """NumPy's ``bincount`` of the non-negative integers of the 1-D input (at least
    ``minlength`` bins); with ``has_weights`` the second input's sums (float64 for float weights,
    as NumPy), else int64 counts."""

    minlength = Attr(Int, default=0)
    has_weights = Attr(Bool, default=False)

    def arguments(self):
        return ["data", "weights"] if self.has_weights else ["data"]

    def forward(self, is_train, inputs, aux):
        data = inputs[0].reshape(-1)
        weights = inputs[1].reshape(-1) if self.has_weights else None
        if _is_meta(*inputs):
            # not an MXNetError: shape inference reads it as "known once computed"
            raise RuntimeError(f"Operator {self.name}: the output length depends on the values")
        if data.numel() and int(data.min()) < 0:
            raise MXNetError(f"Operator {self.name}: the input must hold non-negative integers")
        counts = torch.bincount(data.to(torch.int64), weights=None if weights is None else weights.to(torch.float64),
                                minlength=self.minlength)
        return [counts]


@register("_npi_histogram")
class NumpyHistogram(_NumpyOperator):
    """NumPy's ``histogram`` without weights: the counts (int64) and the bin edges (the input's
    float dtype), of ``bin_cnt`` equal bins over ``range`` or of the edges given as the second
    input (the last bin closed on the right, as NumPy)."""

    bin_cnt = Attr(optional(Int), default=None)
    range = Attr(_FloatPair, default=None)

    def arguments(self):
        return ["data"] if self.bin_cnt is not None else ["data", "bins"]

    def outputs(self):
        return ["counts", "bin_edges"]

    def forward(self, is_train, inputs, aux):
        if self.bin_cnt is None and _is_meta(*inputs):
            raise RuntimeError(f"Operator {self.name}: the bins' count is known once computed")
        data = inputs[0].reshape(-1).to(torch.float64)
        if self.bin_cnt is not None and _is_meta(data):
            return [torch.empty((self.bin_cnt,), dtype=torch.int64, device=data.device),
                    torch.empty((self.bin_cnt + 1,), dtype=inputs[0].dtype if inputs[0].is_floating_point()
                                else torch.float32, device=data.device)]
        if self.bin_cnt is not None:
            low, high = self.range if self.range is not None else (
                (float(data.min()), float(data.max())) if data.numel() else (0.0, 1.0))
            if low == high:
                low, high = low - 0.5, high + 0.5
            edges = torch.linspace(low, high, self.bin_cnt + 1, dtype=torch.float64, device=data.device)
        else:
            edges = inputs[1].reshape(-1).to(torch.float64)
        inside = (data >= edges[0]) & (data <= edges[-1])
        values = data[inside]
        index = torch.searchsorted(edges, values, right=True) - 1
        index = index.clamp(max=edges.numel() - 2)
        counts = torch.bincount(index, minlength=edges.numel() - 1)
        edge_dtype = inputs[0].dtype if inputs[0].is_floating_point() else torch.float32
        return [counts.to(torch.int64), edges.to(edge_dtype)]


@register("_npi_polyval")
class NumpyPolyval(_NumpyOperator):
    """NumPy's ``polyval``: the polynomial of coefficients ``p`` (highest power first) at ``x``
    (Horner's rule), the promoted dtype; differentiable in both."""

    def arguments(self):
        return ["p", "x"]

    def forward(self, is_train, inputs, aux):
        p, x = inputs
        dtype = torch.promote_types(p.dtype, x.dtype)
        p, x = p.to(dtype), x.to(dtype)
        result = torch.zeros_like(x)
        for index in range(p.shape[0]):
            result = result * x + p[index]
        return [result]


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


@register("_npi_percentile")
class NumpyPercentile(_NumpyOperator):
    """NumPy's ``percentile`` of the input along ``axis`` (None: all) at ``q`` percent (the
    number ``q_scalar`` or the second input), by ``interpolation``; float inputs keep their
    dtype, integers give float64 (NumPy)."""

    axis = Attr(_Axis, default=None)
    interpolation = Attr(Str, default="linear")
    keepdims = Attr(Bool, default=False)
    q_scalar = Attr(_OptionalFloat, default=None)

    def arguments(self):
        return ["a"] if self.q_scalar is not None else ["a", "q"]

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if self.interpolation not in _INTERPOLATIONS:
            raise MXNetError(f"Operator {self.name}: interpolation must be one of {_INTERPOLATIONS}, got "
                             f"{self.interpolation!r}")
        q = torch.tensor(self.q_scalar, dtype=torch.float64, device=data.device) if self.q_scalar is not None \
            else inputs[1].to(torch.float64)
        if not _is_meta(q) and bool(((q < 0) | (q > 100)).any()):
            raise MXNetError(f"Operator {self.name}: percentiles must be in the range [0, 100]")
        out_dtype = data.dtype if data.is_floating_point() else torch.float64
        work = data.to(torch.float64)
        axes = self.axis
        if axes is None:
            axes = tuple(range(data.ndim))
        axes = tuple(a + data.ndim if a < 0 else a for a in ((axes,) if isinstance(axes, int) else axes))
        kept = [d for d in range(data.ndim) if d not in axes]
        moved = work.permute(kept + list(axes)).reshape([data.shape[d] for d in kept] + [-1])
        result = torch.quantile(moved, q.reshape(-1) / 100.0, dim=-1, interpolation=self.interpolation)
        # torch puts the q axis first; NumPy too (q's shape before the kept axes)
        result = result.reshape(tuple(q.shape) + tuple(data.shape[d] for d in kept))
        if self.keepdims:
            shape = tuple(q.shape) + tuple(1 if d in axes else data.shape[d] for d in range(data.ndim))
            result = result.reshape(shape)
        return [result.to(out_dtype)]


@register("_npi_share_memory")
class NumpyShareMemory(_NumpyOperator):
    """``np.shares_memory`` / ``np.may_share_memory``: bool, whether the two (contiguous) arrays'
    byte ranges overlap in one buffer (empty and strided arrays share nothing, as in MXNet)."""

    deterministic = False
    traceable = False

    def arguments(self):
        return ["a", "b"]

    def forward(self, is_train, inputs, aux):
        a, b = inputs
        device = a.device
        if _is_meta(a, b):
            return [torch.zeros((), dtype=torch.bool, device=device)]
        # MXNet 1.9.1 compared the byte ranges of two contiguous arrays (every MXNet array is
        # one: a strided selection was a copy of its own); a strided torch view stands for such
        # a copy and shares nothing
        overlap = False
        if a.numel() and b.numel() and a.is_contiguous() and b.is_contiguous() and \
                a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr():
            a0, b0 = a.storage_offset() * a.element_size(), b.storage_offset() * b.element_size()
            a1, b1 = a0 + a.numel() * a.element_size(), b0 + b.numel() * b.element_size()
            overlap = a0 < b1 and b0 < a1
        return [torch.tensor(overlap, dtype=torch.bool, device=device)]


# -- axis moves and splits whose axes depend on the input's rank -------------------------------------
@register("_np_moveaxis")
class NumpyMoveaxis(_NumpyOperator):
    """NumPy's ``moveaxis``: the axes ``source`` moved to ``destination`` (negative axes count
    from the end), the other axes keeping their order."""

    source = Attr(_Shape, default=())
    destination = Attr(_Shape, default=())

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        source, destination = tuple(self.source or ()), tuple(self.destination or ())
        if len(source) != len(destination):
            raise MXNetError(f"Operator {self.name}: `source` and `destination` arguments must have the same "
                             f"number of elements, got {source} and {destination}")
        for axis in source + destination:
            if not -data.ndim <= axis < data.ndim:
                raise MXNetError(f"Operator {self.name}: axis {axis} is out of bounds for an array of dimension "
                                 f"{data.ndim}")
        return [torch.movedim(data, source, destination).clone()]


def _atleast_class(rank):
    def promote(tensor):
        if tensor.ndim >= rank:
            return tensor
        if rank == 1:
            return tensor.reshape(1)
        if rank == 2:
            return tensor.reshape(1, -1) if tensor.ndim == 1 else tensor.reshape(1, 1)
        return {0: lambda: tensor.reshape(1, 1, 1), 1: lambda: tensor.reshape(1, -1, 1),
                2: lambda: tensor.unsqueeze(-1)}[tensor.ndim]()

    class Atleast(_NumpyOperator):
        __doc__ = (f"NumPy's ``atleast_{rank}d``: each of the ``num_args`` inputs with at least {rank} axes "
                   f"(NumPy's placement of the new ones), one output per input.")
        variadic = True
        num_args = Attr(Int, default=1)

        def arguments(self):
            return [f"arys{i}" for i in range(self.num_args)]

        def outputs(self):
            return [f"output{i}" for i in range(self.num_args)]

        def forward(self, is_train, inputs, aux):
            return [promote(tensor) for tensor in inputs]
    Atleast.__name__ = Atleast.__qualname__ = f"NumpyAtleast{rank}d"
    return Atleast


for _rank in (1, 2, 3):
    register(f"_npi_atleast_{_rank}d")(_atleast_class(_rank))


@register("_npi_average")
class NumpyAverage(_NumpyOperator):
    """NumPy's ``average`` of ``a`` along ``axis`` (None: all), with the second input as
    ``weights`` when ``weighted`` (1-D weights along a single ``axis``, else of ``a``'s shape).
    Two outputs: the average (float32 for integer input; the promoted float dtype with weights)
    and the sum of the weights (the count without weights), shown when ``returned``.  A zero sum
    of weights raises MXNetError."""

    axis = Attr(_Axis, default=None)
    returned = Attr(Bool, default=False)
    weighted = Attr(Bool, default=True)

    def arguments(self):
        return ["a", "weights"] if self.weighted else ["a"]

    def outputs(self):
        return ["avg", "sum_of_weights"]

    def num_visible_outputs(self):
        return 2 if self.returned else 1

    def forward(self, is_train, inputs, aux):
        a = inputs[0]
        axes = self.axis
        dims = None if axes is None else ((axes,) if isinstance(axes, int) else tuple(axes))
        if self.weighted:
            weights = inputs[1]
            dtype = torch.promote_types(a.dtype, weights.dtype)
            dtype = dtype if dtype.is_floating_point else torch.float32
            if weights.shape != a.shape:
                if dims is None or len(dims) != 1 or weights.ndim != 1 or weights.shape[0] != a.shape[dims[0]]:
                    raise MXNetError(f"Operator {self.name}: weights of shape {tuple(weights.shape)} do not fit a of "
                                     f"shape {tuple(a.shape)} along axis {self.axis}")
                shape = [1] * a.ndim
                shape[dims[0]] = weights.shape[0]
                weights = weights.reshape(shape)
            weights = weights.to(dtype).expand(a.shape)
            total = weights.sum() if dims is None else weights.sum(dim=dims)
            if a.device.type != "meta" and bool((total == 0).any()):
                raise MXNetError(f"Operator {self.name}: weights sum to zero, can't be normalized")
            summed = (a.to(dtype) * weights)
            summed = summed.sum() if dims is None else summed.sum(dim=dims)
            return [summed / total, total]
        dtype = a.dtype if a.is_floating_point() else torch.float32
        mean = a.to(dtype).mean() if dims is None else a.to(dtype).mean(dim=dims)
        count = a.numel() if dims is None else int(np.prod([a.shape[d] for d in dims]))
        return [mean, torch.full(mean.shape, float(count), dtype=dtype, device=a.device)]


@register("_npi_array_split")
class NumpyArraySplit(NumpySplit):
    """NumPy's ``array_split``: as ``split``, but ``sections`` parts may differ by one element
    (the first ``length % sections`` one longer)."""

    def _bounds(self, length):
        if self.sections <= 0:
            return super()._bounds(length)
        sizes = [length // self.sections + (1 if i < length % self.sections else 0) for i in range(self.sections)]
        stops = np.cumsum(sizes).tolist()
        return [(stop - size, stop) for size, stop in zip(sizes, stops)]


# -- padding ------------------------------------------------------------------------------------------
def _pad_pairs(value, name):
    """``pad_width`` as one (before, after) pair per axis: MXNet's text or nested tuples."""
    if isinstance(value, str):
        value = eval(value, {"__builtins__": {}}, {"L": 1})  # noqa: S307 (MXNet's tuple text)
    return tuple(tuple(int(v) for v in pair) for pair in value)


def _mirror_index(length, before, after, symmetric, device):
    positions = torch.arange(-before, length + after, device=device)
    if symmetric:
        period = 2 * length
        folded = torch.remainder(positions, period)
        return torch.where(folded >= length, period - 1 - folded, folded)
    if length == 1:
        return torch.zeros_like(positions)
    period = 2 * (length - 1)
    folded = torch.remainder(positions, period)
    return torch.where(folded > length - 1, period - folded, folded)


_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "maximum", "minimum")


@register("_npi_pad")
class NumpyPad(_NumpyOperator):
    """NumPy's ``pad`` with ``pad_width`` one (before, after) pair per axis, ``mode`` constant
    (``constant_value``), edge, reflect, symmetric (``reflect_type`` even), maximum or minimum
    (over the whole axis, the axes padded in turn as NumPy does); differentiable."""

    pad_width = Attr(_pad_pairs, default=())
    mode = Attr(Str, default="constant")
    constant_value = Attr(Float, default=0.0)
    reflect_type = Attr(Str, default="even")

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        pairs = list(self.pad_width)
        if len(pairs) == 1 and data.ndim > 1:
            pairs = pairs * data.ndim
        if len(pairs) != data.ndim or any(b < 0 or a < 0 for b, a in pairs):
            raise MXNetError(f"Operator {self.name}: pad_width {self.pad_width} must give one non-negative "
                             f"(before, after) pair per axis of an array of {data.ndim} dimensions")
        if self.mode not in _PAD_MODES:
            raise MXNetError(f"Operator {self.name}: mode must be one of {_PAD_MODES}, got {self.mode!r}")
        result = data
        for axis, (before, after) in enumerate(pairs):
            if not before and not after:
                continue
            length = result.shape[axis]
            if self.mode == "constant":
                shape = list(result.shape)
                pieces = []
                for count in (before, after):
                    shape[axis] = count
                    pieces.append(torch.full(shape, self.constant_value, dtype=result.dtype, device=result.device))
                result = torch.cat([pieces[0], result, pieces[1]], dim=axis)
                continue
            if length == 0:
                raise MXNetError(f"Operator {self.name}: can't extend the empty axis {axis} in mode {self.mode!r}")
            if self.mode in ("maximum", "minimum"):
                stat = result.amax(dim=axis, keepdim=True) if self.mode == "maximum" else \
                    result.amin(dim=axis, keepdim=True)
                sizes = [-1] * result.ndim
                pieces = []
                for count in (before, after):
                    sizes[axis] = count
                    pieces.append(stat.expand(sizes))
                result = torch.cat([pieces[0], result, pieces[1]], dim=axis)
                continue
            if self.mode == "edge":
                index = torch.arange(-before, length + after, device=result.device).clamp(0, length - 1)
            else:
                index = _mirror_index(length, before, after, self.mode == "symmetric", result.device)
            result = torch.index_select(result, axis, index)
        return [result]


# -- insert and delete ---------------------------------------------------------------------------------
class _IndexedEdit(_NumpyOperator):
    """Base of ``_npi_insert_*`` and ``_npi_delete``: the positions come from ``int_ind`` (one
    index), from ``start`` / ``stop`` / ``step`` (a slice) or from an int64 input (``obj``), along
    ``axis`` (None: of the flattened array)."""

    axis = Attr(optional(Int), default=None)
    positions_from = None   # 'int', 'slice' or 'tensor'

    def _prepared(self, arr):
        if self.axis is None:
            return arr.reshape(-1), 0
        axis = self.axis + arr.ndim if self.axis < 0 else self.axis
        if not 0 <= axis < arr.ndim:
            raise MXNetError(f"Operator {self.name}: axis {self.axis} is out of bounds for an array of dimension "
                             f"{arr.ndim}")
        return arr, axis

    def _slice_positions(self, length, device):
        return torch.tensor(list(range(*slice(self.start, self.stop, self.step).indices(length))), dtype=torch.int64,
                            device=device)


def _insert_class(positions_from):
    class Insert(_IndexedEdit):
        __doc__ = ("NumPy's ``insert``: ``values`` (the ``val`` number, or an input) put before the "
                   + {"int": "index ``int_ind``", "slice": "indices of the slice ``start:stop:step``",
                      "tensor": "indices of the int input ``obj``"}[positions_from]
                   + " along ``axis`` (None: of the flattened array), NumPy's broadcasting of the values; the "
                     "result keeps the array's dtype.")
        val = Attr(_OptionalFloat, default=None)
        if positions_from == "int":
            int_ind = Attr(Int, default=0)
        if positions_from == "slice":
            start = Attr(optional(Int), default=None)
            stop = Attr(optional(Int), default=None)
            step = Attr(optional(Int), default=None)

        def arguments(self):
            return ["arr"] + (["values"] if self.val is None else []) + (["obj"] if positions_from == "tensor" else [])

        def forward(self, is_train, inputs, aux):
            arr, axis = self._prepared(inputs[0])
            rest = list(inputs[1:])
            values = rest.pop(0) if self.val is None else torch.tensor(self.val, dtype=torch.float64,
                                                                      device=arr.device)
            values = values.to(arr.dtype)
            length = arr.shape[axis]
            scalar = positions_from == "int" or (positions_from == "tensor" and rest[0].ndim == 0)
            if positions_from == "int":
                indices = torch.tensor([self.int_ind], device=arr.device)
            elif positions_from == "slice":
                indices = self._slice_positions(length, arr.device)
            else:
                indices = rest[0].reshape(-1)
            if indices.numel() == 1:
                if indices.device.type == "meta":
                    raise RuntimeError(f"Operator {self.name}: the position is known once computed")
                index = int(indices[0])
                if index < -length or index > length:
                    raise MXNetError(f"Operator {self.name}: index {index} is out of bounds for axis {axis} with "
                                     f"size {length}")
                index = index + length if index < 0 else index
                # NumPy: values at least arr.ndim-dimensional (ones in front); one index given as a
                # number puts the values' first axis on ``axis``
                while values.ndim < arr.ndim:
                    values = values.unsqueeze(0)
                if scalar:
                    values = torch.movedim(values, 0, axis)
                count = values.shape[axis]
                new_positions = torch.arange(index, index + count, device=arr.device)
            else:
                count = indices.numel()
                if indices.device.type == "meta":
                    new_positions = torch.arange(count, device=arr.device)
                else:
                    indices = indices.to(torch.int64)
                    if host_check_failed((indices < -length) | (indices > length)):
                        raise MXNetError(f"Operator {self.name}: an index is out of bounds for axis {axis} with "
                                         f"size {length}")
                    indices = torch.where(indices < 0, indices + length, indices)
                    order = torch.sort(indices, stable=True).indices
                    new_positions = indices.clone()
                    new_positions[order] += torch.arange(count, device=arr.device)
            shape = list(arr.shape)
            shape[axis] = length + count
            if arr.device.type == "meta":
                return [torch.empty(shape, dtype=arr.dtype, device=arr.device)]
            block_shape = list(arr.shape)
            block_shape[axis] = count
            values = torch.broadcast_to(values, block_shape)
            keep = torch.ones(length + count, dtype=torch.bool, device=arr.device)
            keep[new_positions] = False
            result = torch.zeros(shape, dtype=arr.dtype, device=arr.device)
            result = result.index_copy(axis, new_positions, values)
            return [result.index_copy(axis, torch.nonzero(keep).reshape(-1), arr)]
    Insert.__name__ = Insert.__qualname__ = f"NumpyInsert_{positions_from}"
    return Insert


for _source in ("int", "slice", "tensor"):
    register(f"_npi_insert_{'scalar' if _source == 'int' else _source}")(_insert_class(_source))


@register("_npi_delete")
class NumpyDelete(_IndexedEdit):
    """NumPy's ``delete``: the array without the entries along ``axis`` (None: of the flattened
    array) at ``int_ind`` (negative: from the end), at the slice ``start:stop:step``, or at the
    int (or bool mask) input ``obj``, whose indices outside [0, length) are ignored (MXNet
    1.9.1); repeated ones delete once."""

    int_ind = Attr(optional(Int), default=None)
    start = Attr(optional(Int), default=None)
    stop = Attr(optional(Int), default=None)
    step = Attr(optional(Int), default=None)

    def arguments(self):
        given = self.int_ind is not None or self.start is not None or self.stop is not None or self.step is not None
        return ["arr"] if given else ["arr", "obj"]

    def forward(self, is_train, inputs, aux):
        arr, axis = self._prepared(inputs[0])
        length = arr.shape[axis]
        if len(inputs) > 1:
            if inputs[1].device.type == "meta":
                raise RuntimeError(f"Operator {self.name}: the result's length is known once computed")
            obj = inputs[1].reshape(-1)
            if obj.dtype == torch.bool:
                indices = torch.nonzero(obj).reshape(-1)
            else:
                # MXNet 1.9.1 ignores the indices of an index array outside [0, length)
                indices = obj.to(torch.int64)
                indices = indices[(indices >= 0) & (indices < length)]
        elif self.int_ind is not None:
            indices = torch.tensor([self.int_ind], device=arr.device)
            if not -length <= self.int_ind < length:
                raise MXNetError(f"Operator {self.name}: index {self.int_ind} is out of bounds for axis {axis} with "
                                 f"size {length}")
        else:
            indices = self._slice_positions(length, arr.device)
        if indices.numel() and host_check_failed((indices < -length) | (indices >= length)):
            raise MXNetError(f"Operator {self.name}: an index is out of bounds for axis {axis} with size {length}")
        keep = torch.ones(length, dtype=torch.bool, device=arr.device)
        if indices.numel():
            keep[torch.where(indices < 0, indices + length, indices)] = False
        return [torch.index_select(arr, axis, torch.nonzero(keep).reshape(-1))]


@register("_npi_unique")
class NumpyUnique(_NumpyOperator):
    """NumPy's ``unique``: the sorted unique elements (``axis`` None: of the flattened array) or
    unique subarrays along ``axis``, then as asked the int64 indices of their first occurrences
    (``return_index``), the indices rebuilding the input from them (``return_inverse``; 1-D, as
    MXNet 1.9.1 and NumPy 1.x gave it) and their counts (``return_counts``)."""

    return_index = Attr(Bool, default=False)
    return_inverse = Attr(Bool, default=False)
    return_counts = Attr(Bool, default=False)
    axis = Attr(optional(Int), default=None)

    def outputs(self):
        return ["output"] + [name for name, wanted in (("indices", self.return_index), ("inverse",
                             self.return_inverse), ("counts", self.return_counts)) if wanted]

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if data.device.type == "meta":
            raise RuntimeError(f"Operator {self.name}: the number of unique elements is known once computed")
        if self.axis is None:
            data, axis = data.reshape(-1), None
        else:
            axis = self.axis + data.ndim if self.axis < 0 else self.axis
            if not 0 <= axis < data.ndim:
                raise MXNetError(f"Operator {self.name}: axis {self.axis} is out of bounds for an array of "
                                 f"dimension {data.ndim}")
        length = data.shape[0 if axis is None else axis]
        if data.numel() == 0 and axis is None:
            values = data.clone()
            inverse = counts = torch.zeros((0,), dtype=torch.int64, device=data.device)
        else:
            values, inverse, counts = torch.unique(data, sorted=True, return_inverse=True, return_counts=True,
                                                   dim=axis)
        outputs = [values]
        if self.return_index:
            count = values.shape[0 if axis is None else axis]
            positions = torch.arange(length, device=data.device)
            first = torch.full((count,), length, dtype=torch.int64, device=data.device)
            outputs.append(first.scatter_reduce(0, inverse.reshape(-1), positions, reduce="amin"))
        if self.return_inverse:
            outputs.append(inverse.reshape(-1).to(torch.int64))
        if self.return_counts:
            outputs.append(counts.to(torch.int64))
        return outputs
