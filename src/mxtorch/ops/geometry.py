"""Window geometry shared by the convolution, pooling and patch operators: MXNet's spatial
tuple attributes expanded per kernel dimension, their checks, and the output size."""
from __future__ import annotations

__all__ = []


def _check_geometry(op, **values):
    """Kernel, stride and dilation entries must be positive, padding non-negative."""
    for name, entries in values.items():
        smallest = 0 if name == "pad" else 1
        if any(entry < smallest for entry in entries):
            raise op.error(f"attribute {name!r} must have entries >= {smallest}, got {tuple(entries)}")


def _spatial(values, ndim, default, name, op):
    """Expand an MXNet spatial tuple attribute (empty means ``default`` in every dimension)."""
    if not values:
        return (default,) * ndim
    if len(values) != ndim:
        raise op.error(f"attribute {name!r} has {len(values)} values, the kernel has {ndim} dimensions")
    return tuple(values)


def _expand_conv_geometry(op):
    """Set ``op.stride_``, ``op.dilate_`` (default 1) and ``op.pad_`` (default 0): the
    convolution attributes expanded to one entry per kernel dimension."""
    ndim = len(op.kernel)
    op.stride_ = _spatial(op.stride, ndim, 1, "stride", op)
    op.dilate_ = _spatial(op.dilate, ndim, 1, "dilate", op)
    op.pad_ = _spatial(op.pad, ndim, 0, "pad", op)


def _conv_output_size(op, spatial):
    """Output spatial size of a convolution over input sizes ``spatial``:
    ``floor((x + 2 * pad - dilate * (kernel - 1) - 1) / stride) + 1`` per dimension from
    ``op.kernel``, ``op.stride_``, ``op.dilate_`` and ``op.pad_`` (an unknown size 0 stays 0);
    raises ``op.error`` when the dilated kernel is larger than the padded input."""
    sizes = []
    for x, k, s, d, p in zip(spatial, op.kernel, op.stride_, op.dilate_, op.pad_):
        if not x:
            sizes.append(0)
            continue
        size = (x + 2 * p - d * (k - 1) - 1) // s + 1
        if size <= 0:
            raise op.error(f"kernel {op.kernel} (dilate {op.dilate_}, pad {op.pad_}) is larger than the padded "
                           f"input {tuple(spatial)}")
        sizes.append(size)
    return tuple(sizes)
