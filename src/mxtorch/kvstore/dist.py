"""Distributed key-value stores on ``torch.distributed`` (MXNet's 'dist_*' kvstore types).

Types: 'dist_sync', 'dist_device_sync', 'dist_sync_device', 'dist_async' and 'dist'
(``mx.kv.create(name)``).  MXNet ran a parameter server; mxtorch has workers only, which
keep identical copies of every value:

- ``init(key, value)`` stores rank 0's value on every worker (a broadcast), as MXNet's
  servers kept the value rank 0 pushed.
- ``push(key, values)`` sums the values given for a key (one per device) on this worker,
  then sums those across workers (``all_reduce`` with SUM).  Without an optimizer the
  stored value becomes that sum; with one (``set_optimizer``) every worker runs the same
  updater on its identical stored weight, so the copies stay equal.  The updater gets int
  keys, str keys numbered 0, 1, ... in the order they were initialised, as MXNet's
  servers saw them.
- ``pull(key, out)`` copies the stored value out (no communication).

'dist_async' runs synchronously too (every push waits for all workers): the numbers are
those of 'dist_sync' with the rescaling Module gives an async store (it does not
multiply the batch size by ``num_workers`` for it).  'dist' is, as in MXNet, a
synchronous store whose type does not contain '_sync'.  The '*device*' types sum the
per-device values on the device of the first one, the others where ``init`` put the value.

The process group: when ``torch.distributed`` is not initialised, creating a store
initialises it from the environment, either torchrun's ``RANK``, ``WORLD_SIZE``,
``MASTER_ADDR``, ``MASTER_PORT``, or MXNet's ``DMLC_ROLE=worker``, ``DMLC_NUM_WORKER``,
``DMLC_WORKER_ID`` (if unset: ``DMLC_TASK_ID``, ``OMPI_COMM_WORLD_RANK``, ``PMI_RANK``,
``PMIX_RANK``, ``SLURM_PROCID`` or ``RANK``), ``DMLC_PS_ROOT_URI``, ``DMLC_PS_ROOT_PORT``
(the rendezvous address).  The backend is gloo, with nccl for CUDA tensors when CUDA and
nccl are available.  No server or scheduler processes are needed: a process with
``DMLC_ROLE`` 'server' or 'scheduler' gets an MXNetError.
"""
from __future__ import annotations

import atexit
import os

import torch
import torch.distributed as dist

from ..base import MXNetError
from .base import _pairs
from .kvstore import KVStore

__all__ = ["KVStoreDist", "DIST_TYPES"]

DIST_TYPES = ("dist_sync", "dist_device_sync", "dist_sync_device", "dist_async", "dist")

# Variables by which launchers (dmlc local, MPI, PMI, Slurm, torchrun) number their processes.
_LAUNCHER_RANK_VARIABLES = ("DMLC_TASK_ID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", "RANK")


def _backend():
    if torch.cuda.is_available() and dist.is_nccl_available():
        return "cpu:gloo,cuda:nccl"
    return "gloo"


def _environment_integer(name, function):
    text = os.environ[name]
    try:
        return int(text)
    except ValueError:
        raise MXNetError(f"{function}: environment variable {name} must be an integer, got {text!r}") from None


