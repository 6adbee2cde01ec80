"""The NumPy front end's shape, product, creation and sampling operators (``_np_*``, ``_npi_*``).

Declared once as in ``numpy_ops.py`` (its ``_NumpyOperator`` base infers shapes and dtypes on
torch's meta device); the creation operators take MXNet's ``shape`` / ``ctx`` / ``dtype``
attributes and default to float32, the ``mx.np`` default.  The operators ``npx`` shares with
the classic front end (``relu``, ``softmax``, ``batch_dot``, ...) are the classic declarations
under their ``_npx_*`` aliases, as MXNet registered them.
"""
from __future__ import annotations

import numpy as np
import torch

from ..base import MXNetError
from ..exceptions import MXNetValueError
from ..schema import NumpyShape, numpy_integer, numpy_shape
from .registry import Attr, Bool, Float, Int, Str, add_aliases, merge_shape, optional, register
from .helpers import device_of
from .numpy_ops import NumpyAttr, _Axis, _Ctx, _Dtype, _NumpyOperator, _axes, _shape_attr, _torch_dtype, promote_types

__all__ = ["NPX_ALIASES", "npx_operators"]

# the shapes and counts of the creation, sampling and repetition operators, read as NumPy reads
# them (schema.numpy_shape): integers only (2.5 and 2.0 raise TypeError, as MXNet's parser refused
# them), sizes of at least 0 (ValueError); MXNet's text form ('(2, 3)') too.  Declared with
# NumpyAttr, whose errors are TypeError / ValueError as well as OperatorSchemaError.  ``_Size``:
# the samplers' ``size`` (None: the parameters' shape).  ``_Shape``: the looser integer tuple of
# other attributes (moveaxis' axes, unravel_index's shape).
_Shape = optional(_shape_attr)
_Size = optional(NumpyShape)
# ``_npi_zeros`` (np.zeros, np.empty): MXNet 1.9.1's FFI front end took a bool size as 0 / 1
_ZerosShape = numpy_shape(bools=True)
_NewShape = numpy_shape(low=-1, note="-1: the one size to infer")
# MXNet's -2 in ``broadcast_to`` keeps the input's size of that axis; -1 is refused in forward
_BroadcastShape = numpy_shape(low=-2, note="-2: the input's size of that axis")
_Count = numpy_integer(low=0)


