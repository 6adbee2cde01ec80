"""``mxtorch launch``: start a distributed job the way MXNet's ``tools/launch.py`` did, on
``torch.distributed.run`` (torchrun).

::

    mxtorch launch -n NUM_WORKERS [-s NUM_SERVERS] [--launcher local|ssh|torchrun|slurm|mpi]
                   [-H HOSTFILE] [--env K=V | --env K:V | --env NAME] [--max-restarts N] COMMAND...

MXNet's flags and what they do here:

- ``-n/--num-workers``: the number of worker processes in the job (torch's world size).
- ``-s/--num-servers``, ``--env-server``: accepted; mxtorch needs no parameter servers (the
  workers all-reduce), which is said once on stderr.
- ``-H/--hostfile``: one host per line (``host``, ``host:slots`` or ``host slots=N``; ``#``
  comments); the workers are spread evenly, ``-n / hosts`` per host.
- ``--launcher``: ``local`` (all workers on this machine; the default without ``-H``),
  ``ssh`` (the default with ``-H``: one torchrun agent per host through ``ssh``), ``mpi``
  (one agent per host through ``mpirun``), ``slurm`` (one agent per node through ``srun``,
  inside an allocation), ``torchrun`` (this machine is one node of a job whose other nodes
  run the same command: ``--nnodes`` and ``--rdzv-endpoint`` say which).  MXNet's ``sge``
  and ``yarn`` are not provided.
- ``--env K=V`` / ``--env K:V`` sets a variable for the workers (MXNet's ``--env-worker``
  spelling ``K:V`` too); ``--env NAME`` passes this machine's value of NAME (MXNet's
  ``--env``).  ``--sync-dst-dir DIR`` (ssh) copies the current folder to DIR on every host
  with rsync first, and the workers start there.

torchrun does the rendezvous (static on one machine, ``c10d`` across machines) and the
restarts (``--max-restarts``, elastic ``--nnodes MIN:MAX``); every worker gets torchrun's
``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``, ``MASTER_ADDR``, ``MASTER_PORT`` and MXNet's
``DMLC_ROLE=worker``, ``DMLC_NUM_WORKER``, ``DMLC_NUM_SERVER=0``, ``DMLC_WORKER_ID`` (=
``RANK``), ``DMLC_PS_ROOT_URI``, ``DMLC_PS_ROOT_PORT`` (= the rendezvous address).
``--dry-run`` prints the commands instead of running them.  The exit status is the job's:
0 when every worker succeeded.
"""
from __future__ import annotations

import argparse
import os
import shlex
import shutil
import socket
import subprocess
import sys
import uuid

from .base import MXNetError

__all__ = ["add_parser", "build_commands", "read_hostfile", "run"]

LAUNCHERS = ("local", "ssh", "torchrun", "slurm", "mpi")

# Run in each worker before COMMAND: MXNet's per-worker variables from torchrun's.
_WORKER_SHIM = ('import os, sys; e = os.environ; e["DMLC_WORKER_ID"] = e["RANK"]; '
                'e["DMLC_PS_ROOT_URI"] = e["MASTER_ADDR"]; e["DMLC_PS_ROOT_PORT"] = e["MASTER_PORT"]; '
                'os.execvp(sys.argv[1], sys.argv[1:])')


