"""Random sampling operators on torch's global generator (seeded by ``mx.random.seed``).

Three families, as in MXNet 1.9.1:

- ``_random_<dist>`` (aliases ``random_<dist>``; ``uniform``/``normal`` too): no inputs,
  scalar parameters as attributes, output ``shape`` (a 0 dimension is filled by shape
  inference, as for ``_zeros``), ``dtype`` float32 unless given (``_random_randint``:
  int32).  The executor calls ``create(shape, device)`` with the inferred shape.
- ``_random_<dist>_like``: the shape and dtype of the input ``data``.
- ``_sample_<dist>`` (aliases ``sample_<dist>``): per-element parameters from input arrays
  of one shape ``P``; output ``P + shape``.

Parameterisations follow MXNet: gamma(``alpha`` shape, ``beta`` scale), exponential
(``lam`` rate), poisson(``lam``), negative_binomial(``k`` successes, ``p`` success
probability: failures before the k-th success), generalized_negative_binomial(``mu``
mean, ``alpha`` dispersion: variance ``mu + alpha * mu^2``).  Samples carry no
gradient except ``_sample_multinomial``'s log-probabilities (``get_prob=True``).
``_shuffle`` permutes the first axis.
"""
from __future__ import annotations

import numpy as np
import torch

from ..base import OperatorRunError
from .registry import Attr, Operator, register, Int, Float, Bool, Shape, ArrayShape, DtypeChoice, optional, merge_shape
from .helpers import torch_dtype, numpy_dtype, device_of, infer_outputs_from_data

__all__ = []


def _standard_gamma(concentration):
    """Gamma(concentration, scale 1) samples, one per element of ``concentration``."""
    return torch.distributions.Gamma(concentration, torch.ones_like(concentration)).sample()


def _draw(distribution, parameters, shape, dtype, device):
    """Samples of ``shape`` (parameters broadcast against it) computed in float64/float32."""
    work = torch.float64 if dtype == torch.float64 else torch.float32
    params = [p.to(device=device, dtype=work) if isinstance(p, torch.Tensor)
              else torch.tensor(float(p), dtype=work, device=device) for p in parameters]
    params = [p.expand(shape) for p in params]
    with torch.no_grad():
        if distribution == "uniform":
            low, high = params
            sample = low + (high - low) * torch.rand(shape, dtype=work, device=device)
        elif distribution == "normal":
            loc, scale = params
            sample = loc + scale * torch.randn(shape, dtype=work, device=device)
        elif distribution == "gamma":
            alpha, beta = params
            sample = _standard_gamma(alpha) * beta
        elif distribution == "exponential":
            (lam,) = params
            sample = torch.empty(shape, dtype=work, device=device).exponential_() / lam
        elif distribution == "poisson":
            (lam,) = params
            sample = torch.poisson(lam.contiguous())
        elif distribution == "negative_binomial":
            k, p = params
            rate = _standard_gamma(k) * (1 - p) / p
            sample = torch.poisson(rate)
        elif distribution == "generalized_negative_binomial":
            mu, alpha = params
            safe_alpha = torch.where(alpha > 0, alpha, torch.ones_like(alpha))
            rate = _standard_gamma(1 / safe_alpha) * mu * safe_alpha
            rate = torch.where(alpha > 0, rate, mu)
            sample = torch.poisson(rate)
        else:  # pragma: no cover - guarded by the declarations below
            raise ValueError(distribution)
    return sample.to(dtype)


_PARAMETERS = {
    "uniform": (("low", 0.0), ("high", 1.0)),
    "normal": (("loc", 0.0), ("scale", 1.0)),
    "gamma": (("alpha", 1.0), ("beta", 1.0)),
    "exponential": (("lam", 1.0),),
    "poisson": (("lam", 1.0),),
    "negative_binomial": (("k", 1), ("p", 1.0)),
    "generalized_negative_binomial": (("mu", 1.0), ("alpha", 1.0)),
}
# the argument names of the _sample_* forms (MXNet names the normal's mu/sigma there)
_SAMPLE_ARGUMENTS = {
    "uniform": ("low", "high"), "normal": ("mu", "sigma"), "gamma": ("alpha", "beta"),
    "exponential": ("lam",), "poisson": ("lam",), "negative_binomial": ("k", "p"),
    "generalized_negative_binomial": ("mu", "alpha"),
}
_FLOAT_DTYPES = optional(DtypeChoice("float16", "float32", "float64"))
# MXNet's checks of the scalar parameters (sample_op.h): a violated one raises MXNetError
_PARAMETER_CHECKS = {
    "uniform": lambda p: p.high >= p.low or "'low' must be less than or equal to 'high'",
    "normal": lambda p: p.scale > 0 or "'scale' must be positive",
    "gamma": lambda p: (p.alpha > 0 and p.beta > 0) or "'alpha' and 'beta' must be positive",
    "exponential": lambda p: p.lam > 0 or "'lam' must be positive",
    "poisson": lambda p: p.lam >= 0 or "'lam' must be non-negative",
    "negative_binomial": lambda p: (p.k >= 0 and p.p >= 0) or "'k' and 'p' must be non-negative",
    "generalized_negative_binomial": lambda p: (p.mu >= 0 and p.alpha >= 0) or
    "'mu' and 'alpha' must be non-negative",
}


