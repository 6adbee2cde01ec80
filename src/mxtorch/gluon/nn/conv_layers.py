"""Gluon convolution and pooling layers (MXNet's ``gluon.nn.conv_layers``) on the
``Convolution``, ``Deconvolution``, ``Pooling`` and ``Pad`` operators.

Weights are MXNet's shapes: ``Conv*`` ``(channels, in_channels / groups, *kernel)`` (channels
first layouts) or ``(channels, *kernel, in_channels / groups)`` (channels-last layouts);
``Conv*Transpose`` ``(in_channels, channels / groups, *kernel)``; ``bias`` ``(channels,)``.
``in_channels=0`` is inferred at the first forward.  All are named ``conv<n>_`` /
``pool<n>_`` as in MXNet.
"""
from __future__ import annotations

import numbers

from ..block import HybridBlock
from ...base import numeric_types  # noqa: F401  (MXNet's module namespace)
from ...ops.registry import get_operator
from ...util import is_np_array  # noqa: F401
from .activations import Activation

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
           "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "GlobalMaxPool1D",
           "GlobalMaxPool2D", "GlobalMaxPool3D", "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D",
           "ReflectionPad2D"]


def _tuple(value, length):
    return (value,) * length if isinstance(value, numbers.Integral) else tuple(value)


class _Conv(HybridBlock):
    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout, in_channels=0,
                 activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros",
                 op_name="Convolution", adj=None, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            kernel_size = _tuple(kernel_size, 1) if isinstance(kernel_size, numbers.Integral) else tuple(kernel_size)
            length = len(kernel_size)
            strides, padding, dilation = _tuple(strides, length), _tuple(padding, length), _tuple(dilation, length)
            self._op_name = op_name
            self._kwargs = {"kernel": kernel_size, "stride": strides, "dilate": dilation, "pad": padding,
                            "num_filter": channels, "num_group": groups, "no_bias": not use_bias,
                            "layout": layout}
            if adj is not None:
                self._kwargs["adj"] = _tuple(adj, length)
            per_group_in = in_channels // groups if in_channels else 0
            channels_last = layout.find("C") == len(layout) - 1
            self._transposed = get_operator(op_name).transposed_weight
            if not self._transposed:
                weight_shape = (channels,) + ((*kernel_size, per_group_in) if channels_last
                                              else (per_group_in, *kernel_size))
            else:
                per_group_out = channels // groups
                weight_shape = (in_channels,) + ((*kernel_size, per_group_out) if channels_last
                                                 else (per_group_out, *kernel_size))
            self.weight = self.params.get("weight", shape=weight_shape, init=weight_initializer,
                                          allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get("bias", shape=(channels,), init=bias_initializer,
                                            allow_deferred_init=True)
            else:
                self.bias = None
            self.act = Activation(activation, prefix=activation + "_") if activation is not None else None

    def hybrid_forward(self, F, x, weight, bias=None):
        function = getattr(F, self._op_name)
        if bias is None:
            out = function(x, weight, name="fwd", **self._kwargs)
        else:
            out = function(x, weight, bias, name="fwd", **self._kwargs)
        if self.act is not None:
            out = self.act(out)
        return out

    def _alias(self):
        return "conv"

    def __repr__(self):
        kwargs = self._kwargs
        length = len(kwargs["kernel"])
        text = f"{type(self).__name__}({{mapping}}, kernel_size={kwargs['kernel']}, stride={kwargs['stride']}"
        if kwargs["pad"] != (0,) * length:
            text += f", padding={kwargs['pad']}"
        if kwargs["dilate"] != (1,) * length:
            text += f", dilation={kwargs['dilate']}"
        if hasattr(self, "out_pad") and self.out_pad != (0,) * length:
            text += f", output_padding={self.out_pad}"
        if kwargs["num_group"] != 1:
            text += f", groups={kwargs['num_group']}"
        if self.bias is None:
            text += ", bias=False"
        if self.act:
            text += f", {self.act}"
        text += ")"
        shape = self.weight.shape
        if not self._transposed:
            inputs, outputs = shape[1] * kwargs["num_group"] if shape[1] else None, shape[0]
        else:
            inputs, outputs = shape[0] if shape[0] else None, shape[1] * kwargs["num_group"]
        return text.format(mapping=f"{inputs} -> {outputs}")


def _conv_class(name, dims, layout, transpose, doc):
    if transpose:
        def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0, dilation=1, groups=1,
                     layout=layout, activation=None, use_bias=True, weight_initializer=None,
                     bias_initializer="zeros", in_channels=0, **kwargs):
            if len(layout) != dims + 2:
                raise ValueError(f"Unsupported layout {layout!r} for {name}")
            kernel_size = _tuple(kernel_size, dims)
            if len(kernel_size) != dims:
                raise ValueError(f"kernel_size must be a number or a list of {dims} ints")
            output_padding = _tuple(output_padding, dims)
            _Conv.__init__(self, channels, kernel_size, strides, padding, dilation, groups, layout, in_channels,
                           activation, use_bias, weight_initializer, bias_initializer, op_name="Deconvolution",
                           adj=output_padding, **kwargs)
            self.outpad = output_padding
    else:
        def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1, layout=layout,
                     activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros",
                     in_channels=0, **kwargs):
            if len(layout) != dims + 2:
                raise ValueError(f"Unsupported layout {layout!r} for {name}")
            kernel_size = _tuple(kernel_size, dims)
            if len(kernel_size) != dims:
                raise ValueError(f"kernel_size must be a number or a list of {dims} ints")
            _Conv.__init__(self, channels, kernel_size, strides, padding, dilation, groups, layout, in_channels,
                           activation, use_bias, weight_initializer, bias_initializer, **kwargs)
    return type(name, (_Conv,), {"__init__": __init__, "__doc__": doc, "__module__": __name__})


