"""float16 AMP lists (MXNet 1.9.1's categories; the operator names are those mxtorch registers).

- ``FP16_FUNCS``: operators whose floating inputs are cast to float16 (the matrix products,
  where half precision pays off),
- ``FP16_FP32_FUNCS``: operators that run in whatever type they are given,
- ``FP32_FUNCS``: operators whose inputs are cast to float32 (reductions, exponentials,
  normalisations and losses, where float16 loses accuracy or overflows),
- ``CONDITIONAL_FP32_FUNCS``: ``(operator, attribute, values)``: float32 only when the
  attribute has one of the values,
- ``WIDEST_TYPE_CASTS``: operators with several inputs that must share one type; the
  inputs are cast to the widest type among them (``amp_multicast``),
- ``LOSS_OUTPUT_FUNCTIONS``: the ``*Output`` heads whose ``grad_scale`` dynamic loss
  scaling multiplies.
"""

FP16_FUNCS = [
    "Convolution",
    "Deconvolution",
    "FullyConnected",
    "RNN",
]

FP16_FP32_FUNCS = [
    "Activation", "BlockGrad", "Cast", "Crop", "Dropout", "Flatten", "LeakyReLU", "Pad", "Pooling",
    "Reshape", "SliceChannel", "SwapAxis", "UpSampling", "abs", "broadcast_to", "ceil", "clip",
    "expand_dims", "flatten", "flip", "floor", "identity", "max", "min", "negative", "ones_like",
    "relu", "repeat", "reshape", "reshape_like", "reverse", "round", "sigmoid", "sign", "slice",
    "slice_axis", "slice_like", "split", "squeeze", "stack", "swapaxes", "tanh", "tile",
    "transpose", "trunc", "zeros_like", "take", "pick", "where", "argmax", "argmin", "topk",
    "sort", "argsort", "_copy", "stop_gradient", "shape_array", "size_array",
]

FP32_FUNCS = [
    "BatchNorm", "InstanceNorm", "LayerNorm", "GroupNorm", "L2Normalization", "LRN",
    "SoftmaxOutput", "LinearRegressionOutput", "LogisticRegressionOutput", "MAERegressionOutput",
    "SVMOutput", "MakeLoss", "make_loss", "softmax", "log_softmax", "softmin", "SoftmaxActivation",
    "softmax_cross_entropy", "exp", "expm1", "log", "log10", "log2", "log1p", "sqrt", "rsqrt",
    "cbrt", "rcbrt", "square", "reciprocal", "sum", "nansum", "prod", "nanprod", "mean", "norm",
    "cumsum", "smooth_l1", "gamma", "gammaln", "erf", "erfinv", "power", "arccos", "arcsin",
    "cosh", "sinh", "tan", "arctanh", "arccosh", "arcsinh", "degrees", "radians",
    "_contrib_ROIAlign", "ROIPooling", "CTCLoss", "_contrib_CTCLoss", "moments",
]

CONDITIONAL_FP32_FUNCS = [
    ("Activation", "act_type", ["softrelu"]),
    ("LeakyReLU", "act_type", ["elu", "selu"]),
]

WIDEST_TYPE_CASTS = [
    "Concat", "concat", "elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div",
    "_Plus", "_Minus", "_Mul", "_Div", "_plus", "_minus", "_mul", "_div", "_Maximum", "_Minimum",
    "broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div", "broadcast_plus",
    "broadcast_minus", "broadcast_maximum", "broadcast_minimum", "broadcast_power",
    "broadcast_hypot", "ElementWiseSum", "add_n", "dot", "batch_dot", "where",
    "broadcast_equal", "broadcast_not_equal", "broadcast_greater", "broadcast_greater_equal",
    "broadcast_lesser", "broadcast_lesser_equal", "Correlation", "SequenceMask", "SequenceLast",
    "SequenceReverse",
]

LOSS_OUTPUT_FUNCTIONS = [
    "SoftmaxOutput", "LinearRegressionOutput", "LogisticRegressionOutput", "MAERegressionOutput",
]
