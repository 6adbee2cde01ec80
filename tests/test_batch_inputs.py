"""A batch is loaded into the bound arrays without silent drops, and NDArray.use_storage is the one
way an array's storage is handed over."""
import numpy as np
import pytest
import torch

import mxtorch as mx


def _module():
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
    module = mx.mod.Module(net, data_names=["data"], label_names=None)
    module.bind(data_shapes=[("data", (4, 3))], for_training=False)
    module.init_params()
    return module


def test_extra_data_arrays_in_a_batch_raise():
    module = _module()
    batch = mx.io.DataBatch([mx.nd.ones((4, 3)), mx.nd.ones((4, 3))])
    with pytest.raises(mx.MXNetError, match="2 data arrays"):
        module.forward(batch, is_train=False)
    module.forward(mx.io.DataBatch([mx.nd.ones((4, 3))]), is_train=False)
    assert module.get_outputs()[0].shape == (4, 2)


def test_use_storage_swaps_without_copy_and_converts_when_needed():
    array = mx.nd.zeros((2,))
    fresh = torch.tensor([1.0, 2.0])
    assert array.use_storage(fresh) is array
    assert array._tensor.data_ptr() == fresh.data_ptr()
    array.use_storage(torch.tensor([3, 4], dtype=torch.int64))
    assert array.dtype == np.float32
    np.testing.assert_array_equal(array.asnumpy(), [3.0, 4.0])


def test_unknown_grad_req_names_raise():
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
    module = mx.mod.Module(net, data_names=["data"], label_names=None)
    with pytest.raises(mx.MXNetError, match="not arguments"):
        module.bind(data_shapes=[("data", (4, 3))], grad_req={"nonexistent": "write"})