def _check_parameters(self):
    """MXNet's range check of each scalar parameter of a sampler.  MXNet made it while drawing,
    so the error is an OperatorRunError: raised at the next wait on the output (``asnumpy``,
    ``waitall``), not at the call (``mxtorch.ndarray.pending``)."""
    verdict = _PARAMETER_CHECKS[self.distribution](self)
    if verdict is not True:
        given = ", ".join(f"{name}={getattr(self, name)!r}" for name, _ in _PARAMETERS[self.distribution])
        raise OperatorRunError(f"Operator {self.name}: {verdict} in the {self.distribution} distribution, "
                               f"got {given}")


def _float_dtype(value, name):
    return _FLOAT_DTYPES(value, name)


class _RandomCreator(Operator):
    """Base of ``_random_<dist>``: no inputs; ``create(shape, device)`` draws the samples.
    ``shape`` sizes are at least -1 (MXNetError otherwise, as MXNet's ``TShape``); in a graph a
    0 or -1 size is left to shape inference, an imperative call needs every size."""

    distribution = None
    shape = Attr(ArrayShape, default=())
    ctx = Attr(lambda v, n: str(v), default="")
    dtype = Attr(_float_dtype, default=None)

    def arguments(self):
        return []

    def _dtype_name(self):
        return self.dtype or "float32"

    def infer_shape(self, in_shapes, out_shapes):
        # a -1 size, like a 0, is unknown (MXNet 1.9.1 reports it as 0)
        shape = tuple(0 if size == -1 else size for size in self.shape) if self.shape else None
        return [], [merge_shape(out_shapes[0], shape, f"Operator {self.name} output")], []

    def imperative_shape(self):
        """``shape`` for a call outside a graph (``mx.nd.random.uniform(shape=...)``).  MXNetError
        when a size is -1, which only shape inference in a graph could fill, and, as in MXNet
        1.x, for a 0 size or the shape ``()`` unless NumPy shape semantics are on
        (``mx.np_shape()``), under which they give zero-size and scalar arrays."""
        shape = tuple(self.shape)
        if any(size < 0 for size in shape):
            raise self.error(f"argument 'shape' {shape} has an unknown (-1) size; outside a graph every size "
                             f"must be given")
        from ..util import is_np_shape
        if not is_np_shape() and (not shape or 0 in shape):
            raise self.error(f"argument 'shape' {shape} has unknown dimensions (MXNet 1.x reads () and 0 as "
                             f"unknown); zero-size and scalar samples need mx.np_shape(True)")
        return shape

    def infer_type(self, in_types):
        return [], [numpy_dtype(self._dtype_name())], []

    def _parameters(self):
        return [getattr(self, name) for name, _ in _PARAMETERS[self.distribution]]

    def create(self, shape, device):
        _check_parameters(self)
        return _draw(self.distribution, self._parameters(), tuple(shape), torch_dtype(self._dtype_name()), device)

    def forward(self, is_train, inputs, aux):
        return [self.create(self.imperative_shape(), device_of(self.ctx))]


class _RandomLike(Operator):
    """Base of ``_random_<dist>_like``: samples with the shape and dtype of ``data``."""

    distribution = None

    def forward(self, is_train, inputs, aux):
        _check_parameters(self)
        data = inputs[0]
        parameters = [getattr(self, name) for name, _ in _PARAMETERS[self.distribution]]
        dtype = data.dtype if data.is_floating_point() else torch.float32
        return [_draw(self.distribution, parameters, tuple(data.shape), dtype, data.device)]


