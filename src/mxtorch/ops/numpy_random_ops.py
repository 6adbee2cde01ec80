"""The samplers of ``mx.np.random`` / ``npx.random``: ``_npi_<distribution>`` with MXNet 1.9.1's
names and attributes.

MXNet's NumPy samplers take each distribution parameter either as a number (an attribute:
``loc=0.5``) or as an array (an input, the attribute then None): ``_npi_normal(loc_array,
scale=2.0, loc=None)``.  The inputs are the array-valued parameters, in the order of the
parameter list.  The output shape is ``size`` when given (the parameters broadcast to it), else
the broadcast shape of the array parameters (``()`` for numbers only); the ``*_n`` forms
(``npx.random.normal_n``) put ``size`` (their ``batch_shape``) in front of that broadcast shape.

Sampling draws from torch's generator (seeded by ``mx.random.seed`` / ``npx.random.seed``) in
float64 and casts to ``dtype`` (float32 unless given).  Every continuous sampler is written as a
differentiable transform of parameter-free noise (loc + scale * N(0, 1), scale * E with E
standard exponential, ...), so autograd gives the reparameterisation gradients MXNet 1.9.1's
samplers defined (d/dloc = 1, d/dscale = the noise, gamma's shape gradient through torch's
``_standard_gamma``).

A parameter outside its domain (``scale < 0``, gamma's ``shape <= 0``, a probability outside
[0, 1]) is found while computing and raised as ``OperatorRunValueError`` (a ValueError) when
the result is read, as MXNet's kernels reported it.
"""
from __future__ import annotations

import numpy as np
import torch

from ..base import MXNetError
from ..exceptions import OperatorRunValueError
from ..schema import numpy_integer
from .helpers import device_of
from .numpy_arrays import _Size
from .numpy_ops import NumpyAttr, _Ctx, _Dtype, _NumpyOperator, _torch_dtype
from .registry import Attr, Bool, Float, optional, register

__all__ = ["SAMPLERS"]

_OptionalFloat = optional(Float)


def _uniform_noise(shape, device):
    """Uniform noise on the open interval (0, 1) (no log(0) downstream)."""
    tiny = torch.finfo(torch.float64).tiny
    return torch.rand(shape, dtype=torch.float64, device=device).clamp_(min=tiny, max=1.0 - 2.0 ** -53)


def _exponential_noise(shape, device):
    return -torch.log1p(-_uniform_noise(shape, device))


def _standard_gamma(shape_parameter, out_shape):
    concentration = shape_parameter.expand(out_shape)
    return torch._standard_gamma(concentration.contiguous()) if concentration.numel() else \
        concentration * 0


# distribution -> (parameters with their defaults, domain check, sampler); a sampler gets the
# float64 parameters broadcast to the output shape and returns float64 samples
def _normal(p, shape, device):
    return p["loc"] + p["scale"] * torch.randn(shape, dtype=torch.float64, device=device)


def _uniform(p, shape, device):
    return p["low"] + (p["high"] - p["low"]) * torch.rand(shape, dtype=torch.float64, device=device)


def _logistic(p, shape, device):
    noise = _uniform_noise(shape, device)
    return p["loc"] + p["scale"] * (torch.log(noise) - torch.log1p(-noise))


def _gumbel(p, shape, device):
    return p["loc"] - p["scale"] * torch.log(_exponential_noise(shape, device))


def _laplace(p, shape, device):
    centred = _uniform_noise(shape, device) - 0.5
    return p["loc"] - p["scale"] * torch.sign(centred) * torch.log1p(-2.0 * centred.abs())


def _exponential(p, shape, device):
    return p["scale"] * _exponential_noise(shape, device)


def _rayleigh(p, shape, device):
    return p["scale"] * torch.sqrt(2.0 * _exponential_noise(shape, device))


def _weibull(p, shape, device):
    return _exponential_noise(shape, device) ** (1.0 / p["a"])


def _pareto(p, shape, device):
    # NumPy's pareto is the Lomax (Pareto II) distribution: exp(E / a) - 1
    return torch.expm1(_exponential_noise(shape, device) / p["a"])


def _power(p, shape, device):
    return _uniform_noise(shape, device) ** (1.0 / p["a"])


def _gamma(p, shape, device):
    return _standard_gamma(p["shape"], shape) * p["scale"]


def _positive(*names):
    def check(p):
        for name in names:
            if bool((p[name] <= 0).any()):
                return f"{name} must be > 0"
        return None
    return check


def _non_negative(*names):
    def check(p):
        for name in names:
            if bool((p[name] < 0).any()):
                return f"{name} must be >= 0"
        return None
    return check


