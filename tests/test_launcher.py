"""mxtorch launch: a local 2-worker job on torchrun with MXNet's DMLC_* variables, and the
command lines of the ssh / mpi / slurm launchers."""
import argparse
import os
import subprocess
import sys

import pytest

import mxtorch as mx
from mxtorch import launcher
from mxtorch.base import MXNetError

SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(mx.__file__)))
WORKER = """
import os, mxtorch as mx
kv = mx.kv.create("dist_sync")
kv.init(0, mx.nd.zeros((2,)))
kv.push(0, mx.nd.ones((2,)) * (kv.rank + 1))
out = mx.nd.zeros((2,))
kv.pull(0, out=out)
e = os.environ
with open(os.path.join(e["OUT"], f"result{kv.rank}"), "w") as handle:   # (the workers share one stdout)
    print(kv.rank, kv.num_workers, e["DMLC_ROLE"], e["DMLC_WORKER_ID"], e["DMLC_NUM_WORKER"], e["FOO"],
          out.asnumpy().tolist(), file=handle)
"""


def parse(*argv):
    parser = argparse.ArgumentParser()
    launcher.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_local_launch_runs_two_workers_with_dmlc_variables(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    environment = {name: value for name, value in os.environ.items()
                   if not name.startswith(("DMLC_", "MXTORCH_")) and name not in ("RANK", "WORLD_SIZE")}
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [SOURCE_ROOT, os.environ.get("PYTHONPATH")]))
    environment["OUT"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-m", "mxtorch", "launch", "-n", "2", "-s", "1", "--env", "FOO=bar",
                           sys.executable, str(script)], env=environment, capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    results = [(tmp_path / f"result{rank}").read_text().strip() for rank in range(2)]
    assert results == ["0 2 worker 0 2 bar [3.0, 3.0]", "1 2 worker 1 2 bar [3.0, 3.0]"]
    assert "-s 1 / --env-server accepted: mxtorch needs no parameter servers" in done.stderr


def test_a_failing_worker_fails_the_launch(tmp_path):
    script = tmp_path / "fail.py"
    script.write_text("import os, sys; sys.exit(3 if os.environ['RANK'] == '1' else 0)\n")
    done = subprocess.run([sys.executable, "-m", "mxtorch.launcher", "-n", "2", sys.executable, str(script)],
                          capture_output=True, text=True, timeout=240,
                          env={**os.environ, "PYTHONPATH": SOURCE_ROOT})
    assert done.returncode != 0


def test_ssh_mpi_slurm_commands(tmp_path):
    hosts = tmp_path / "hosts"
    hosts.write_text("# cluster\nnode1 slots=2\nnode2:2\n")
    commands, variables = launcher.build_commands(parse("-n", "4", "-H", str(hosts), "--env", "A:1",
                                                        "--rdzv-id", "job", "python", "train.py"), {})
    assert [command[:4] for command in commands] == [["ssh", "-o", "StrictHostKeyChecking=no", "node1"],
                                                     ["ssh", "-o", "StrictHostKeyChecking=no", "node2"]]
    remote = commands[0][4]
    assert "DMLC_NUM_WORKER=4" in remote and "A=1" in remote
    assert "--nnodes 2 --nproc-per-node 2" in remote and "--rdzv-endpoint node1:29400 --rdzv-id job" in remote
    assert remote.endswith("python train.py")
    (command,), variables = launcher.build_commands(parse("-n", "4", "-H", str(hosts), "--launcher", "mpi",
                                                          "python", "train.py"), {})
    assert command[:6] == ["mpirun", "-n", "2", "--host", "node1,node2", "--map-by"]
    assert ["-x", "DMLC_ROLE"] == command[7:9] and variables["DMLC_NUM_SERVER"] == "0"
    (command,), _ = launcher.build_commands(parse("-n", "4", "-H", str(hosts), "--launcher", "slurm",
                                                  "python", "train.py"), {})
    assert command[:3] == ["srun", "--nodes=2", "--ntasks-per-node=1"]
    with pytest.raises(MXNetError, match="-n 3 workers cannot be spread evenly over 2 hosts"):
        launcher.build_commands(parse("-n", "3", "-H", str(hosts), "python", "x.py"), {})
    with pytest.raises(MXNetError, match="--env NOPE: the variable NOPE is not set"):
        launcher.build_commands(parse("-n", "1", "--env", "NOPE", "python", "x.py"), {})
    with pytest.raises(MXNetError, match="slurm: run it inside an allocation"):
        launcher.build_commands(parse("-n", "2", "--launcher", "slurm", "python", "x.py"), {})
