"""The registration points and shared mechanisms of the core layers (docs/architecture.md,
"Layers"): one recording state, the array class's providers, the executor's binder, one
operator-group class for both front ends, the storage rule skipped for dense inputs."""
import threading

import numpy as np
import pytest

import mxtorch as mx
from mxtorch import recording
from mxtorch.ndarray import ndarray as nd_module
from mxtorch.ops import registry
from mxtorch.ops.namespaces import OperatorGroup


def test_one_recording_state_seen_by_every_layer():
    # mx.autograd's scopes set the flag the registry and the executor read (recording.py)
    assert mx.autograd.record is recording.record
    assert registry.is_recording is recording.is_recording
    assert not recording.is_recording()
    with mx.autograd.record():
        assert registry.is_recording() and recording.is_training()
        with mx.autograd.pause():
            assert not registry.is_recording()
    assert not recording.is_recording()
    seen = []
    with mx.autograd.record():
        thread = threading.Thread(target=lambda: seen.append(recording.is_recording()))
        thread.start()
        thread.join()
    assert seen == [False]      # per thread, as MXNet's flags


def test_integer_variable_gradient_goes_through_the_recording_carrier():
    x = mx.nd.array([1, 2, 3], dtype="int32")
    x.attach_grad()
    with mx.autograd.record():
        y = (x.astype("float32") * 2.5).sum()
    y.backward()
    # MXNet truncates the gradient of an integer variable: 2.5 -> 2
    assert x.grad.asnumpy().tolist() == [2, 2, 2]
    assert recording.gradient_carrier(x._tensor) is not x._tensor


def test_the_array_class_reaches_its_providers():
    for name in ("invoke", "make_variable", "backward", "to_storage", "with_storage", "sparse_zeros",
                 "sparse_empty", "save_raw_bytes", "load_raw_bytes", "split_v2"):
        assert callable(nd_module._provided(name))
    with pytest.raises(mx.MXNetError, match="'no_such_piece' is provided by a file"):
        nd_module._provided("no_such_piece")


def test_mxnet_paths_of_names_defined_above_their_module():
    # MXNet's mxnet.ndarray.ndarray / mxnet.symbol.symbol held these; the package completes them
    assert nd_module.concat is mx.nd.concat and nd_module.zeros is mx.nd.zeros
    assert nd_module.from_numpy is mx.nd.from_numpy and nd_module.CachedOp is mx.nd.CachedOp
    assert nd_module.get_indexing_dispatch_code((slice(None),)) == 0
    assert mx.sym.symbol.Executor is mx.executor.Executor
    assert mx.nd.register.adamw_update is mx.nd.contrib.adamw_update


def test_symbol_bind_goes_through_the_registered_executor():
    data = mx.sym.var("x")
    out = data * 2
    executor = out.bind(mx.cpu(), {"x": mx.nd.array([1.0, 2.0])})
    assert isinstance(executor, mx.executor.Executor)
    assert executor.forward()[0].asnumpy().tolist() == [2.0, 4.0]


def test_one_operator_group_class_serves_both_front_ends():
    assert isinstance(mx.nd.linalg, OperatorGroup) and isinstance(mx.sym.linalg, OperatorGroup)
    a = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    product = mx.nd.linalg.gemm2(a, a, transpose_b=True)
    np.testing.assert_allclose(product.asnumpy(), a.asnumpy() @ a.asnumpy().T)
    node = mx.sym.linalg.gemm2(mx.sym.var("a"), mx.sym.var("b"))
    assert node.get_internals().list_outputs()[-1].endswith("_output")
    # random takes the per-element _sample_ form when a parameter is an array of the front end
    low = mx.nd.array([0.0, 10.0])
    draw = mx.nd.random.uniform(low, low + 1, shape=4)
    assert draw.shape == (2, 4) and (draw.asnumpy()[1] >= 10).all()
    assert "foreach" in dir(mx.nd.contrib) and "exponential" in dir(mx.sym.random)
    with pytest.raises(AttributeError, match="mx.nd.linalg has no operator 'nope'"):
        mx.nd.linalg.nope


def test_storage_rule_is_skipped_for_dense_inputs(monkeypatch):
    calls = []
    relu = registry.get_operator("relu")
    original = relu.sparse_storage
    monkeypatch.setattr(relu, "sparse_storage", lambda op, stypes: calls.append(stypes) or original)
    dense = mx.nd.array([-1.0, 2.0])
    assert mx.nd.relu(dense).asnumpy().tolist() == [0.0, 2.0]
    assert calls == []
    monkeypatch.undo()
    sparse = mx.nd.array([[0.0, -1.0], [2.0, 0.0]]).tostype("csr")
    assert mx.nd.relu(sparse).stype == "csr"            # the rule still runs on sparse inputs
    # operators whose rule decides for dense inputs keep it (sparse_from_dense)
    assert mx.nd.cast_storage(mx.nd.array([[1.0, 0.0]]), stype="row_sparse").stype == "row_sparse"
    with pytest.raises(mx.MXNetError, match="row_sparse"):
        mx.nd.sparse.retain(mx.nd.array([[1.0], [2.0]]), mx.nd.array([0]))
