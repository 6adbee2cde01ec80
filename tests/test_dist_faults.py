"""Faults in distributed runs end with an MXNetError, never a hang: a killed worker (the
others name the lost rank), a NaN gradient (MXTORCH_CHECK_FINITE=1 names its rank), and at
start a world-size mismatch, an unreachable master, a port in use, a rank given twice.

Two processes on 127.0.0.1; every process is bounded by a timeout and killed at the end."""
import os
import signal
import socket
import subprocess
import sys

import pytest

import mxtorch as mx

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dist_fault_worker.py")
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(mx.__file__)))
CLEARED = ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK", "DMLC_ROLE", "DMLC_NUM_WORKER",
           "DMLC_WORKER_ID", "DMLC_PS_ROOT_URI", "DMLC_PS_ROOT_PORT", "TORCHELASTIC_USE_AGENT_STORE",
           "MXTORCH_CHECK_FINITE", "MXTORCH_DIST_TIMEOUT")
PROCESS_LIMIT = 150     # seconds for one process, imports included, on a loaded machine


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(scenario, rank, world_size, port, stdin=None, **extra):
    environment = {name: value for name, value in os.environ.items() if name not in CLEARED}
    environment.update(PYTHONPATH=os.pathsep.join(filter(None, [SOURCE_ROOT, os.environ.get("PYTHONPATH")])),
                       RANK=str(rank), WORLD_SIZE=str(world_size), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                       MXTORCH_DIST_TIMEOUT="20")
    environment.update(extra)
    return subprocess.Popen([sys.executable, WORKER, scenario], env=environment, stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def finish(processes):
    """[(returncode, last MXNetError line or '')] for every process; all of them end."""
    results = []
    try:
        for process in processes:
            output = process.communicate(timeout=PROCESS_LIMIT)[0]
            errors = [line for line in output.splitlines() if line.startswith("MXNetError:")]
            results.append((process.returncode, errors[-1] if errors else output[-2000:]))
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    return results


@pytest.mark.parametrize("victim", [1, 0])
def test_a_killed_worker_makes_the_other_raise_naming_its_rank(victim):
    port = free_port()
    results = finish([start("kill", rank, 2, port, VICTIM=str(victim)) for rank in range(2)])
    survivor = 1 - victim
    assert results[victim][0] == -signal.SIGKILL
    code, message = results[survivor]
    assert code == 3, message
    assert f"failed on rank {survivor}" in message and f"lost rank {victim}" in message, message


def test_a_nan_gradient_is_reported_with_its_rank_on_every_worker():
    port = free_port()
    results = finish([start("nan", rank, 2, port, MXTORCH_CHECK_FINITE="1") for rank in range(2)])
    for code, message in results:
        assert code == 3, message
        assert "KVStore.push(7): non-finite (NaN or Inf) gradient from rank 1 " in message, message


def test_without_the_check_a_nan_gradient_passes():
    results = finish([start("nan", rank, 2, free_port_pair) for rank, free_port_pair in
                      zip(range(2), [free_port()] * 2)])
    assert [code for code, _ in results] == [0, 0], results


def test_a_world_size_mismatch_is_reported_at_start():
    port = free_port()
    results = finish([start("create", 0, 2, port), start("create", 1, 3, port)])
    for code, message in results:
        assert code == 3, message
        assert "disagree on the number of workers (world size): rank 0: 2, rank 1: 3" in message, message


def test_an_unreachable_master_is_reported_within_the_timeout():
    (code, message), = finish([start("create", 1, 2, free_port(), MXTORCH_DIST_TIMEOUT="2")])
    assert code == 3, message
    assert "rank 1 cannot reach the master" in message and "within 2 s" in message, message


def test_a_port_in_use_is_reported_by_rank_0():
    with socket.socket() as other_job:
        other_job.bind(("127.0.0.1", 0))
        other_job.listen()
        (code, message), = finish([start("create", 0, 2, other_job.getsockname()[1], MXTORCH_DIST_TIMEOUT="2")])
    assert code == 3, message
    assert "rank 0 cannot host the rendezvous on port" in message and "in use" in message, message


def test_a_rank_given_twice_is_reported():
    port = free_port()
    host = start("hold", 0, 2, port, stdin=subprocess.PIPE, MXTORCH_DIST_TIMEOUT="30")
    ranks_1 = [start("create", 1, 2, port), start("create", 1, 2, port)]
    try:
        results = finish(ranks_1)
    finally:
        # communicate() closes the host's stdin: it stops holding the rendezvous once both rank-1 processes ended
        host_results = finish([host])
    assert host_results[0][0] == 0 and sorted(code for code, _ in results) == [0, 3], results
    message = next(message for code, message in results if code == 3)
    assert "rank 1 joined the rendezvous twice" in message, message
