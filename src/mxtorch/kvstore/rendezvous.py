"""The process group of the distributed kvstores: set up from the environment with clear
errors, watched by heartbeats, and failures turned into MXNetErrors that name lost ranks.

Set-up (:func:`initialize_process_group`), when ``torch.distributed`` is not initialised:

- the variables come from torchrun (``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR``,
  ``MASTER_PORT``; used when all four are set) or from MXNet's launcher (``DMLC_ROLE=worker``, ``DMLC_NUM_WORKER``,
  ``DMLC_WORKER_ID`` or a launcher's rank variable, ``DMLC_PS_ROOT_URI``,
  ``DMLC_PS_ROOT_PORT``);
- rank 0 hosts the rendezvous store (a ``torch.distributed.TCPStore``) on the port, unless
  torchrun's agent already does (``TORCHELASTIC_USE_AGENT_STORE``): a port in use is an
  MXNetError at once ("two jobs on one port");
- every rank records its rank and its number of workers in the store; a rank recorded twice
  (two jobs on one port), numbers of workers that differ (a world-size mismatch), a master
  that cannot be reached, or workers that do not all arrive within the timeout, are
  MXNetErrors naming what was expected and what was found.

The timeout is ``MXTORCH_DIST_TIMEOUT`` seconds (default 60): it bounds the rendezvous and
every collective (gloo's timeout), so a job never hangs.  Each worker then bumps a heartbeat
counter in the store every ``timeout / 20`` seconds (at most 1 s) from a daemon thread.
When a collective fails (a peer's connection closed, or the timeout), :func:`lost_ranks`
looks at which counters stopped: the MXNetError names those ranks (or says that the store,
hosted by rank 0 or by torchrun's agent, is gone).
"""
from __future__ import annotations

import atexit
import datetime
import os
import threading
import time

import torch
import torch.distributed as dist

from ..base import MXNetError

__all__ = ["initialize_process_group", "collective_failure", "timeout_seconds", "lost_ranks"]

# Variables by which launchers (dmlc local, MPI, PMI, Slurm, torchrun) number their processes.
LAUNCHER_RANK_VARIABLES = ("DMLC_TASK_ID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", "RANK")
# Keys of one run (and restart, under torchrun's elastic agent) in the rendezvous store.
_PREFIX = (f"mxtorch/{os.environ.get('TORCHELASTIC_RUN_ID', '')}/"
           f"{os.environ.get('TORCHELASTIC_RESTART_COUNT', '0')}/")
_DEFAULT_TIMEOUT = 60.0


class _State:
    """What this process knows about its job (one per process)."""
    store = None            # a client of the rendezvous store, for the heartbeats and the diagnosis
    rank = None
    world_size = None
    address = None          # "host:port" of the store
    store_owner = "rank 0"  # who hosts the store
    stop = threading.Event()
    thread = None
    store_lost = False      # the heartbeat thread could not reach the store


def timeout_seconds():
    """``MXTORCH_DIST_TIMEOUT`` in seconds (default 60); MXNetError if it is not a positive number."""
    text = os.environ.get("MXTORCH_DIST_TIMEOUT", "")
    if not text:
        return _DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise MXNetError(f"MXTORCH_DIST_TIMEOUT must be a positive number of seconds, got {text!r}")
    return value


def backend():
    """gloo, with nccl for CUDA tensors where CUDA and nccl are available."""
    if torch.cuda.is_available() and dist.is_nccl_available():
        return "cpu:gloo,cuda:nccl"
    return "gloo"


def _integer(name, function):
    text = os.environ[name]
    try:
        return int(text)
    except ValueError:
        raise MXNetError(f"{function}: environment variable {name} must be an integer, got {text!r}") from None


