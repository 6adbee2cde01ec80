"""bfloat16 AMP lists: the same categories as ``symbol_fp16`` (bfloat16 keeps float32's
exponent range, so the lists coincide apart from the name of the low-precision list)."""
from .symbol_fp16 import (FP16_FP32_FUNCS as BF16_FP32_FUNCS, FP32_FUNCS, CONDITIONAL_FP32_FUNCS,  # noqa: F401
                          WIDEST_TYPE_CASTS, LOSS_OUTPUT_FUNCTIONS, FP16_FUNCS as BF16_FUNCS)

BF16_USE_FP32_PARAMS = {
    "BatchNorm": ["", "gamma", "beta", "moving_mean", "moving_var"],
}
