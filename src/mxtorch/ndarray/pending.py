"""Deferred operator errors, as MXNet 1.9.1's dependency engine reported them.

MXNet ran operators asynchronously: an error that an operator's computation raised (a
sampler given ``scale=-1``, say; errors of shape and attribute checks were raised at the call)
was stored on the operator's output arrays and raised only when the program next waited on
them: ``asnumpy()``, ``asscalar()``, ``wait_to_read()`` or ``mx.nd.waitall()``.  An operator
reading a failed array fails the same way (its outputs carry the same error), and raising one
error clears every pending one (MXNet 1.9.1: after one failed array raised, the others and
``waitall`` raise nothing).

mxtorch keeps that contract.  An operator signals such an error by raising
:class:`mxtorch.base.OperatorRunError`; the front ends (``invoke``, the executor, the
``mx.random`` samplers) catch it, give the outputs zeros of the inferred shapes and record the
error here against the outputs' memory (so views and slices of a failed array fail too).
Nothing is recorded in a program without failures, and the check on the hot path is one test
of an empty dict.
"""
from __future__ import annotations

__all__ = ["Failure", "any_pending", "fail", "failure_of", "mark", "raise_if_failed", "raise_first_and_clear"]

# storage address -> Failure, for the memory of every array whose computation failed
_failed_storage = {}


class Failure:
    """One operator error not reported yet, shared by every array it reached."""

    __slots__ = ("error", "tensors")

    def __init__(self, error):
        self.error = error
        self.tensors = []      # keeps the failed memory alive, so no other array reuses its address

    def clear(self):
        for tensor in self.tensors:
            key = _key(tensor)
            if _failed_storage.get(key) is self:
                del _failed_storage[key]
        self.tensors = []
        self.error = None


def _key(tensor):
    return (tensor.device.type, tensor.device.index, tensor.untyped_storage().data_ptr())


def mark(tensors, failure):
    """Record ``failure`` against the memory of each tensor in ``tensors`` (empty ones skipped)."""
    if failure is None or failure.error is None:
        return
    for tensor in tensors:
        if tensor is not None and tensor.numel():
            _failed_storage[_key(tensor)] = failure
            failure.tensors.append(tensor)


def any_pending():
    """Whether some array holds a pending error (a cheap test for the hot path)."""
    return bool(_failed_storage)


def fail(error, tensors):
    """A new :class:`Failure` for ``error``, recorded against ``tensors``."""
    failure = Failure(error)
    mark(tensors, failure)
    return failure


def failure_of(tensors):
    """The pending Failure of the first tensor in ``tensors`` whose memory has one, or None."""
    if not _failed_storage:
        return None
    for tensor in tensors:
        if tensor is not None and tensor.numel():
            failure = _failed_storage.get(_key(tensor))
            if failure is not None:
                return failure
    return None


def raise_if_failed(tensor):
    """Raise the pending error of ``tensor``'s memory, if any, clearing every pending error:
    what MXNet 1.9.1's ``WaitToRead`` did (after one failed array raised, the other failed
    arrays and ``waitall`` raise nothing)."""
    if not _failed_storage:
        return
    failure = failure_of([tensor])
    if failure is not None:
        error = failure.error
        for pending_failure in list(_failed_storage.values()):
            pending_failure.clear()
        _failed_storage.clear()
        raise error


def raise_first_and_clear():
    """Clear every pending error and raise the first one recorded (``mx.nd.waitall``); a second
    ``waitall`` raises nothing."""
    if not _failed_storage:
        return
    first = None
    for failure in list(_failed_storage.values()):
        if failure.error is not None and first is None:
            first = failure.error
        failure.clear()
    _failed_storage.clear()
    if first is not None:
        raise first