def _initialize_process_group(kvstore_type):
    """Initialise the default process group from torchrun's or MXNet's variables; True
    when this call created it."""
    function = f"kvstore.create({kvstore_type!r})"
    if dist.is_initialized():
        return False
    if not dist.is_available():
        raise MXNetError(f"{function}: torch.distributed is not available in this torch build")
    environment = os.environ
    if "DMLC_ROLE" in environment or "DMLC_NUM_WORKER" in environment:
        role = environment.get("DMLC_ROLE", "worker")
        if role != "worker":
            raise MXNetError(f"{function}: DMLC_ROLE is {role!r}; mxtorch's distributed stores run on workers "
                             f"only (DMLC_ROLE=worker), without server or scheduler processes")
        missing = [name for name in ("DMLC_NUM_WORKER", "DMLC_PS_ROOT_URI", "DMLC_PS_ROOT_PORT")
                   if name not in environment]
        rank_variable = next((name for name in ("DMLC_WORKER_ID",) + _LAUNCHER_RANK_VARIABLES
                              if name in environment), None)
        if rank_variable is None:
            missing.append("DMLC_WORKER_ID (or a launcher's rank: " + ", ".join(_LAUNCHER_RANK_VARIABLES) + ")")
        if missing:
            raise MXNetError(f"{function}: a distributed kvstore needs the environment variables "
                             f"{', '.join(missing)}, which are not set")
        world_size = _environment_integer("DMLC_NUM_WORKER", function)
        rank = _environment_integer(rank_variable, function)
        port = _environment_integer("DMLC_PS_ROOT_PORT", function)
        init_method = f"tcp://{environment['DMLC_PS_ROOT_URI']}:{port}"
    else:
        missing = [name for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT") if name not in environment]
        if missing:
            raise MXNetError(f"{function}: a distributed kvstore needs torch.distributed initialised or the "
                             f"environment variables of torchrun (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) or "
                             f"of MXNet's launcher (DMLC_ROLE, DMLC_NUM_WORKER, DMLC_WORKER_ID, DMLC_PS_ROOT_URI, "
                             f"DMLC_PS_ROOT_PORT); missing: {', '.join(missing)}")
        world_size = _environment_integer("WORLD_SIZE", function)
        rank = _environment_integer("RANK", function)
        _environment_integer("MASTER_PORT", function)
        init_method = "env://"
    if world_size < 1 or not 0 <= rank < world_size:
        raise MXNetError(f"{function}: expected 0 <= rank < number of workers, got rank {rank} of {world_size}")
    dist.init_process_group(_backend(), init_method=init_method, rank=rank, world_size=world_size)
    return True


def _destroy_process_group():
    if dist.is_initialized():
        dist.destroy_process_group()


def _communication_device(tensor):
    """The device a collective on ``tensor`` runs on with the current backend."""
    backend = str(dist.get_backend())
    if tensor.is_cuda:
        return tensor.device if "nccl" in backend else torch.device("cpu")
    if backend == "nccl":
        return torch.device("cuda", torch.cuda.current_device())
    return tensor.device


def _collective(tensor, operation):
    """Run ``operation(t)`` (an in-place collective) on ``tensor``, through a copy on a
    device the backend supports when needed."""
    device = _communication_device(tensor)
    if device == tensor.device and tensor.is_contiguous():
        operation(tensor)
        return
    staged = tensor.to(device).contiguous()
    operation(staged)
    tensor.copy_(staged)


class KVStoreDist(KVStore):
    """A key-value store shared by the workers of a ``torch.distributed`` process group;
    see the module docstring.  ``rank`` and ``num_workers`` are the group's.

    Raises MXNetError when the process group cannot be set up from the environment
    (naming the missing variables)."""

    def __init__(self, kvstore_type="dist_sync"):
        if kvstore_type not in DIST_TYPES:
            raise MXNetError(f"KVStoreDist: kvstore_type must be one of {list(DIST_TYPES)}, got {kvstore_type!r}")
        super().__init__(kvstore_type)
        if _initialize_process_group(kvstore_type):
            atexit.register(_destroy_process_group)
        self._str_key_index = {}

    def __repr__(self):
        return (f"<KVStoreDist type={self._type!r} rank={self.rank} num_workers={self.num_workers} "
                f"keys={len(self._store)}>")

    @property
    def rank(self):
        """This worker's rank in the process group (0 ... num_workers - 1)."""
        return dist.get_rank()

    @property
    def num_workers(self):
        """The number of workers in the process group."""
        return dist.get_world_size()

    def init(self, key, value):
        """Store rank 0's ``value`` under ``key`` on every worker (a broadcast; every worker
        must call it with the same keys and shapes).  A key can be initialised once."""
        pairs = _pairs(key, value, "init", "values")
        super().init(key, value)
        for k, _ in pairs:
            if isinstance(k, str):
                self._str_key_index[k] = len(self._str_key_index)
            with torch.no_grad():
                _collective(self._store[k]._tensor, lambda tensor: dist.broadcast(tensor, src=0))

    def _reduce_across_workers(self, total):
        """Sum this worker's total over every worker (all_reduce), so every worker stores or
        applies the same value.  Every worker must push the same keys in the same order."""
        _collective(total, lambda tensor: dist.all_reduce(tensor, op=dist.ReduceOp.SUM))

    def _updater_key(self, key):
        """str keys reach the updater as 0, 1, ... in the order they were initialised."""
        return self._str_key_index[key] if isinstance(key, str) else key

    def pushpull(self, key, value, out=None, priority=0):
        """``push(key, value)`` then ``pull`` into ``out``, or into ``value`` when ``out`` is None."""
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def barrier(self):
        """Wait until every worker reaches this call."""
        dist.barrier()

    def _barrier(self):
        """Wait until every worker reaches this call (MXNet's private name)."""
        dist.barrier()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write this worker's optimizer states to ``fname`` (each worker holds the same
        states; rank-local, no communication)."""
        super().save_optimizer_states(fname, dump_optimizer)

    def load_optimizer_states(self, fname):
        """Read optimizer states into this worker's updater (rank-local; load the same file
        on every worker to keep them equal)."""
        super().load_optimizer_states(fname)

    def _send_command_to_servers(self, head, body):
        """mxtorch's distributed stores have no servers; MXNetError."""
        raise MXNetError("KVStore._send_command_to_servers: mxtorch's distributed stores run on workers only and "
                         "have no servers")