def _read_environment(function):
    """(rank, world_size, host, port, agent_store) from torchrun's or MXNet's variables."""
    environment = os.environ
    torchrun = all(name in environment for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"))
    if not torchrun and ("DMLC_ROLE" in environment or "DMLC_NUM_WORKER" in environment):
        role = environment.get("DMLC_ROLE", "worker")
        if role != "worker":
            raise MXNetError(f"{function}: DMLC_ROLE is {role!r}; mxtorch's distributed stores run on workers "
                             f"only (DMLC_ROLE=worker), without server or scheduler processes")
        missing = [name for name in ("DMLC_NUM_WORKER", "DMLC_PS_ROOT_URI", "DMLC_PS_ROOT_PORT")
                   if name not in environment]
        rank_variable = next((name for name in ("DMLC_WORKER_ID",) + LAUNCHER_RANK_VARIABLES
                              if name in environment), None)
        if rank_variable is None:
            missing.append("DMLC_WORKER_ID (or a launcher's rank: " + ", ".join(LAUNCHER_RANK_VARIABLES) + ")")
        if missing:
            raise MXNetError(f"{function}: a distributed kvstore needs the environment variables "
                             f"{', '.join(missing)}, which are not set")
        return (_integer(rank_variable, function), _integer("DMLC_NUM_WORKER", function),
                environment["DMLC_PS_ROOT_URI"], _integer("DMLC_PS_ROOT_PORT", function), False)
    missing = [name for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT") if name not in environment]
    if missing:
        raise MXNetError(f"{function}: a distributed kvstore needs torch.distributed initialised or the "
                         f"environment variables of torchrun (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) or "
                         f"of MXNet's launcher (DMLC_ROLE, DMLC_NUM_WORKER, DMLC_WORKER_ID, DMLC_PS_ROOT_URI, "
                         f"DMLC_PS_ROOT_PORT); missing: {', '.join(missing)}")
    agent_store = environment.get("TORCHELASTIC_USE_AGENT_STORE", "").lower() in ("1", "true")
    return (_integer("RANK", function), _integer("WORLD_SIZE", function), environment["MASTER_ADDR"],
            _integer("MASTER_PORT", function), agent_store)


def _open_store(function, host, port, rank, world_size, is_master, timeout):
    delta = datetime.timedelta(seconds=timeout)
    try:
        return dist.TCPStore(host, port, world_size, is_master=is_master, timeout=delta, wait_for_workers=False)
    except (RuntimeError, OSError) as error:
        text = str(error)
        if is_master:
            if "in use" in text.lower() or "EADDRINUSE" in text:
                raise MXNetError(f"{function}: rank 0 cannot host the rendezvous on port {port}: the port is in use "
                                 f"(another job on the same port?); give each job its own MASTER_PORT / "
                                 f"DMLC_PS_ROOT_PORT") from None
            raise MXNetError(f"{function}: rank 0 cannot host the rendezvous on {host}:{port}: "
                             f"{text.splitlines()[0] if text else error!r}") from None
        raise MXNetError(f"{function}: rank {rank} cannot reach the master (rank 0's rendezvous store) at "
                         f"{host}:{port} within {timeout:g} s (MXTORCH_DIST_TIMEOUT); is rank 0 running there and "
                         f"the address right? ({text.splitlines()[0] if text else error!r})") from None


def _parse_declared(text):
    declared = {}
    for entry in filter(None, text.split(";")):
        rank, size = entry.split(":")
        declared.setdefault(int(rank), []).append(int(size))
    return declared


def _join(store, function, rank, world_size, timeout):
    """Record (rank, world_size) and wait for all; MXNetError for duplicates, mismatches, absentees."""
    try:
        if store.add(f"{_PREFIX}rank/{rank}", 1) > 1:
            raise MXNetError(f"{function}: rank {rank} joined the rendezvous twice: two jobs are using the same "
                             f"MASTER_PORT / DMLC_PS_ROOT_PORT, or two workers were given the same rank")
        store.append(f"{_PREFIX}declared", f"{rank}:{world_size};")
        deadline = time.monotonic() + timeout
        while True:
            declared = _parse_declared(store.get(f"{_PREFIX}declared").decode())
            sizes = {size for sizes in declared.values() for size in sizes}
            if len(sizes) > 1:
                by_rank = ", ".join(f"rank {r}: {s[0]}" for r, s in sorted(declared.items()))
                raise MXNetError(f"{function}: the workers disagree on the number of workers (world size): "
                                 f"{by_rank}; give every worker the same WORLD_SIZE / DMLC_NUM_WORKER")
            if len(declared) >= world_size:
                return
            if time.monotonic() > deadline:
                raise MXNetError(f"{function}: only {len(declared)} of {world_size} workers (ranks "
                                 f"{sorted(declared)}) joined within {timeout:g} s (MXTORCH_DIST_TIMEOUT); start "
                                 f"all {world_size} workers, with the same number of workers")
            time.sleep(0.05)
    except MXNetError:
        raise
    except RuntimeError as error:
        raise MXNetError(f"{function}: the rendezvous store at {_State.address} failed while rank {rank} waited "
                         f"for the other workers: {error}") from None


def _heartbeat(store, rank, interval):
    key = f"{_PREFIX}beat/{rank}"
    while not _State.stop.wait(interval):
        try:
            store.add(key, 1)
        except Exception:   # the store is gone: lost_ranks reports it
            _State.store_lost = True
            return


def _start_heartbeat(store, rank, timeout):
    _State.stop.clear()
    store.add(f"{_PREFIX}beat/{rank}", 1)
    _State.thread = threading.Thread(target=_heartbeat, args=(store, rank, min(1.0, timeout / 20)),
                                     name="mxtorch-kvstore-heartbeat", daemon=True)
    _State.thread.start()


def initialize_process_group(kvstore_type):
    """Initialise the default process group from the environment (see the module
    docstring); True when this call created it.  Raises MXNetError with the cause."""
    function = f"kvstore.create({kvstore_type!r})"
    if dist.is_initialized():
        return False
    if not dist.is_available():
        raise MXNetError(f"{function}: torch.distributed is not available in this torch build")
    rank, world_size, host, port, agent_store = _read_environment(function)
    if world_size < 1 or not 0 <= rank < world_size:
        raise MXNetError(f"{function}: expected 0 <= rank < number of workers, got rank {rank} of {world_size}")
    timeout = timeout_seconds()
    _State.address = f"{host}:{port}"
    _State.store_owner = "torchrun's agent" if agent_store else "rank 0"
    store = _open_store(function, host, port, rank, world_size, rank == 0 and not agent_store, timeout)
    _join(store, function, rank, world_size, timeout)
    _State.store, _State.rank, _State.world_size = store, rank, world_size
    try:
        dist.init_process_group(backend(), store=dist.PrefixStore(f"{_PREFIX}group", store), rank=rank,
                                world_size=world_size, timeout=datetime.timedelta(seconds=timeout))
    except RuntimeError as error:
        raise collective_failure(f"{function}: init_process_group", error) from None
    _start_heartbeat(store.clone(), rank, timeout)
    atexit.register(_shutdown)
    return True


def _shutdown():
    _State.stop.set()
    if dist.is_initialized():
        try:
            dist.destroy_process_group()
        except Exception:   # a broken group (a peer died) cannot be torn down cleanly
            pass


def lost_ranks(wait=None):
    """The ranks whose heartbeat stopped (compared over ``wait`` seconds, default three beat
    intervals), or None when the rendezvous store itself cannot be reached."""
    if _State.store is None:
        return []
    interval = min(1.0, timeout_seconds() / 20)
    wait = 3 * interval + 0.2 if wait is None else wait
    keys = [f"{_PREFIX}beat/{rank}" for rank in range(_State.world_size)]
    store = _State.store          # connected already (a new connection would wait for the timeout)
    try:
        store.set_timeout(datetime.timedelta(seconds=max(wait, 2.0)))
        before = [store.add(key, 0) for key in keys]
        time.sleep(wait)
        if _State.store_lost:
            return None
        after = [store.add(key, 0) for key in keys]
    except Exception:
        return None
    return [rank for rank, (b, a) in enumerate(zip(before, after)) if a == b and rank != _State.rank]


def collective_failure(operation, error):
    """An MXNetError for a failed collective ``operation``: which ranks were lost (their
    heartbeats stopped), or that every worker is alive and one did not make the call."""
    rank = _State.rank if _State.rank is not None else (dist.get_rank() if dist.is_initialized() else "?")
    lost = lost_ranks()
    detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if lost is None:
        cause = (f"the rendezvous store at {_State.address} ({_State.store_owner}) cannot be reached: "
                 f"lost rank 0" if _State.store_owner == "rank 0" else
                 f"the rendezvous store at {_State.address} ({_State.store_owner}) cannot be reached")
    elif lost:
        cause = f"lost rank{'s' if len(lost) > 1 else ''} {', '.join(map(str, lost))} (no heartbeat)"
    else:
        cause = ("every worker is still alive: some worker did not make the same call within "
                 f"{timeout_seconds():g} s (MXTORCH_DIST_TIMEOUT), e.g. it ran fewer batches or pushed other keys")
    return MXNetError(f"{operation} failed on rank {rank}: {cause} [{detail}]")
