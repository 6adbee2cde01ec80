"""``mx.gluon.contrib.cnn``: deformable convolution (Dai et al. 2017)."""
from .conv_layers import DeformableConvolution, ModulatedDeformableConvolution  # noqa: F401

__all__ = ["DeformableConvolution"]