def add_parser(commands):
    """Add the ``launch`` sub-command to ``commands`` (an argparse sub-parsers object)."""
    parser = commands.add_parser("launch", help="start a distributed job on torchrun (MXNet's tools/launch.py)",
                                 description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return parser


def add_arguments(parser):
    parser.add_argument("-n", "--num-workers", required=True, type=int, help="number of worker processes")
    parser.add_argument("-s", "--num-servers", type=int, default=None,
                        help="accepted for MXNet's launch.py: no parameter servers are needed")
    parser.add_argument("-H", "--hostfile", type=str, default=None,
                        help="hosts to run on, one per line (ssh, mpi; slurm without an allocation)")
    parser.add_argument("--launcher", choices=LAUNCHERS, default=None,
                        help="how to start the workers (default: local, or ssh with -H)")
    parser.add_argument("--env", action="append", default=[], metavar="K=V",
                        help="K=V or K:V sets a worker variable; NAME passes this machine's value (repeatable)")
    parser.add_argument("--env-worker", action="append", default=[], metavar="K:V",
                        help="MXNet's spelling of --env K:V")
    parser.add_argument("--env-server", action="append", default=[], metavar="K:V",
                        help="accepted for MXNet's launch.py: there are no server processes")
    parser.add_argument("--sync-dst-dir", type=str, default=None,
                        help="ssh: rsync the current folder to this folder on every host first")
    parser.add_argument("--max-restarts", type=int, default=0, help="restarts of a failed job (torchrun's)")
    parser.add_argument("--nnodes", type=str, default=None,
                        help="torchrun launcher: nodes in the job, N or MIN:MAX (elastic) (default 1)")
    parser.add_argument("--rdzv-endpoint", type=str, default=None,
                        help="host:port of the c10d rendezvous (default: the first host, port --master-port)")
    parser.add_argument("--rdzv-id", type=str, default=None, help="job id of the rendezvous (default: random)")
    parser.add_argument("--master-port", type=int, default=29400, help="port of the rendezvous (default 29400)")
    parser.add_argument("--p3", action="store_true", help="accepted for MXNet's launch.py; has no effect")
    parser.add_argument("--dry-run", action="store_true", help="print the commands instead of running them")
    parser.add_argument("worker_command", nargs=argparse.REMAINDER, metavar="COMMAND",
                        help="the worker command, e.g. python train.py ...")


def read_hostfile(path):
    """The host names in ``path`` (``host``, ``host:slots``, ``host slots=N`` per line)."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError as error:
        raise MXNetError(f"mxtorch launch: cannot read the hostfile {path!r}: {error.strerror or error}") from None
    hosts = []
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if line:
            hosts.append(line.split()[0].split(":")[0])
    if not hosts:
        raise MXNetError(f"mxtorch launch: the hostfile {path!r} lists no hosts")
    return hosts


def _worker_variables(args, environment):
    """{name: value} that every worker gets besides torchrun's."""
    variables = {"DMLC_ROLE": "worker", "DMLC_NUM_WORKER": str(args.num_workers), "DMLC_NUM_SERVER": "0"}
    for entry in list(args.env) + list(args.env_worker):
        separator = "=" if "=" in entry else (":" if ":" in entry else None)
        if separator is None:
            if entry not in environment:
                raise MXNetError(f"mxtorch launch: --env {entry}: the variable {entry} is not set here")
            variables[entry] = environment[entry]
        else:
            name, value = entry.split(separator, 1)
            if not name:
                raise MXNetError(f"mxtorch launch: --env {entry!r}: expected K=V, K:V or NAME")
            variables[name] = value
    return variables


def _per_node(num_workers, nodes):
    if num_workers % nodes:
        raise MXNetError(f"mxtorch launch: -n {num_workers} workers cannot be spread evenly over {nodes} hosts; "
                         f"give a multiple of {nodes}")
    return num_workers // nodes


def _torchrun(python, nnodes, nproc, rendezvous, max_restarts, command):
    """The torchrun command line of one node."""
    line = [python, "-m", "torch.distributed.run", "--nnodes", str(nnodes), "--nproc-per-node", str(nproc),
            "--max-restarts", str(max_restarts)]
    return line + rendezvous + ["--no-python", python, "-c", _WORKER_SHIM] + list(command)


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def build_commands(args, environment=None):
    """``(commands, variables)``: the command lines to run on this machine (each a list of
    str, run in parallel) and the variables they add to this environment.  MXNetError for
    inconsistent options."""
    environment = os.environ if environment is None else environment
    if args.num_workers < 1:
        raise MXNetError(f"mxtorch launch: -n must be at least 1, got {args.num_workers}")
    if not args.worker_command:
        raise MXNetError("mxtorch launch: no command given (e.g. mxtorch launch -n 2 python train.py)")
    command = args.worker_command[1:] if args.worker_command[0] == "--" else args.worker_command
    launcher = args.launcher or ("ssh" if args.hostfile else "local")
    variables = _worker_variables(args, environment)
    python = sys.executable
    job = args.rdzv_id or uuid.uuid4().hex[:12]
    if launcher in ("local", "torchrun"):
        if launcher == "local":
            nnodes, nproc = "1", args.num_workers
            rendezvous = ["--rdzv-backend", "static", "--master-addr", "127.0.0.1", "--master-port",
                          str(_free_port() if args.rdzv_endpoint is None else args.rdzv_endpoint.split(":")[-1])]
        else:
            nnodes = args.nnodes or "1"
            maximum = int(nnodes.split(":")[-1])
            nproc = _per_node(args.num_workers, maximum)
            endpoint = args.rdzv_endpoint or f"127.0.0.1:{args.master_port}"
            rendezvous = ["--rdzv-backend", "c10d", "--rdzv-endpoint", endpoint, "--rdzv-id", job]
        return [_torchrun(python, nnodes, nproc, rendezvous, args.max_restarts, command)], variables
    if launcher == "slurm" and not args.hostfile:
        nodes = environment.get("SLURM_JOB_NODELIST")
        if not nodes:
            raise MXNetError("mxtorch launch --launcher slurm: run it inside an allocation (salloc / sbatch: "
                             "SLURM_JOB_NODELIST is not set) or give -H HOSTFILE")
        hosts = subprocess.run(["scontrol", "show", "hostnames", nodes], capture_output=True, text=True,
                               check=True).stdout.split()
    elif not args.hostfile:
        raise MXNetError(f"mxtorch launch --launcher {launcher}: -H HOSTFILE is required")
    else:
        hosts = read_hostfile(args.hostfile)
    nproc = _per_node(args.num_workers, len(hosts))
    endpoint = args.rdzv_endpoint or f"{hosts[0]}:{args.master_port}"
    rendezvous = ["--rdzv-backend", "c10d", "--rdzv-endpoint", endpoint, "--rdzv-id", job]
    node = _torchrun(python, len(hosts), nproc, rendezvous, args.max_restarts, command)
    if launcher == "slurm":
        line = ["srun", f"--nodes={len(hosts)}", "--ntasks-per-node=1", f"--nodelist={','.join(hosts)}",
                "--export=ALL"]
        return [line + node], variables
    if launcher == "mpi":
        line = ["mpirun", "-n", str(len(hosts)), "--host", ",".join(hosts), "--map-by", "node"]
        for name in variables:
            line += ["-x", name]
        return [line + node], variables
    folder = args.sync_dst_dir or os.getcwd()
    exports = " ".join(f"{name}={shlex.quote(value)}" for name, value in variables.items())
    remote = f"cd {shlex.quote(folder)} && env {exports} {shlex.join(node)}"
    return [["ssh", "-o", "StrictHostKeyChecking=no", host, remote] for host in hosts], {}


def _sync(args, hosts):
    for host in hosts:
        subprocess.run(["rsync", "-az", "--delete", os.getcwd() + "/", f"{host}:{args.sync_dst_dir}/"], check=True)


def run(args):
    """Run the job described by ``args`` (from the ``launch`` parser); returns its exit status."""
    if args.num_servers or args.env_server:
        print(f"mxtorch launch: -s {args.num_servers or 0} / --env-server accepted: mxtorch needs no parameter "
              f"servers (the workers all-reduce)", file=sys.stderr)
    if args.p3:
        print("mxtorch launch: --p3 has no effect (no parameter servers)", file=sys.stderr)
    commands, variables = build_commands(args)
    if args.dry_run:
        for name, value in variables.items():
            print(f"export {name}={shlex.quote(value)}")
        for command in commands:
            print(shlex.join(command))
        return 0
    if args.sync_dst_dir and (args.launcher or "ssh") == "ssh" and args.hostfile:
        _sync(args, read_hostfile(args.hostfile))
    for command in commands:
        if shutil.which(command[0]) is None and not os.path.exists(command[0]):
            raise MXNetError(f"mxtorch launch: {command[0]!r} is not installed on this machine")
    environment = {**os.environ, **variables}
    processes = [subprocess.Popen(command, env=environment) for command in commands]
    status = 0
    try:
        for process in processes:
            code = process.wait()
            if code and not status:
                status = code
                for other in processes:     # one node failed: stop the others rather than wait for them
                    if other.poll() is None:
                        other.terminate()
    except KeyboardInterrupt:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        status = 130
    for process in processes:
        process.wait()
    return status if status >= 0 else 128 - status


def main(argv=None):
    """``python -m mxtorch.launcher ...``: the same as ``mxtorch launch ...``."""
    parser = argparse.ArgumentParser(prog="mxtorch launch", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return main_with_args(parser.parse_args(argv))


def main_with_args(args):
    """Run parsed ``launch`` arguments; MXNetError is one line on stderr, exit status 1."""
    try:
        return run(args)
    except MXNetError as error:
        print(f"mxtorch launch: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
