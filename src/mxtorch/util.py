"""Small shared helpers: atomic file writes."""
from __future__ import annotations

import os
import tempfile

from .base import MXNetError

__all__ = ["atomic_write"]


def atomic_write(fname, payload):
    """Write ``payload`` (bytes) to ``fname`` through a temporary file in the same folder and
    an atomic rename, so a crash never leaves a half-written file behind.  Raises MXNetError
    naming the file when it cannot be written."""
    fname = os.fspath(fname)
    folder = os.path.dirname(os.path.abspath(fname))
    try:
        handle, temporary = tempfile.mkstemp(prefix=".tmp-", suffix="-" + os.path.basename(fname), dir=folder)
    except OSError as error:
        raise MXNetError(f"cannot write {fname!r}: {error}") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, fname)
    except BaseException as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(error, OSError):
            raise MXNetError(f"cannot write {fname!r}: {error}") from None
        raise