Conv1D = _conv_class("Conv1D", 1, "NCW", False, "1-D convolution over ``(batch, channels, width)`` (layout NCW or NWC).")
Conv2D = _conv_class("Conv2D", 2, "NCHW", False, "2-D convolution over ``(batch, channels, height, width)`` "
                     "(layout NCHW or NHWC).")
Conv3D = _conv_class("Conv3D", 3, "NCDHW", False, "3-D convolution over ``(batch, channels, depth, height, width)``.")
Conv1DTranspose = _conv_class("Conv1DTranspose", 1, "NCW", True, "1-D transposed convolution (Deconvolution).")
Conv2DTranspose = _conv_class("Conv2DTranspose", 2, "NCHW", True, "2-D transposed convolution (Deconvolution).")
Conv3DTranspose = _conv_class("Conv3DTranspose", 3, "NCDHW", True, "3-D transposed convolution (Deconvolution).")


class _Pooling(HybridBlock):
    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type, layout,
                 count_include_pad=None, **kwargs):
        super().__init__(**kwargs)
        if strides is None:
            strides = pool_size
        length = len(pool_size)
        strides, padding = _tuple(strides, length), _tuple(padding, length)
        self._kwargs = {"kernel": pool_size, "stride": strides, "pad": padding, "global_pool": global_pool,
                        "pool_type": pool_type, "layout": layout,
                        "pooling_convention": "full" if ceil_mode else "valid"}
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad

    def _alias(self):
        return "pool"

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name="fwd", **self._kwargs)

    def __repr__(self):
        kwargs = self._kwargs
        return (f"{type(self).__name__}(size={kwargs['kernel']}, stride={kwargs['stride']}, padding={kwargs['pad']}, "
                f"ceil_mode={kwargs['pooling_convention'] == 'full'}, global_pool={kwargs['global_pool']}, "
                f"pool_type={kwargs['pool_type']}, layout={kwargs['layout']})")


