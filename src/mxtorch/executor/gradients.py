"""Writing the gradients of a backward pass into the bound gradient arrays ('write' / 'add')."""
from __future__ import annotations

import torch

__all__ = ["store_gradients", "can_adopt"]


def store_gradients(grad_arrays, requests, gradient_indices, pairs, head_storage):
    """Write ``(argument index, gradient or None)`` pairs into ``grad_arrays`` by their
    ``requests`` (per argument index) ('write' adopts autograd's fresh buffer where it can, 'add' accumulates);
    the ``gradient_indices`` not in ``pairs`` get zeros under 'write'."""
    with torch.no_grad():
        # integer arguments carry no gradient: 'write' gives them zeros, as MXNet does
        differentiated = {index for index, _ in pairs}
        for index in gradient_indices - differentiated:
            target = grad_arrays[index]
            if target is not None and requests[index] == "write":
                target._tensor.zero_()
        for index, grad in pairs:
            target = grad_arrays[index]
            if target is None:
                continue
            request = requests[index]
            if request == "add":
                if grad is not None:
                    target._tensor.add_(grad.to(target._tensor.dtype))
            elif grad is None:
                target._tensor.zero_()
            elif can_adopt(grad, target._tensor, head_storage):
                # 'write': take autograd's fresh buffer instead of copying it; every holder
                # of the gradient NDArray (updater, kvstore, shared modules) sees it
                target.use_storage(grad)
            else:
                target._tensor.copy_(grad)


def can_adopt(grad, target, head_storage):
    """Whether a gradient tensor from autograd can replace the bound gradient buffer: same
    shape, dtype and device, dense and contiguous, and not the storage of a head gradient
    passed in by the caller (which the caller may still own); and the bound buffer must own
    its whole storage (a view of a larger array, as ``reshape`` binds, is written in place so
    that the memory stays shared)."""
    return (target.untyped_storage().nbytes() == target.numel() * target.element_size()
            and grad.shape == target.shape and grad.dtype == target.dtype and grad.device == target.device
            and grad.is_contiguous() and grad.layout == torch.strided
            and grad.untyped_storage().data_ptr() not in head_storage
            and grad.untyped_storage().nbytes() == grad.numel() * grad.element_size())
