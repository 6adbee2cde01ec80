"""Distributed kvstores ('dist_sync', ...) on torch.distributed: two worker processes on
127.0.0.1 (gloo), launched with torchrun's or MXNet's DMLC_* variables.

Reference values: a single-process ``Module.fit`` with the global batch (kvstore 'local'),
and sums computed here from the values each worker pushes.  This file is also the
workers' script: ``python test_kvstore_dist.py SCENARIO OUTPUT_DIRECTORY``.
"""
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(mx.__file__)))
WORKERS = 2
WORKER_BATCH = 8
RNG = np.random.RandomState(11)
X = RNG.randn(64, 10).astype(np.float32)
Y = RNG.randint(0, 4, 64).astype(np.float32)
X_UNEVEN = np.concatenate([X, RNG.randn(8, 10).astype(np.float32)])   # one batch of 8 more: 9 batches
Y_UNEVEN = np.concatenate([Y, RNG.randint(0, 4, 8).astype(np.float32)])
OPTIMIZER_PARAMS = {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}
DIRECT_SHAPE = (2, 3)
LAUNCH_VARIABLES = ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK", "DMLC_ROLE",
                    "DMLC_NUM_WORKER", "DMLC_WORKER_ID", "DMLC_PS_ROOT_URI", "DMLC_PS_ROOT_PORT", "DMLC_TASK_ID",
                    "DMLC_NUM_SERVER", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID",
                    "MXNET_UPDATE_ON_KVSTORE", "MXTORCH_SHARD_DATA", "UNEVEN")


def network():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, name="fc1", num_hidden=16)
    net = mx.sym.Activation(net, name="relu1", act_type="relu")
    net = mx.sym.FullyConnected(net, name="fc2", num_hidden=4)
    return mx.sym.SoftmaxOutput(net, name="softmax")


def initial_params(seed):
    arg_shapes, _, _ = network().infer_shape(data=(WORKER_BATCH, 10))
    rng = np.random.RandomState(seed)
    return {name: mx.nd.array(rng.uniform(-0.5, 0.5, shape).astype(np.float32))
            for name, shape in zip(network().list_arguments(), arg_shapes) if name not in ("data", "softmax_label")}


def worker_rows(rank):
    """Worker ``rank``'s rows: its WORKER_BATCH rows of every global batch of WORKERS * WORKER_BATCH."""
    global_batch = WORKERS * WORKER_BATCH
    return np.concatenate([np.arange(start + rank * WORKER_BATCH, start + (rank + 1) * WORKER_BATCH)
                           for start in range(0, len(X), global_batch)])


def fit(kvstore, rows, batch_size, seed, num_epoch=1, data=(X, Y)):
    module = mx.mod.Module(network(), context=mx.cpu())
    iterator = mx.io.NDArrayIter(data[0][rows], data[1][rows], batch_size=batch_size, shuffle=False)
    module.fit(iterator, num_epoch=num_epoch, kvstore=kvstore, optimizer="sgd", optimizer_params=dict(OPTIMIZER_PARAMS),
               arg_params=initial_params(seed), aux_params={})
    arg_params, _ = module.get_params()
    return module, {name: value.asnumpy() for name, value in arg_params.items()}


# -- worker side ------------------------------------------------------------------------------------------
def worker_fit(rank, output):
    # worker 1 starts from other values: init must give every worker rank 0's (when the store updates)
    seed = 3 + rank if os.environ.get("MXNET_UPDATE_ON_KVSTORE", "1") == "1" else 3
    module, params = fit("dist_sync", worker_rows(rank), WORKER_BATCH, seed)
    assert module._kvstore.num_workers == WORKERS and module._kvstore.rank == rank
    np.savez(os.path.join(output, f"fit{rank}.npz"), **params)


def worker_fit_sharded(rank, output):
    """Every worker is given all the rows (9 batches of 8 when UNEVEN): fit shards them by batch."""
    rows = np.arange(len(X_UNEVEN) if os.environ.get("UNEVEN") else len(X))
    _, params = fit("dist_sync", rows, WORKER_BATCH, 3 + rank, num_epoch=2, data=(X_UNEVEN, Y_UNEVEN))
    np.savez(os.path.join(output, f"fit{rank}.npz"), **params)


