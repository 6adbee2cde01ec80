"""Options mxtorch accepts but does not apply say so (a warning), never silently."""
import warnings

import pytest

import mxtorch as mx
from mxtorch.kvstore import kvstore


def test_gradient_compression_warns_once(monkeypatch):
    monkeypatch.setattr(kvstore, "_COMPRESSION_WARNED", False)
    store = mx.kv.create("device")
    with pytest.warns(RuntimeWarning, match="does not compress"):
        store.set_gradient_compression({"type": "2bit", "threshold": 0.5})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        store.set_gradient_compression({"type": "2bit", "threshold": 0.5})