class _Sample(Operator):
    """Base of ``_sample_<dist>``: parameter arrays of one shape P; output ``P + shape``."""

    distribution = None
    shape = Attr(Shape, default=())
    dtype = Attr(_float_dtype, default=None)

    def validate(self):
        # MXNet 1.9.1 (multisample_op.h): every size of the per-element sample shape must be positive
        if any(size <= 0 for size in self.shape):
            raise self.error(f"argument 'shape' must have positive sizes (the samples drawn per parameter "
                             f"element), got {tuple(self.shape)}")

    def arguments(self):
        return list(_SAMPLE_ARGUMENTS[self.distribution])

    def infer_shape(self, in_shapes, out_shapes):
        common = None
        for name, shape in zip(self.arguments(), in_shapes):
            common = merge_shape(common, shape, f"Operator {self.name} argument {name!r}")
        out = out_shapes[0]
        if common is not None:
            out = merge_shape(out, tuple(common) + tuple(self.shape), f"Operator {self.name} output")
        return [common] * len(in_shapes), [out], []

    def infer_type(self, in_types):
        dtype = next((t for t in in_types if t is not None), None)
        out = numpy_dtype(self.dtype) if self.dtype else np.dtype(np.float32)
        return [dtype] * len(in_types), [out], []

    def forward(self, is_train, inputs, aux):
        base = tuple(inputs[0].shape)
        extra = tuple(self.shape)
        shape = base + extra
        view = base + (1,) * len(extra)
        parameters = [p.detach().reshape(view) for p in inputs]
        dtype = torch_dtype(self.dtype or "float32")
        return [_draw(self.distribution, parameters, shape, dtype, inputs[0].device)]


def _declare(distribution):
    attrs = {name: Attr(Int if isinstance(default, int) else Float, default=default)
             for name, default in _PARAMETERS[distribution]}
    names = {"uniform": ("uniform",), "normal": ("normal",)}.get(distribution, ())
    order = tuple(name for name, _ in _PARAMETERS[distribution]) + ("shape", "ctx", "dtype")
    creator = type(f"Random_{distribution}", (_RandomCreator,), dict(
        attrs, distribution=distribution, positional_order=order,
        __doc__=f"Samples of the {distribution} distribution of ``shape`` "
                f"(parameters {', '.join(n for n, _ in _PARAMETERS[distribution])})."))
    register(f"_random_{distribution}", f"random_{distribution}", *names)(creator)
    like = type(f"Random_{distribution}_like", (_RandomLike,), dict(
        attrs, distribution=distribution,
        __doc__=f"Samples of the {distribution} distribution with the shape and dtype of ``data``."))
    register(f"_random_{distribution}_like")(like)
    sample = type(f"Sample_{distribution}", (_Sample,), dict(
        distribution=distribution,
        __doc__=f"Samples of the {distribution} distribution with per-element parameters "
                f"{', '.join(_SAMPLE_ARGUMENTS[distribution])} (arrays of shape P); output P + shape."))
    register(f"_sample_{distribution}", f"sample_{distribution}")(sample)


for _distribution in _PARAMETERS:
    _declare(_distribution)


@register("_random_randint", "random_randint")
class RandomRandint(_RandomCreator):
    """Integers drawn uniformly from ``[low, high)`` of ``shape``, dtype int32 (or int64)."""

    positional_order = ("low", "high", "shape", "ctx", "dtype")

    low = Attr(Int, required=True)
    high = Attr(Int, required=True)
    dtype = Attr(optional(DtypeChoice("int32", "int64")), default=None)

    def _dtype_name(self):
        return self.dtype or "int32"

    def create(self, shape, device):
        if self.high <= self.low:
            # checked while drawing in MXNet: reported at the next wait on the output
            raise OperatorRunError(f"Operator {self.name}: argument 'high' ({self.high}) must be larger "
                                   f"than 'low' ({self.low})")
        return torch.randint(self.low, self.high, tuple(shape), device=device,
                             dtype=torch_dtype(self._dtype_name()))


