"""The kvstore package: built-in types registered explicitly, user stores through
KVStoreBase.register, MXNet's module paths, and server/scheduler roles that exit at once."""
import os
import subprocess
import sys

import pytest

import mxtorch as mx
from mxtorch.base import MXNetError
from mxtorch.kvstore import base as kvbase


def test_builtin_types_are_registered_in_one_table():
    assert set(mx.kvstore.IN_PROCESS_TYPES) | set(mx.kvstore.DIST_TYPES) == set(kvbase._STORE_TYPES)
    assert kvbase._STORE_TYPES["local"] is mx.kvstore.KVStore
    assert kvbase._STORE_TYPES["dist_async"] is mx.kvstore.KVStoreDist
    store = mx.kv.create("Device")
    assert type(store) is mx.kvstore.kvstore.KVStore and store.type == "device"


def test_user_store_registered_by_class_name_takes_precedence():
    @mx.kvstore.KVStoreBase.register
    class MyTestStore(mx.kvstore.KVStoreBase):
        pass
    try:
        assert isinstance(mx.kv.create("myteststore"), MyTestStore)
    finally:
        del mx.kvstore.KVStoreBase.kv_registry["myteststore"]
    with pytest.raises(MXNetError, match="unknown kvstore type 'myteststore'"):
        mx.kv.create("myteststore")


@pytest.mark.parametrize("role", ["server", "scheduler"])
def test_server_and_scheduler_roles_exit_zero_with_one_line(role):
    environment = {**os.environ, "DMLC_ROLE": role, "DMLC_NUM_WORKER": "2", "DMLC_NUM_SERVER": "1"}
    done = subprocess.run([sys.executable, "-c", "import mxtorch; print('worker code ran')"], env=environment,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    assert "worker code ran" not in done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"DMLC_ROLE={role}" in lines[0]


def test_iterators_report_their_partition_through_wrappers():
    import numpy as np
    whole = mx.io.NDArrayIter(np.zeros((8, 2), np.float32), batch_size=2)
    assert whole.num_parts == 1
    part = mx.io.NDArrayIter(np.zeros((8, 2), np.float32), batch_size=2)
    part.num_parts = 4
    assert mx.io.ResizeIter(part, 3).num_parts == 4
    assert mx.io.PrefetchingIter([whole, part]).num_parts == 4


def test_fit_without_a_distributed_store_uses_every_batch():
    from mxtorch.kvstore.sharding import epoch_batches
    import numpy as np
    data = mx.io.NDArrayIter(np.arange(12, dtype=np.float32).reshape(6, 2), batch_size=2)
    module = mx.mod.Module(mx.sym.Variable("data"))
    module._kvstore = mx.kv.create("local")
    firsts = [batch.data[0].asnumpy()[0, 0] for batch in epoch_batches(data, module)]
    assert firsts == [0.0, 4.0, 8.0]