def _pool_class(name, dims, layout, pool_type, global_pool, doc):
    if global_pool:
        def __init__(self, layout=layout, **kwargs):
            if len(layout) != dims + 2:
                raise ValueError(f"Unsupported layout {layout!r} for {name}")
            _Pooling.__init__(self, (1,) * dims, None, 0, True, True, pool_type, layout, **kwargs)
    elif pool_type == "max":
        def __init__(self, pool_size=(2,) * dims if dims > 1 else 2, strides=None, padding=0, layout=layout,
                     ceil_mode=False, **kwargs):
            if len(layout) != dims + 2:
                raise ValueError(f"Unsupported layout {layout!r} for {name}")
            pool_size = _tuple(pool_size, dims)
            _Pooling.__init__(self, pool_size, strides, padding, ceil_mode, False, "max", layout, **kwargs)
    else:
        def __init__(self, pool_size=(2,) * dims if dims > 1 else 2, strides=None, padding=0, ceil_mode=False,
                     layout=layout, count_include_pad=True, **kwargs):
            if len(layout) != dims + 2:
                raise ValueError(f"Unsupported layout {layout!r} for {name}")
            pool_size = _tuple(pool_size, dims)
            _Pooling.__init__(self, pool_size, strides, padding, ceil_mode, False, "avg", layout,
                              count_include_pad, **kwargs)
    return type(name, (_Pooling,), {"__init__": __init__, "__doc__": doc, "__module__": __name__})


MaxPool1D = _pool_class("MaxPool1D", 1, "NCW", "max", False, "Max pooling over width (default size 2, stride = size).")
MaxPool2D = _pool_class("MaxPool2D", 2, "NCHW", "max", False, "2-D max pooling (default 2x2, stride = size).")
MaxPool3D = _pool_class("MaxPool3D", 3, "NCDHW", "max", False, "3-D max pooling (default 2x2x2).")
AvgPool1D = _pool_class("AvgPool1D", 1, "NCW", "avg", False, "Average pooling over width (padding counted by default).")
AvgPool2D = _pool_class("AvgPool2D", 2, "NCHW", "avg", False, "2-D average pooling (default 2x2).")
AvgPool3D = _pool_class("AvgPool3D", 3, "NCDHW", "avg", False, "3-D average pooling (default 2x2x2).")
GlobalMaxPool1D = _pool_class("GlobalMaxPool1D", 1, "NCW", "max", True, "Max over the whole width -> (N, C, 1).")
GlobalMaxPool2D = _pool_class("GlobalMaxPool2D", 2, "NCHW", "max", True, "Max over height and width -> (N, C, 1, 1).")
GlobalMaxPool3D = _pool_class("GlobalMaxPool3D", 3, "NCDHW", "max", True, "Max over the spatial axes.")
GlobalAvgPool1D = _pool_class("GlobalAvgPool1D", 1, "NCW", "avg", True, "Mean over the whole width -> (N, C, 1).")
GlobalAvgPool2D = _pool_class("GlobalAvgPool2D", 2, "NCHW", "avg", True, "Mean over height and width -> (N, C, 1, 1).")
GlobalAvgPool3D = _pool_class("GlobalAvgPool3D", 3, "NCDHW", "avg", True, "Mean over the spatial axes.")


class ReflectionPad2D(HybridBlock):
    """Pads the height and width of ``(N, C, H, W)`` by reflection; ``padding`` an int (all
    four sides) or the operator ``Pad``'s 8-tuple ``pad_width``."""

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, numbers.Integral):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        if len(padding) != 8:
            raise ValueError(f"ReflectionPad2D: padding must be an int or 8 values, got {padding}")
        self._padding = tuple(padding)

    def hybrid_forward(self, F, x):
        return F.pad(x, mode="reflect", pad_width=self._padding)


def _infer_weight_shape(op_name, data_shape, kwargs):
    """The argument shapes (data, weight, bias, ...) that operator ``op_name`` (Convolution,
    Deconvolution, ...; under NumPy semantics ``mx.sym.npx``'s) infers with attributes ``kwargs``
    for data of ``data_shape`` (MXNet's helper: ``infer_shape_partial`` of a one-node graph)."""
    from ... import symbol
    from ...util import is_np_array
    data = symbol.var("data", shape=data_shape)
    if is_np_array():
        op, data = getattr(symbol.npx, op_name), data.as_np_ndarray()
    else:
        op = getattr(symbol, op_name)
    return op(data, **kwargs).infer_shape_partial()[0]