SAMPLERS = {
    "normal": ((("loc", 0.0), ("scale", 1.0)), _non_negative("scale"), _normal),
    "uniform": ((("low", 0.0), ("high", 1.0)), None, _uniform),
    "logistic": ((("loc", 0.0), ("scale", 1.0)), _non_negative("scale"), _logistic),
    "gumbel": ((("loc", 0.0), ("scale", 1.0)), _non_negative("scale"), _gumbel),
    "laplace": ((("loc", 0.0), ("scale", 1.0)), _non_negative("scale"), _laplace),
    "exponential": ((("scale", 1.0),), _non_negative("scale"), _exponential),
    "rayleigh": ((("scale", 1.0),), _non_negative("scale"), _rayleigh),
    "weibull": ((("a", 1.0),), _positive("a"), _weibull),
    "pareto": ((("a", 1.0),), _positive("a"), _pareto),
    "powerd": ((("a", 1.0),), _positive("a"), _power),
    "gamma": ((("shape", 1.0), ("scale", 1.0)), _positive("shape", "scale"), _gamma),
}
# the samplers whose MXNet operator takes a ``dtype`` attribute (the others give float32)
_WITH_DTYPE = {"normal", "uniform", "gamma", "normal_n", "uniform_n", "laplace"}


def _broadcast_shape(op_name, shapes):
    try:
        return tuple(np.broadcast_shapes(*map(tuple, shapes))) if shapes else ()
    except ValueError:
        raise MXNetError(f"Operator {op_name}: the parameter shapes {', '.join(map(str, shapes))} do not "
                         f"broadcast together") from None


def _sampler_class(kind, batched=False):
    parameters, check, sample = SAMPLERS[kind]
    names = [name for name, _ in parameters]
    dtype_attr = kind in _WITH_DTYPE or (batched and kind.split("_")[0] in _WITH_DTYPE)

    class Sampler(_NumpyOperator):
        deterministic = False
        traceable = False
        size = NumpyAttr(_Size, default=None)
        ctx = Attr(_Ctx, default=None)
        if dtype_attr:
            dtype = Attr(_Dtype, default="float32")

        def arguments(self):
            given = [name for name in names if getattr(self, name) is None]
            return ["input1", "input2"][:len(given)]

        def _out_shape(self, inputs):
            parameter_shape = _broadcast_shape(self.name, [tuple(t.shape) for t in inputs])
            if self.size is None:
                return parameter_shape
            size = tuple(self.size)
            if batched:
                return size + parameter_shape
            try:
                if tuple(np.broadcast_shapes(size, parameter_shape)) != size:
                    raise ValueError
            except ValueError:
                raise MXNetError(f"Operator {self.name}: the parameters of shape {parameter_shape} do not "
                                 f"broadcast to size {size}") from None
            return size

        def forward(self, is_train, inputs, aux):
            device = inputs[0].device if inputs else device_of(self.ctx)
            dtype = _torch_dtype(getattr(self, "dtype", None) or "float32")
            shape = self._out_shape(inputs)
            if device.type == "meta":
                return [torch.empty(shape, dtype=dtype, device=device)]
            values, arrays = {}, iter(inputs)
            for name, _ in parameters:
                attr = getattr(self, name)
                values[name] = next(arrays).to(torch.float64) if attr is None else \
                    torch.tensor(float(attr), dtype=torch.float64, device=device)
            if check is not None:
                verdict = check(values)
                if verdict is not None:
                    raise OperatorRunValueError(f"Operator {self.name}: {verdict}")
            return [sample(values, shape, device).to(dtype)]

    for name, default in parameters:
        attr = Attr(_OptionalFloat, default=default)
        attr.__set_name__(Sampler, name)
        setattr(Sampler, name, attr)
    Sampler.__doc__ = (f"Samples of NumPy's ``{kind}`` distribution (parameters {', '.join(names)}: numbers as "
                       f"attributes, arrays as inputs); shape "
                       + ("``size`` followed by the parameters' broadcast shape" if batched
                          else "``size``, else the parameters' broadcast shape")
                       + (", dtype ``dtype`` (float32 by default)." if dtype_attr else ", float32."))
    Sampler.__name__ = Sampler.__qualname__ = f"NumpySampler_{kind}{'_n' if batched else ''}"
    return Sampler


for _kind in SAMPLERS:
    register(f"_npi_{_kind}")(_sampler_class(_kind))
register("_npi_normal_n")(_sampler_class("normal", batched=True))
register("_npi_uniform_n")(_sampler_class("uniform", batched=True))


