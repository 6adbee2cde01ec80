"""Worker script of test_dist_faults.py: ``python dist_fault_worker.py SCENARIO``.

Prints ``MXNetError: <message>`` and exits 3 when the kvstore raises MXNetError."""
import os
import signal
import select
import sys
import time

import numpy as np

import mxtorch as mx
from mxtorch.base import MXNetError


def network():
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), name="fc", num_hidden=4)
    return mx.sym.SoftmaxOutput(net, name="softmax")


def kill_mid_epoch(rank):
    """The victim (VICTIM) SIGKILLs itself after 3 batches; the others train on."""
    victim = int(os.environ["VICTIM"])
    rng = np.random.RandomState(0)
    iterator = mx.io.NDArrayIter(rng.randn(4000, 6).astype(np.float32), rng.randint(0, 4, 4000).astype(np.float32),
                                 batch_size=4)

    def callback(param):
        if rank == victim and param.nbatch == 3:
            os.kill(os.getpid(), signal.SIGKILL)

    module = mx.mod.Module(network())
    module.fit(iterator, num_epoch=1, kvstore="dist_sync", optimizer="sgd", batch_end_callback=callback)


def nan_gradient(rank):
    kv = mx.kv.create("dist_sync")
    kv.init(7, mx.nd.zeros((3,)))
    kv.push(7, mx.nd.ones((3,)))          # finite everywhere: passes
    kv.push(7, mx.nd.array([1.0, np.nan if rank == 1 else 0.0, np.inf if rank == 1 else 0.0]))


def create_store(rank):
    mx.kv.create("dist_sync")


def create_and_hold(rank):
    """Create the store, then keep hosting the rendezvous until stdin closes (at most 15 s)."""
    mx.kv.create("dist_sync")
    select.select([sys.stdin], [], [], 15)


if __name__ == "__main__":
    worker_rank = int(os.environ.get("RANK", "0"))
    try:
        {"kill": kill_mid_epoch, "nan": nan_gradient, "create": create_store, "hold": create_and_hold}[sys.argv[1]](worker_rank)
    except MXNetError as error:
        print(f"MXNetError: {error}", flush=True)
        sys.exit(3)
    print("finished", flush=True)
