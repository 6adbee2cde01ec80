"""Module.fit keeps its metric on the device (issue 11: no host synchronisation per batch)."""
import numpy as np

import mxtorch as mx


def test_fit_reads_no_host_value_per_batch(monkeypatch):
    """Module.fit keeps the metric on the device: the number of Tensor.item() calls does not grow
    with the number of batches (only the epoch-end log reads the metric)."""
    import torch
    calls = []
    original = torch.Tensor.item

    def counting_item(self):
        calls.append(1)
        return original(self)

    monkeypatch.setattr(torch.Tensor, "item", counting_item)
    counts = []
    for batches in (3, 9):
        del calls[:]
        rng = np.random.RandomState(0)
        data_iter = mx.io.NDArrayIter(rng.rand(batches * 4, 5).astype(np.float32),
                                      rng.randint(0, 3, batches * 4).astype(np.float32), batch_size=4)
        net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3), name="softmax")
        module = mx.mod.Module(net)
        module.fit(data_iter, num_epoch=1, optimizer_params={"learning_rate": 0.1})
        counts.append(len(calls))
    assert counts[0] == counts[1] <= 2
