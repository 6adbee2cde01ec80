"""The inference plan drops each intermediate value after its last reader, as the training plan
does (docs/performance.md, "Start-up and memory"): a forward pass through a chain of N operators
holds a few values at a time, not N."""
import weakref

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import mxtorch as mx

LENGTH = 12


class _AliveCounter(TorchDispatchMode):
    """Counts, at each ATen call, how many tensors made by earlier calls are still alive."""

    def __init__(self):
        super().__init__()
        self.made = []
        self.most_alive = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        alive = sum(1 for ref in self.made if ref() is not None)
        self.most_alive = max(self.most_alive, alive)
        out = func(*args, **(kwargs or {}))
        if isinstance(out, torch.Tensor):
            self.made.append(weakref.ref(out))
        return out


def _chain():
    x = mx.sym.Variable("data")
    for index in range(LENGTH):
        x = mx.sym.sin(x) if index % 2 else x * 2.0 + 1.0
    return x


def _expected(data):
    x = data.astype(np.float64)
    for index in range(LENGTH):
        x = np.sin(x) if index % 2 else x * 2.0 + 1.0
    return x


def test_inference_forward_keeps_few_intermediates_alive(monkeypatch):
    monkeypatch.setenv("MXTORCH_COMPILE", "0")
    data = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    mod = mx.mod.Module(_chain(), label_names=None)
    mod.bind(data_shapes=[("data", data.shape)], for_training=False)
    mod.init_params()
    batch = mx.io.DataBatch([mx.nd.array(data)])
    counter = _AliveCounter()
    with counter:
        mod.forward(batch, is_train=False)
        out = mod.get_outputs()[0].asnumpy()
    np.testing.assert_allclose(out, _expected(data), rtol=1e-5, atol=1e-6)
    # 18 operator calls (x * 2, + 1, sin); with the release the chain holds its current value
    # and the next one, plus the bound data's view; without it every value stays (>= 17)
    assert len(counter.made) >= 3 * LENGTH // 2
    assert counter.most_alive <= 4