@register("_npi_bernoulli")
class NumpyBernoulli(_NumpyOperator):
    """``npx.random.bernoulli``: 1 with probability ``prob`` (or ``sigmoid(logit)`` when
    ``is_logit``), else 0; the parameter is a number attribute or the one input; shape ``size``
    or the input's; dtype ``dtype`` (float32 by default, bool and integers allowed).  A
    probability outside [0, 1] raises ValueError when the result is read."""

    deterministic = False
    traceable = False
    prob = Attr(_OptionalFloat, default=None)
    logit = Attr(_OptionalFloat, default=None)
    is_logit = Attr(Bool, default=False)
    size = NumpyAttr(_Size, default=None)
    ctx = Attr(_Ctx, default=None)
    dtype = Attr(_Dtype, default="float32")

    def arguments(self):
        return ["input1"] if (self.logit if self.is_logit else self.prob) is None else []

    def forward(self, is_train, inputs, aux):
        device = inputs[0].device if inputs else device_of(self.ctx)
        dtype = _torch_dtype(self.dtype or "float32")
        parameter_shape = tuple(inputs[0].shape) if inputs else ()
        shape = parameter_shape if self.size is None else tuple(self.size)
        if device.type == "meta":
            return [torch.empty(shape, dtype=dtype, device=device)]
        if inputs:
            value = inputs[0].to(torch.float64)
        else:
            value = torch.tensor(float(self.logit if self.is_logit else self.prob), dtype=torch.float64,
                                 device=device)
        prob = torch.sigmoid(value) if self.is_logit else value
        if not self.is_logit and bool(((prob < 0) | (prob > 1)).any()):
            raise OperatorRunValueError(f"Operator {self.name}: prob must be in [0, 1]")
        draw = torch.rand(shape, dtype=torch.float64, device=device) < prob.expand(shape)
        return [draw.to(dtype)]


@register("_npi_multinomial")
class NumpyMultinomial(_NumpyOperator):
    """``np.random.multinomial``: counts of ``n`` draws among ``len(pvals)`` outcomes, shape
    ``size + (len(pvals),)``, int64; ``pvals`` a list attribute or the one input (a 1-D array)."""

    deterministic = False
    traceable = False
    n = NumpyAttr(numpy_integer(low=0), default=1)
    pvals = Attr(optional(lambda value, name: tuple(float(v) for v in (
        eval(value, {"__builtins__": {}}) if isinstance(value, str) else value))), default=None)  # noqa: S307
    size = NumpyAttr(_Size, default=None)

    def arguments(self):
        return ["input1"] if self.pvals is None else []

    def forward(self, is_train, inputs, aux):
        device = inputs[0].device if inputs else torch.device("cpu")
        pvals = inputs[0].to(torch.float64) if inputs else torch.tensor(self.pvals, dtype=torch.float64)
        size = () if self.size is None else tuple(self.size)
        shape = size + (pvals.shape[-1],)
        if device.type == "meta":
            return [torch.empty(shape, dtype=torch.int64, device=device)]
        if bool((pvals < 0).any()) or float(pvals[:-1].sum()) > 1.0 + 1e-12:
            raise OperatorRunValueError(f"Operator {self.name}: pvals must be non-negative and sum to at most 1")
        # the last outcome takes what the others leave (NumPy's rule)
        weights = torch.cat([pvals[:-1], (1.0 - pvals[:-1].sum()).clamp(min=0).reshape(1)])
        count = int(np.prod(size)) if size else 1
        if self.n == 0 or count == 0:
            return [torch.zeros(shape, dtype=torch.int64, device=device)]
        draws = torch.multinomial(weights.expand(count, -1), self.n, replacement=True)
        counts = torch.zeros(count, pvals.shape[-1], dtype=torch.int64, device=device)
        counts.scatter_add_(1, draws, torch.ones_like(draws))
        return [counts.reshape(shape)]


@register("_npi_mvn_fallback")
class NumpyMultivariateNormal(_NumpyOperator):
    """``np.random.multivariate_normal``: ``mean + L @ z`` with ``L`` the Cholesky factor of
    ``cov`` (``mean`` of shape ``(..., k)``, ``cov`` of ``(..., k, k)``, batch shapes broadcast);
    shape ``size + broadcast batch + (k,)``, the dtype of ``mean``."""

    deterministic = False
    traceable = False
    size = NumpyAttr(_Size, default=None)

    def arguments(self):
        return ["mean", "cov"]

    def forward(self, is_train, inputs, aux):
        mean, cov = inputs
        if cov.ndim < 2 or cov.shape[-1] != cov.shape[-2] or mean.ndim < 1 or mean.shape[-1] != cov.shape[-1]:
            raise MXNetError(f"Operator {self.name}: mean of shape {tuple(mean.shape)} and cov of shape "
                             f"{tuple(cov.shape)} do not describe one dimension k (mean (..., k), cov (..., k, k))")
        batch = _broadcast_shape(self.name, [tuple(mean.shape[:-1]), tuple(cov.shape[:-2])])
        size = () if self.size is None else tuple(self.size)
        shape = size + batch + (mean.shape[-1],)
        if mean.device.type == "meta":
            return [torch.empty(shape, dtype=mean.dtype, device=mean.device)]
        factor = torch.linalg.cholesky(cov.to(torch.float64))
        noise = torch.randn(shape, dtype=torch.float64, device=mean.device)
        return [(mean.to(torch.float64) + (factor @ noise.unsqueeze(-1)).squeeze(-1)).to(mean.dtype)]