def worker_direct(rank, output):
    results = {}
    kv = mx.kv.create("dist_sync")
    results["identity"] = np.array([kv.rank, kv.num_workers, kv.type == "dist_sync", kv.is_capable("optimizer")])
    kv.init("w", mx.nd.full(DIRECT_SHAPE, 10.0 + rank))
    out = mx.nd.zeros(DIRECT_SHAPE)
    kv.pull("w", out=out)
    results["init"] = out.asnumpy()
    kv.push("w", [mx.nd.full(DIRECT_SHAPE, rank + 1.0), mx.nd.full(DIRECT_SHAPE, 2.0 * (rank + 1))])
    outs = [mx.nd.zeros(DIRECT_SHAPE), mx.nd.zeros(DIRECT_SHAPE)]
    kv.pull("w", out=outs)
    results["push_pull"] = np.stack([o.asnumpy() for o in outs])
    value = mx.nd.array(np.arange(6, dtype=np.float32).reshape(DIRECT_SHAPE) * (rank + 1))
    kv.pushpull("w", value)
    results["pushpull_in_place"] = value.asnumpy()

    int_store = mx.kv.create("dist_device_sync")
    int_store.init([3, 5], [mx.nd.zeros(DIRECT_SHAPE), mx.nd.zeros((4,))])
    outs = [mx.nd.zeros(DIRECT_SHAPE), mx.nd.zeros((4,))]
    int_store.pushpull([3, 5], [[mx.nd.full(DIRECT_SHAPE, rank + 1.0)], [mx.nd.full((4,), 10.0 ** rank)]], out=outs)
    results["pushpull_keys"] = np.concatenate([o.asnumpy().ravel() for o in outs])
    int_store.barrier()
    int_store._barrier()

    updating = mx.kv.create("dist_async")
    updating.set_optimizer(mx.optimizer.SGD(learning_rate=0.5, momentum=0.5, rescale_grad=1.0))
    updating.init("weight", mx.nd.ones(DIRECT_SHAPE))
    for step in range(2):
        updating.push("weight", mx.nd.full(DIRECT_SHAPE, rank + 1.0))
    out = mx.nd.zeros(DIRECT_SHAPE)
    updating.pull("weight", out=out)
    results["updated"] = out.asnumpy()
    states = os.path.join(output, f"states{rank}")
    updating.save_optimizer_states(states)
    updating.load_optimizer_states(states)
    updating.push("weight", mx.nd.full(DIRECT_SHAPE, rank + 1.0))
    updating.pull("weight", out=out)
    results["updated_after_reload"] = out.asnumpy()

    compressed = mx.kv.create("dist_sync")
    compressed.set_gradient_compression({"type": "2bit", "threshold": 1.0})
    compressed.init(9, mx.nd.zeros((4,)))
    pulled = []
    for gradients in compressed_pushes(rank):
        compressed.push(9, [mx.nd.array(g) for g in gradients])
        value = mx.nd.zeros((4,))
        compressed.pull(9, out=value)
        pulled.append(value.asnumpy())
    results["compressed"] = np.array(pulled)
    np.savez(os.path.join(output, f"direct{rank}.npz"), **results)


def compressed_pushes(rank):
    """Worker ``rank``'s pushes to the 2-bit compressed store: three steps of two devices' values
    (multiples of 1/8, exact in float32)."""
    rng = np.random.RandomState(5 + rank)
    return rng.randint(-12, 13, (3, 2, 4)).astype(np.float32) / 8


# -- test side ----------------------------------------------------------------------------------------------
def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def launch(scenario, output, environment_of_rank, timeout=60):
    """Run WORKERS copies of this file as workers; every process ends (killed on failure or timeout)."""
    base = {name: value for name, value in os.environ.items() if name not in LAUNCH_VARIABLES}
    base["PYTHONPATH"] = os.pathsep.join(filter(None, [SOURCE_ROOT, os.environ.get("PYTHONPATH")]))
    processes = []
    try:
        for rank in range(WORKERS):
            processes.append(subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), scenario, str(output)],
                env={**base, **environment_of_rank(rank)}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
        deadline = time.monotonic() + timeout
        logs = [process.communicate(timeout=max(deadline - time.monotonic(), 1))[0].decode(errors="replace")
                for process in processes]
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    for rank, (process, log) in enumerate(zip(processes, logs)):
        assert process.returncode == 0, f"worker {rank} failed:\n{log}"


def torchrun_environment(port, **extra):
    return lambda rank: {"RANK": str(rank), "WORLD_SIZE": str(WORKERS), "MASTER_ADDR": "127.0.0.1",
                         "MASTER_PORT": str(port), **extra}


def dmlc_environment(port):
    return lambda rank: {"DMLC_ROLE": "worker", "DMLC_NUM_WORKER": str(WORKERS), "DMLC_WORKER_ID": str(rank),
                         "DMLC_PS_ROOT_URI": "127.0.0.1", "DMLC_PS_ROOT_PORT": str(port)}


@pytest.mark.parametrize("update_on_kvstore", ["1", "0"])
def test_dist_sync_fit_matches_one_process_with_the_global_batch(tmp_path, update_on_kvstore):
    # each worker is given its own rows (MXNet's way); MXTORCH_SHARD_DATA=0: fit does not shard again
    launch("fit", tmp_path, torchrun_environment(free_port(), MXNET_UPDATE_ON_KVSTORE=update_on_kvstore,
                                                 MXTORCH_SHARD_DATA="0"))
    global_rows = np.concatenate([worker_rows(rank).reshape(-1, WORKER_BATCH) for rank in range(WORKERS)],
                                 axis=1).ravel()
    _, expected = fit("local", global_rows, WORKERS * WORKER_BATCH, seed=3)
    start = initial_params(3)
    for rank in range(WORKERS):
        with np.load(tmp_path / f"fit{rank}.npz") as got:
            assert sorted(got.files) == sorted(expected)
            for name, value in expected.items():
                assert not np.allclose(value, start[name].asnumpy())   # training moved every parameter
                np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-7, err_msg=f"rank {rank} {name}")