# -- shapes ---------------------------------------------------------------------------------------
def numpy_reshape(shape, newshape):
    """NumPy's ``reshape`` target: one -1 dimension is inferred; MXNetError when sizes differ."""
    newshape = tuple(newshape)
    size = int(np.prod(shape)) if shape else 1
    if newshape.count(-1) > 1:
        raise MXNetError(f"reshape: can only specify one unknown dimension, got {newshape}")
    if -1 in newshape:
        known = int(np.prod([d for d in newshape if d != -1])) if len(newshape) > 1 else 1
        if known == 0 or size % known:
            raise MXNetError(f"reshape: cannot reshape array of shape {tuple(shape)} into shape {newshape}")
        newshape = tuple(size // known if d == -1 else d for d in newshape)
    if int(np.prod(newshape)) != size:
        raise MXNetError(f"reshape: cannot reshape array of size {size} into shape {newshape}")
    return newshape


@register("_np_reshape", "_npi_reshape")
class NumpyReshape(_NumpyOperator):
    """NumPy's ``reshape`` to ``newshape`` (one -1 dimension inferred), C order."""

    newshape = NumpyAttr(_NewShape, default=())
    order = Attr(Str, default="C")

    def forward(self, is_train, inputs, aux):
        if self.order != "C":
            raise MXNetError(f"reshape: only order='C' is supported, got {self.order!r}")
        return [inputs[0].reshape(numpy_reshape(tuple(inputs[0].shape), self.newshape))]


@register("_np_transpose")
class NumpyTranspose(_NumpyOperator):
    """NumPy's ``transpose``: ``axes`` permuted (None: reversed)."""

    axes = Attr(_Axis, default=None)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        axes = _axes(self.axes)
        if axes is None or not axes:
            axes = tuple(reversed(range(data.dim())))
        if len(axes) != data.dim() or any(not -data.dim() <= a < data.dim() for a in axes):
            raise MXNetError(f"transpose: axes {tuple(axes)} do not match an array of {data.dim()} dimensions")
        if len({a % data.dim() for a in axes}) != len(axes):
            from ..exceptions import MXNetValueError
            raise MXNetValueError(f"transpose: repeated axis in transpose, axes {tuple(axes)}")
        return [data.permute(tuple(a % data.dim() for a in axes))]


@register("_npi_expand_dims")
class NumpyExpandDims(_NumpyOperator):
    """NumPy's ``expand_dims``: a size-1 axis inserted at ``axis``."""

    axis = Attr(Int, default=0)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        axis = self.axis if self.axis >= 0 else self.axis + data.dim() + 1
        if not 0 <= axis <= data.dim():
            raise MXNetError(f"expand_dims: axis {self.axis} is out of bounds for an array of dimension "
                             f"{data.dim() + 1}")
        return [data.unsqueeze(axis)]


@register("_np_squeeze")
class NumpySqueeze(_NumpyOperator):
    """NumPy's ``squeeze``: the size-1 axes removed (``axis``: only those, each must be size 1)."""

    axis = Attr(_Axis, default=None)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        axes = _axes(self.axis)
        if axes is None:
            return [data.reshape([d for d in data.shape if d != 1])]
        if data.dim() == 0:
            # a zero-dim array takes axis 0 or -1 (NumPy's rule for scalars)
            if any(a not in (0, -1) for a in axes):
                raise MXNetError(f"squeeze: axis {tuple(axes)} is out of bounds for an array of dimension 0")
            return [data.clone()]
        axes = {a % data.dim() for a in axes}
        for axis in axes:
            if data.shape[axis] != 1:
                raise MXNetError("squeeze: cannot select an axis to squeeze out which has size not equal to one")
        return [data.reshape([d for i, d in enumerate(data.shape) if i not in axes])]


@register("_npi_swapaxes")
class NumpySwapAxes(_NumpyOperator):
    """NumPy's ``swapaxes`` of ``dim1`` and ``dim2``."""

    dim1 = Attr(Int, default=0)
    dim2 = Attr(Int, default=0)

    def forward(self, is_train, inputs, aux):
        return [inputs[0].transpose(self.dim1, self.dim2)]


@register("_np_broadcast_to", "_npi_broadcast_to")
class NumpyBroadcastTo(_NumpyOperator):
    """NumPy's ``broadcast_to`` ``shape``; MXNet's -2 in ``shape`` keeps the input's size of that
    axis (the axes aligned from the right)."""

    shape = NumpyAttr(_BroadcastShape, default=())

    def forward(self, is_train, inputs, aux):
        if any(d < 0 and d != -2 for d in self.shape):
            raise MXNetError(f"broadcast_to: negative dimensions are not allowed in shape {tuple(self.shape)}")
        try:
            return [inputs[0].expand(*[-1 if d == -2 else d for d in self.shape])]
        except RuntimeError:
            raise MXNetError(f"broadcast_to: operands could not be broadcast together with remapped shapes "
                             f"{tuple(inputs[0].shape)} and requested shape {tuple(self.shape)}") from None


@register("_npi_tile")
class NumpyTile(_NumpyOperator):
    """NumPy's ``tile`` by ``reps``."""

    reps = NumpyAttr(NumpyShape, default=())

    def forward(self, is_train, inputs, aux):
        data, reps = inputs[0], tuple(self.reps)
        if not reps:
            return [data.clone()]
        if len(reps) < data.dim():
            reps = (1,) * (data.dim() - len(reps)) + reps
        return [data.reshape((1,) * (len(reps) - data.dim()) + tuple(data.shape)).repeat(*reps)]


@register("_npi_repeats", "_np_repeat")
class NumpyRepeat(_NumpyOperator):
    """NumPy's ``repeat``: each element ``repeats`` times along ``axis`` (None: flattened)."""

    repeats = NumpyAttr(NumpyShape, default=(1,))
    axis = Attr(optional(Int), default=None)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        repeats = tuple(self.repeats)
        count = repeats[0] if len(repeats) == 1 else torch.tensor(repeats, device=data.device)
        if self.axis is None:
            return [torch.repeat_interleave(data.reshape(-1), count)]
        return [torch.repeat_interleave(data, count, dim=self.axis)]


class _Joined(_NumpyOperator):
    variadic = True
    num_args = Attr(Int, default=1)
    axis = Attr(optional(Int), default=0)

    def arguments(self):
        return [f"data{i}" for i in range(self.num_args)]

    def _common(self, inputs):
        """The inputs in one dtype (the front end refuses mixed dtypes, as MXNet's type inference
        did; inside a gradient computation integer inputs arrive as float carriers)."""
        dtype = inputs[0].dtype
        for tensor in inputs[1:]:
            dtype = promote_types(dtype, tensor.dtype)
        return [tensor.to(dtype) for tensor in inputs]


@register("_npi_concatenate")
class NumpyConcatenate(_Joined):
    """NumPy's ``concatenate`` along ``axis`` (None: the flattened arrays)."""

    def forward(self, is_train, inputs, aux):
        inputs = self._common(inputs)
        if self.axis is None:
            return [torch.cat([t.reshape(-1) for t in inputs])]
        return [torch.cat(inputs, dim=self.axis)]


@register("_npi_stack")
class NumpyStack(_Joined):
    """NumPy's ``stack`` along a new ``axis``."""

    def forward(self, is_train, inputs, aux):
        if len({tuple(t.shape) for t in inputs}) > 1:
            raise MXNetError("stack: all input arrays must have the same shape")
        return [torch.stack(self._common(inputs), dim=self.axis)]


@register("_npi_split")
class NumpySplit(_NumpyOperator):
    """NumPy's ``split`` along ``axis`` into ``sections`` equal parts or at ``indices``."""

    indices = Attr(_shape_attr, default=())
    axis = Attr(Int, default=0)
    squeeze_axis = Attr(Bool, default=False)
    sections = Attr(Int, default=0)

    def _bounds(self, length):
        if self.sections > 0:
            if length % self.sections:
                # a ValueError too, as NumPy and MXNet 1.9.1 raise
                raise MXNetValueError("split: array split does not result in an equal division")
            step = length // self.sections
            return [(i * step, (i + 1) * step) for i in range(self.sections)]
        # ``indices``: the start of each part (the front end puts the leading 0 first, as
        # MXNet's did); part i is ``data[indices[i]:indices[i + 1]]`` with Python's slice rules,
        # so a repeated or decreasing index gives an empty part, as NumPy's split
        starts = [int(i) for i in self.indices] or [0]
        bounds = []
        for position, start in enumerate(starts):
            stop = starts[position + 1] if position + 1 < len(starts) else length
            part = range(length)[start:stop]
            bounds.append((part.start, part.start + len(part)))
        return bounds

    def num_outputs(self):
        return self.sections if self.sections > 0 else max(len(self.indices), 1)

    def outputs(self):
        return [f"output{i}" for i in range(self.num_outputs())]

    def _split_axis(self, data):
        """The axis ``data`` (a tensor) is split along."""
        return self.axis

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        axis = self._split_axis(data)
        length = data.shape[axis]
        parts = [data.narrow(axis, start, stop - start) for start, stop in self._bounds(length)]
        if self.squeeze_axis:
            parts = [part.squeeze(axis) for part in parts]
        return parts


# -- products -------------------------------------------------------------------------------------
def _common_pair(a, b):
    dtype = promote_types(a.dtype, b.dtype)
    return a.to(dtype), b.to(dtype)


@register("_np_dot")
class NumpyDot(_NumpyOperator):
    """NumPy's ``dot``: scalars multiply, 1-D . 1-D is the inner product, N-D . 1-D sums over the
    last axis, N-D . M-D over the last axis of ``a`` and the second-to-last of ``b``."""

    def arguments(self):
        return ["a", "b"]

    def infer_shape(self, in_shapes, out_shapes):
        """Both ways, as MXNet 1.9.1's ``NumpyDotShape``: with the ranks known, the contracted
        axis of each operand follows from the other (a Gluon weight of unknown input size gets
        it from the data), and the known axes give the output's (0: unknown)."""
        a, b = in_shapes
        if a is None or b is None or (all(a) and all(b)):
            return super().infer_shape(in_shapes, out_shapes)
        where = f"Operator {self.name}"
        a, b = tuple(a), tuple(b)
        if len(a) == 1 and len(b) == 1:
            a = b = merge_shape(a, b, f"{where} arguments 'a' and 'b'")
            out = ()
        elif len(a) == 0 or len(b) == 0:
            out = b if len(a) == 0 else a
        elif len(b) == 1:
            a = merge_shape(a, (0,) * (len(a) - 1) + b, f"{where} argument 'a'")
            b = merge_shape(b, a[-1:], f"{where} argument 'b'")
            out = a[:-1]
        else:
            a = merge_shape(a, (0,) * (len(a) - 1) + (b[-2],), f"{where} argument 'a'")
            b = merge_shape(b, (0,) * (len(b) - 2) + (a[-1], 0), f"{where} argument 'b'")
            out = a[:-1] + b[:-2] + b[-1:]
        return [a, b], [merge_shape(out_shapes[0], out, f"{where} output")], []

    def forward(self, is_train, inputs, aux):
        a, b = _common_pair(*inputs)
        if a.dim() == 0 or b.dim() == 0:
            return [a * b]
        if b.dim() == 1:
            return [torch.tensordot(a, b, dims=([a.dim() - 1], [0]))]
        return [torch.tensordot(a, b, dims=([a.dim() - 1], [b.dim() - 2]))]


@register("_npi_matmul")
class NumpyMatmul(_NumpyOperator):
    """NumPy's ``matmul`` (broadcast batches; 1-D operands promoted and the axis dropped)."""

    def arguments(self):
        return ["a", "b"]

    def forward(self, is_train, inputs, aux):
        a, b = _common_pair(*inputs)
        if a.dim() == 0 or b.dim() == 0:
            raise MXNetError("matmul: Input operand does not have enough dimensions")
        return [torch.matmul(a, b)]


@register("_npi_tensordot")
class NumpyTensordot(_NumpyOperator):
    """NumPy's ``tensordot`` summing ``a_axes_summed`` of ``a`` against ``b_axes_summed`` of ``b``."""

    a_axes_summed = Attr(_shape_attr, default=())
    b_axes_summed = Attr(_shape_attr, default=())

    def arguments(self):
        return ["a", "b"]

    def forward(self, is_train, inputs, aux):
        a, b = _common_pair(*inputs)
        return [torch.tensordot(a, b, dims=(list(self.a_axes_summed), list(self.b_axes_summed)))]


@register("_npi_tensordot_int_axes")
class NumpyTensordotIntAxes(_NumpyOperator):
    """NumPy's ``tensordot`` summing the last ``axes`` axes of ``a`` against the first of ``b``."""

    axes = Attr(Int, default=2)

    def arguments(self):
        return ["a", "b"]

    def forward(self, is_train, inputs, aux):
        a, b = _common_pair(*inputs)
        return [torch.tensordot(a, b, dims=self.axes)]


@register("_np_copy")
class NumpyCopy(_NumpyOperator):
    """NumPy's ``copy``: a new array of the same values."""

    def forward(self, is_train, inputs, aux):
        return [inputs[0].clone()]


# -- creation -------------------------------------------------------------------------------------
class _Creation(_NumpyOperator):
    deterministic = False
    traceable = False
    ctx = Attr(_Ctx, default=None)
    dtype = Attr(_Dtype, default="float32")

    def arguments(self):
        return []

    def _dtype(self):
        return _torch_dtype(self.dtype or "float32")

    def _device(self):
        return device_of(self.ctx)


def _filled_class(value, parser=NumpyShape):
    class Filled(_Creation):
        __doc__ = f"An array of ``shape`` filled with {value} (float32 unless ``dtype``)."
        shape = NumpyAttr(parser, default=())

        def forward(self, is_train, inputs, aux):
            return [torch.full(tuple(self.shape), value, dtype=self._dtype(), device=self._device())]
    return Filled


register("_npi_zeros")(_filled_class(0, _ZerosShape))
register("_npi_ones")(_filled_class(1))


@register("_npi_full")
class NumpyFull(_Creation):
    """An array of ``shape`` filled with ``value``."""

    shape = NumpyAttr(NumpyShape, default=())
    value = Attr(Float, default=0.0)

    def forward(self, is_train, inputs, aux):
        dtype = self._dtype()
        value = self.value if dtype.is_floating_point or dtype == torch.bool else int(self.value)
        return [torch.full(tuple(self.shape), value, dtype=dtype, device=self._device())]


@register("_npi_arange")
class NumpyArange(_Creation):
    """NumPy's ``arange(start, stop, step)`` (float32 unless ``dtype``)."""

    start = Attr(Float, default=0.0)
    stop = Attr(optional(Float), default=None)
    step = Attr(Float, default=1.0)
    repeat = Attr(Int, default=1)
    infer_range = Attr(Bool, default=False)

    def forward(self, is_train, inputs, aux):
        start, stop = (0.0, self.start) if self.stop is None else (self.start, self.stop)
        values = np.arange(start, stop, self.step, dtype=np.float64)
        if self.repeat > 1:
            values = np.repeat(values, self.repeat)
        return [torch.from_numpy(values).to(self._dtype()).to(self._device())]


@register("_npi_linspace")
class NumpyLinspace(_Creation):
    """NumPy's ``linspace``: ``num`` values from ``start`` to ``stop`` (included with ``endpoint``)."""

    start = Attr(Float, default=0.0)
    stop = Attr(Float, default=1.0)
    num = NumpyAttr(_Count, default=50)
    endpoint = Attr(Bool, default=True)

    def forward(self, is_train, inputs, aux):
        values = np.linspace(self.start, self.stop, self.num, endpoint=self.endpoint, dtype=np.float64)
        return [torch.from_numpy(values).to(self._dtype()).to(self._device())]


@register("_npi_eye")
class NumpyEye(_Creation):
    """NumPy's ``eye``: ``N`` x ``M`` with ones on diagonal ``k``."""

    N = NumpyAttr(_Count, default=1)
    M = NumpyAttr(optional(_Count), default=None)
    k = NumpyAttr(numpy_integer(), default=0)

    def forward(self, is_train, inputs, aux):
        values = np.eye(self.N, self.M, self.k, dtype=np.float64)
        return [torch.from_numpy(values).to(self._dtype()).to(self._device())]


@register("_npi_identity")
class NumpyIdentity(_Creation):
    """NumPy's ``identity``: the square identity of ``shape`` (n, n)."""

    shape = NumpyAttr(NumpyShape, default=())

    def forward(self, is_train, inputs, aux):
        n = self.shape[0] if self.shape else 0
        return [torch.eye(n, dtype=self._dtype(), device=self._device())]


def _like_class(value):
    class Like(_NumpyOperator):
        __doc__ = f"An array of ``{value}`` with the shape and dtype of ``a``."
        deterministic = True

        def arguments(self):
            return ["a"]

        def forward(self, is_train, inputs, aux):
            return [torch.full_like(inputs[0], value).detach()]
    return Like


register("_np_zeros_like")(_like_class(0))
register("_np_ones_like")(_like_class(1))


@register("_npi_full_like")
class NumpyFullLike(_NumpyOperator):
    """An array of ``fill_value`` with the shape of ``a`` and its dtype (or ``dtype``)."""

    fill_value = Attr(Float, default=0.0)
    ctx = Attr(_Ctx, default=None)
    dtype = Attr(_Dtype, default=None)

    def arguments(self):
        return ["a"]

    def forward(self, is_train, inputs, aux):
        dtype = _torch_dtype(self.dtype) or inputs[0].dtype
        value = self.fill_value if dtype.is_floating_point or dtype == torch.bool else int(self.fill_value)
        return [torch.full(tuple(inputs[0].shape), value, dtype=dtype, device=inputs[0].device)]


# -- sampling (torch's global generator, seeded by mx.random.seed) -------------------------------
class _Sampler(_Creation):
    deterministic = False
    size = NumpyAttr(_Size, default=None)

    def _shape(self):
        return () if self.size is None else tuple(self.size)


# _npi_uniform, _npi_normal and the other samplers with distribution parameters: numpy_random_ops.py


@register("_npi_random_randint")
class NumpyRandint(_Creation):
    """Integers drawn uniformly from [``low``, ``high``) (int64 unless ``dtype``)."""

    deterministic = False
    low = NumpyAttr(numpy_integer(), default=0)
    high = NumpyAttr(numpy_integer(), default=1)
    shape = NumpyAttr(_Size, default=None)
    dtype = Attr(_Dtype, default="int64")

    def forward(self, is_train, inputs, aux):
        if self.high <= self.low:
            # NumPy's ValueError (MXNet 1.9.1 drew from an empty range)
            raise MXNetValueError(f"Operator {self.name}: low >= high ({self.low} >= {self.high}): expected low < high")
        shape = () if self.shape is None else tuple(self.shape)
        return [torch.randint(self.low, self.high, shape, device=self._device()).to(self._dtype())]


@register("_npi_choice")
class NumpyChoice(_Creation):
    """Indices drawn from ``range(a)`` (``replace`` or not; ``weighted``: by the input ``p``); ``a``
    None: from the first axis of the first input (the population array)."""

    deterministic = False
    a = NumpyAttr(optional(numpy_integer()), default=1)
    size = NumpyAttr(_Size, default=None)
    replace = Attr(Bool, default=True)
    weighted = Attr(Bool, default=False)

    def arguments(self):
        return (["input1"] if self.a is None else []) + (["p"] if self.weighted else [])

    def forward(self, is_train, inputs, aux):
        shape = () if self.size is None else tuple(self.size)
        count = int(np.prod(shape)) if shape else 1
        if self.a is None and inputs[0].dim() == 0:
            # MXNet 1.9.1 refused it too (an axis out of range); an array of more dimensions
            # is sampled along its first axis, as MXNet's
            raise MXNetValueError(f"Operator {self.name}: a must be an integer or an array of at least one dimension, "
                                  f"got a zero-dim array")
        population = self.a if self.a is not None else int(inputs[0].shape[0])
        if population <= 0 and count:
            # NumPy's rule (MXNet 1.9.1 returned an arbitrary index)
            raise MXNetValueError(f"Operator {self.name}: a must be greater than 0 unless no samples are taken, got "
                                  f"{'a=' + str(self.a) if self.a is not None else 'an empty population array'}")
        inputs = inputs if self.a is not None else inputs[1:]
        device = inputs[0].device if inputs else self._device()
        if device.type == "meta" or count == 0:      # a zero-size ``size`` draws nothing (NumPy, MXNet)
            return [torch.empty(shape, dtype=torch.int64, device=device)]
        weights = inputs[0].double() if inputs else torch.ones(population, dtype=torch.float64, device=device)
        if not self.replace and count > population:
            raise MXNetError("choice: cannot take a larger sample than population when replace=False")
        picked = torch.multinomial(weights, count, replacement=self.replace)
        return [picked.reshape(shape).to(torch.int64)]


# -- npx: the classic operators under their NumPy-extension names ---------------------------------
NPX_ALIASES = {
    "relu": "_npx_relu", "sigmoid": "_npx_sigmoid", "softmax": "_npx_softmax", "log_softmax": "_npx_log_softmax",
    "batch_dot": "_npx_batch_dot", "SequenceMask": "_npx_sequence_mask", "topk": "_npx_topk", "pick": "_npx_pick",
    "one_hot": "_npx_one_hot", "Activation": "_npx_activation", "FullyConnected": "_npx_fully_connected",
    "Convolution": "_npx_convolution", "Deconvolution": "_npx_deconvolution", "Pooling": "_npx_pooling",
    "BatchNorm": "_npx_batch_norm", "Dropout": "_npx_dropout", "Embedding": "_npx_embedding",
    "LayerNorm": "_npx_layer_norm", "LeakyReLU": "_npx_leaky_relu", "gather_nd": "_npx_gather_nd",
    "Flatten": "_npx_batch_flatten", "Cast": "_npx_cast", "erf": "_npx_erf", "erfinv": "_npx_erfinv",
    "gamma": "_npx_gamma", "gammaln": "_npx_gammaln", "reshape_like": "_npx_reshape_like",
    "shape_array": "_npx_shape_array", "slice": "_npx_slice", "smooth_l1": "_npx_smooth_l1", "RNN": "_npx_rnn",
    "ROIPooling": "_npx_roi_pooling", "_contrib_MultiBoxPrior": "_npx_multibox_prior",
    "_contrib_MultiBoxTarget": "_npx_multibox_target", "_contrib_MultiBoxDetection": "_npx_multibox_detection",
    "_contrib_arange_like": "_npx_arange_like",
}


def install_npx_aliases():
    """Give the classic operators ``npx`` calls their ``_npx_*`` names (MXNet's aliases);
    run by ``ops/__init__`` once every family has been declared."""
    from .registry import _REGISTRY
    aliases = dict(NPX_ALIASES)
    # the image operators: npx.image.resize is _npx_image_resize (the classic _image_resize)
    aliases.update({name: "_npx" + name for name in _REGISTRY if name.startswith("_image_")})
    for name, alias in aliases.items():
        if name in _REGISTRY and alias not in _REGISTRY:
            add_aliases(name, alias, distinct=True)


def npx_operators(submodule=""):
    """``{npx name: registered name}`` of the ``_npx_*`` operators (``relu``: ``_npx_relu``), from
    which ``mx.nd.npx`` and ``mx.sym.npx`` make their functions; ``submodule='image'``: those of
    ``npx.image`` (``resize``: ``_npx_image_resize``)."""
    from .registry import list_operators
    prefix = f"_npx_{submodule}_" if submodule else "_npx_"
    return {name[len(prefix):]: name for name in list_operators()
            if name.startswith(prefix) and (submodule or not name.startswith("_npx_image_"))}


def npx_reshape(shape, newshape, reverse=False):
    """``npx.reshape``'s target shape: -1 inferred, -2 this axis copied, -3 this size-1 axis
    dropped, -4 all remaining axes copied, -5 two axes merged, -6 one axis split in the two
    sizes that follow (one may be -1); ``reverse`` reads both from the right."""
    shape, codes = list(shape), list(newshape)
    if reverse:
        shape, codes = shape[::-1], codes[::-1]
        codes = [c for c in codes]
    result, position, index = [], 0, 0
    while index < len(codes):
        code = codes[index]
        if code >= 0 or code == -1:
            result.append(code)
            position += 1 if code != -1 else 1
        elif code == -2:
            result.append(shape[position])
            position += 1
        elif code == -3:
            if shape[position] != 1:
                raise MXNetError(f"npx.reshape: -3 needs a size-1 axis, axis {position} of {tuple(shape)} is not")
            position += 1
        elif code == -4:
            result.extend(shape[position:])
            position = len(shape)
        elif code == -5:
            result.append(shape[position] * shape[position + 1])
            position += 2
        elif code == -6:
            first, second = codes[index + 1], codes[index + 2]
            size = shape[position]
            first = size // second if first == -1 else first
            second = size // first if second == -1 else second
            result.extend([first, second])
            position += 1
            index += 2
        else:
            raise MXNetError(f"npx.reshape: unknown code {code}")
        index += 1
    if reverse:
        result = result[::-1]
    if result.count(-1) > 1:
        raise MXNetError("npx.reshape: more than one -1")
    if -1 in result:
        known = int(np.prod([d for d in result if d != -1]))
        result[result.index(-1)] = int(np.prod(shape)) // max(known, 1)
    if int(np.prod(result)) != int(np.prod(shape)):
        raise MXNetError(f"npx.reshape: cannot reshape {tuple(shape if not reverse else shape[::-1])} into "
                         f"{tuple(newshape)}")
    return tuple(result)


@register("_npx_reshape")
class NumpyExtensionReshape(_NumpyOperator):
    """``npx.reshape`` with MXNet's NumPy-extension codes (see :func:`npx_reshape`)."""

    newshape = Attr(_shape_attr, default=())
    reverse = Attr(Bool, default=False)
    order = Attr(Str, default="C")

    def forward(self, is_train, inputs, aux):
        return [inputs[0].reshape(npx_reshape(tuple(inputs[0].shape), self.newshape, self.reverse))]


@register("_npx_constraint_check")
class NumpyConstraintCheck(_NumpyOperator):
    """``npx.constraint_check``: ``True`` when every element of the bool input holds, else
    ValueError with ``msg`` (MXNet raised it when the value was read)."""

    deterministic = False
    traceable = False
    msg = Attr(Str, default="Constraint violated.")

    def forward(self, is_train, inputs, aux):
        if inputs[0].device.type != "meta" and not bool(inputs[0].all()):
            # a ValueError too, as MXNet 1.9.1 raised it
            from ..exceptions import OperatorRunValueError
            raise OperatorRunValueError(self.msg)
        return [torch.ones((), dtype=torch.bool, device=inputs[0].device)]
