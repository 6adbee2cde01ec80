"""Export an MXNet Symbol with its parameters to plain PyTorch, TorchScript and ONNX.

- ``to_torch(symbol, arg_params, aux_params, data_shapes)``: a ``torch.fx.GraphModule``
  with named parameters and buffers (``mxtorch.export.graph``), inference semantics;
  it takes the data inputs as positional tensors, in ``data_shapes`` order, and returns
  one tensor (or a tuple, one per output of the Symbol).
- ``to_torchscript(...)``: that module traced with ``torch.jit.trace`` at ``data_shapes``.
- ``to_onnx(symbol, arg_params, aux_params, input_shapes, path)``: an ONNX file written
  by ``torch.onnx.export``; its graph inputs are the MXNet data names, its outputs the
  Symbol's output names.  Needs the optional ``onnx`` extra (``onnx``, ``onnxscript``;
  ``onnxruntime`` to run it).
- ``convert_checkpoint(prefix, epoch, to, path, data_shapes=None)``: the ``mxtorch
  convert`` command.

The traced routes (TorchScript, ONNX) fix the input shapes to those given (MXNet's own
ONNX exporter also took fixed ``in_shapes``).  Each is checked after tracing: the traced
graph must reproduce the GraphModule's outputs on a random input, else MXNetError.
An operator that cannot be traced (``Custom``, Python code on NumPy) raises
``UnsupportedOperatorError`` naming it; for ONNX, an operator torch.onnx cannot express
is named in the error too.  Files are written atomically (temporary file, then rename).
"""
from .converters import (to_torch, to_torchscript, to_onnx, convert_checkpoint, default_data_shapes,  # noqa: F401
                         UnsupportedOperatorError)

__all__ = ["to_torch", "to_torchscript", "to_onnx", "convert_checkpoint", "UnsupportedOperatorError",
           "default_data_shapes"]