@pytest.mark.parametrize("uneven", ["", "1"])
def test_fit_shards_the_batches_and_uneven_shards_end_the_epoch_together(tmp_path, uneven):
    """Two workers given the same 8 (or 9) batches of 8 train on batches 0, 2, 4, 6 and 1, 3, 5, 7 (8 unused
    when uneven): two epochs equal one process's two epochs on the first 64 rows with batches of 16."""
    launch("fit_sharded", tmp_path, torchrun_environment(free_port(), UNEVEN=uneven))
    _, expected = fit("local", np.arange(len(X)), WORKERS * WORKER_BATCH, seed=3, num_epoch=2)
    for rank in range(WORKERS):
        with np.load(tmp_path / f"fit{rank}.npz") as got:
            for name, value in expected.items():
                np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-7, err_msg=f"rank {rank} {name}")


@pytest.mark.parametrize("environment", [torchrun_environment, dmlc_environment])
def test_push_pull_pushpull_sum_across_workers(tmp_path, environment):
    launch("direct", tmp_path, environment(free_port()))
    ramp = np.arange(6, dtype=np.float32).reshape(DIRECT_SHAPE)
    # 'dist_async', SGD with momentum 0.5, lr 0.5: each push of rank 0 (gradient 1) and rank 1 (gradient 2) is
    # applied on its own, rank 0's first (MXNet's server: one update per push): m = 0.5 m - 0.5 g, w += m
    momentum, weight = 0.0, 1.0
    weights = []
    for _ in range(3):
        for gradient in (1.0, 2.0):
            momentum = 0.5 * momentum - 0.5 * gradient
            weight += momentum
        weights.append(weight)
    for rank in range(WORKERS):
        with np.load(tmp_path / f"direct{rank}.npz") as got:
            np.testing.assert_array_equal(got["identity"], [rank, WORKERS, 1, 1])
            np.testing.assert_array_equal(got["init"], np.full(DIRECT_SHAPE, 10.0))       # rank 0's value
            np.testing.assert_array_equal(got["push_pull"], np.full((2,) + DIRECT_SHAPE, 3.0 + 6.0))
            np.testing.assert_array_equal(got["pushpull_in_place"], ramp * 1 + ramp * 2)
            np.testing.assert_array_equal(got["pushpull_keys"], [3.0] * 6 + [11.0] * 4)
            np.testing.assert_allclose(got["updated"], np.full(DIRECT_SHAPE, weights[1]), rtol=1e-6)
            np.testing.assert_allclose(got["updated_after_reload"], np.full(DIRECT_SHAPE, weights[2]), rtol=1e-6)
            # 2-bit compression in a dist store: each worker compresses its devices' sum with its own
            # residual (threshold 1), the workers' dequantized values are summed
            expected = 0
            for worker in range(WORKERS):
                residual, sent = np.zeros(4, np.float32), []
                for step in compressed_pushes(worker):
                    residual = residual + step.sum(axis=0)
                    value = np.where(residual >= 1, 1.0, np.where(residual <= -1, -1.0, 0.0)).astype(np.float32)
                    residual -= value
                    sent.append(value)
                expected = expected + np.array(sent)
            np.testing.assert_array_equal(got["compressed"], expected)


@pytest.fixture
def clean_environment(monkeypatch):
    for name in LAUNCH_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_missing_variables_are_named(clean_environment):
    with pytest.raises(MXNetError, match="dist_sync.*RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT"):
        mx.kv.create("dist_sync")
    clean_environment.setenv("DMLC_ROLE", "worker")
    clean_environment.setenv("DMLC_NUM_WORKER", "2")
    with pytest.raises(MXNetError, match="DMLC_PS_ROOT_URI, DMLC_PS_ROOT_PORT, DMLC_WORKER_ID"):
        mx.kv.create("dist_sync")
    clean_environment.setenv("DMLC_ROLE", "server")
    with pytest.raises(MXNetError, match="DMLC_ROLE is 'server'"):
        mx.kv.create("dist_async")


def test_every_dist_type_is_registered(clean_environment):
    for name in ("dist_sync", "dist_device_sync", "dist_sync_device", "dist_async", "dist"):
        with pytest.raises(MXNetError, match=f"kvstore.create\\({name!r}\\)"):   # reaches the store, which needs a group
            mx.kv.create(name)


if __name__ == "__main__":
    scenario_name, output_directory = sys.argv[1], sys.argv[2]
    worker_rank = int(os.environ.get("RANK", os.environ.get("DMLC_WORKER_ID", "0")))
    {"fit": worker_fit, "fit_sharded": worker_fit_sharded, "direct": worker_direct}[scenario_name](worker_rank, output_directory)