@register("_sample_multinomial", "sample_multinomial")
class SampleMultinomial(Operator):
    """Category indices drawn from the probabilities on the last axis of ``data``
    ``(..., K)``: output ``data.shape[:-1] + shape`` (``(1,)`` for 1-D data without
    ``shape``), dtype int32.  With ``get_prob`` a second output holds the log-probability
    of each draw (float, differentiable with respect to ``data``)."""

    shape = Attr(ArrayShape, default=())
    get_prob = Attr(Bool, default=False)
    dtype = Attr(DtypeChoice("float16", "float32", "float64", "int32", "uint8"), default="int32")

    def validate(self):
        # MXNet 1.9.1 needs every size of ``shape`` known here (a 0 size gives an empty output)
        if any(size < 0 for size in self.shape):
            raise self.error(f"argument 'shape' must have sizes of 0 or more (the draws per distribution), "
                             f"got {tuple(self.shape)}")

    def outputs(self):
        return ["output0", "output1"] if self.get_prob else ["output"]

    def _out(self, data):
        shape = tuple(data[:-1]) + tuple(self.shape)
        return shape if shape else (1,)

    def infer_shape(self, in_shapes, out_shapes):
        return infer_outputs_from_data(self, in_shapes, out_shapes, self._out)

    def infer_type(self, in_types):
        dtype = in_types[0]
        outs = [numpy_dtype(self.dtype)]
        if self.get_prob:
            outs.append(dtype if dtype is not None else np.dtype(np.float32))
        return [dtype], outs, []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        classes = data.shape[-1]
        rows = data.reshape(-1, classes)
        draws = int(np.prod(self.shape)) if self.shape else 1
        if draws == 0 or rows.shape[0] == 0:
            # a 0 size in ``shape`` (or empty data): an empty output, as in MXNet 1.9.1
            index = torch.zeros((rows.shape[0], draws), dtype=torch.int64, device=data.device)
        else:
            with torch.no_grad():
                index = torch.multinomial(rows.detach().float(), draws, replacement=True)
        out_shape = self._out(tuple(data.shape))
        result = [index.to(torch_dtype(self.dtype)).reshape(out_shape)]
        if self.get_prob:
            log_probability = torch.log(rows.gather(1, index))
            result.append(log_probability.reshape(out_shape))
        return result


@register("_shuffle", "shuffle")
class Shuffle(Operator):
    """A copy of ``data`` with its first axis randomly permuted (torch's global generator)."""

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        order = torch.randperm(data.shape[0], device=data.device)
        return [data[order]]


@register("_sample_unique_zipfian")
class SampleUniqueZipfian(Operator):
    """Distinct class ids drawn from the approximately log-uniform (Zipfian) distribution on
    ``[0, range_max)``, as MXNet 1.9.1's sampled-softmax helper: for each of the ``shape[0]``
    rows, values ``round(exp(u * log(range_max))) - 1`` for uniform ``u`` are drawn until
    ``shape[1]`` distinct ones are found, kept in the order found.  Outputs the ids
    ``shape`` and the number of draws each row took ``(shape[0],)``, both int64.  MXNetError
    if ``shape`` is not 2-D or asks for more ids than ``range_max``."""

    range_max = Attr(Int, required=True)
    shape = Attr(Shape, default=())

    def arguments(self):
        return []

    def outputs(self):
        return ["output0", "output1"]

    def validate(self):
        if len(self.shape) != 2:
            raise self.error(f"argument 'shape' must be 2-D (batch_size, num_sampled), got {tuple(self.shape)}")
        if self.shape[1] > self.range_max:
            raise self.error(f"cannot sample {self.shape[1]} distinct classes out of range_max={self.range_max}")

    def infer_shape(self, in_shapes, out_shapes):
        return [], [merge_shape(out_shapes[0], tuple(self.shape), f"Operator {self.name} output 0"),
                    merge_shape(out_shapes[1], (self.shape[0],), f"Operator {self.name} output 1")], []

    def infer_type(self, in_types):
        return [], [np.dtype(np.int64), np.dtype(np.int64)], []

    def _row(self, wanted):
        """``(ids, draws)`` of one row: the first ``wanted`` distinct values of a stream of draws."""
        log_range = float(np.log(self.range_max))
        stream = torch.empty(0, dtype=torch.int64)
        chunk = 2 * wanted + 16
        while True:
            draws = torch.floor(torch.exp(torch.rand(chunk, dtype=torch.float64) * log_range) + 0.5)
            stream = torch.cat([stream, draws.to(torch.int64) - 1])
            order = torch.sort(stream, stable=True)
            first = torch.ones(len(stream), dtype=torch.bool)
            first[1:] = order.values[1:] != order.values[:-1]
            is_new = torch.zeros(len(stream), dtype=torch.bool)
            is_new[order.indices[first]] = True
            found = torch.cumsum(is_new, 0)
            if found[-1] >= wanted:
                last = int(torch.searchsorted(found, wanted))
                return stream[:last + 1][is_new[:last + 1]], last + 1
            chunk *= 2

    def forward(self, is_train, inputs, aux):
        rows, counts = [], []
        for _ in range(self.shape[0]):
            ids, draws = self._row(self.shape[1])
            rows.append(ids)
            counts.append(draws)
        ids = torch.stack(rows) if rows else torch.zeros(tuple(self.shape), dtype=torch.int64)
        return [ids, torch.tensor(counts, dtype=torch.int64).reshape(self.shape[0])]
