"""``mxtorch run [OPTIONS] SCRIPT|-m MODULE [ARGS...]``: run an unmodified MXNet 1.x program.

The program runs in this process as ``python SCRIPT ARGS`` (or ``python -m MODULE
ARGS``) would run it: ``__name__ == '__main__'``, ``sys.argv == [SCRIPT, *ARGS]``
(for ``-m``, the module's file path first, as Python sets it), the script's folder
first on ``sys.path`` (the current folder for ``-m``), and ``import mxnet``
resolved to mxtorch (``mxtorch.install_as_mxnet()``).  Its exit status is the
program's: ``sys.exit(n)`` exits with ``n``; an uncaught exception prints its
traceback and exits with status 1.  Child processes started with the ``spawn`` method
re-import the script without mxtorch's alias: such programs should call
``mxtorch.install_as_mxnet()`` themselves (the environment switches do reach them).

Options (each off by default; the environment variable in brackets does the same and
is also set for child processes):

``--gpu-as-cpu[=N]`` [``MXTORCH_GPU_AS_CPU=N``]
    ``mx.gpu(i)`` computes on the CPU (keeping ``device_id`` i) with one warning;
    ``mx.context.num_gpus()`` reports N (default 1).  Without it, using ``mx.gpu()`` on a
    machine without CUDA raises MXNetError, as MXNet did.
``--numpy-aliases`` [``MXTORCH_NUMPY_ALIASES=1``]
    restore NumPy names and behaviours removed in 1.24/2.0 (``np.float``, ``np.int``,
    ``np.asscalar``, binary ``np.fromstring``, ...; see ``mxtorch.numpy_aliases``).
``--device DEVICE`` [``MXTORCH_DEVICE``]
    the torch device that ``mx.cpu()`` and ``mx.gpu()`` compute on (``cpu``, ``cuda:1``, ``mps``).
``--no-package-compat`` [``MXTORCH_PACKAGE_COMPAT=0``]
    turn off package compat (on by default): the import-time environment checks of known
    MXNet-era packages (GluonCV, GluonNLP) are answered by ``mxtorch.package_compat`` without
    editing them, and importing one of them turns the NumPy aliases on, as their NumPy 1 code
    expects.
"""
from __future__ import annotations

import os
import runpy
import sys

from .base import MXNetError

__all__ = ["configure", "parse_run_arguments", "run_command", "run_program"]


def configure(parser):
    """Arguments of ``run`` (for ``--help``; ``parse_run_arguments`` does the parsing so that the
    program's own options after SCRIPT are passed through untouched)."""
    parser.add_argument("--gpu-as-cpu", action="store_true",
                        help="mx.gpu(i) computes on the CPU; mx.context.num_gpus() reports 1, or N with "
                             "--gpu-as-cpu=N [MXTORCH_GPU_AS_CPU=N]")
    parser.add_argument("--numpy-aliases", action="store_true",
                        help="restore np.float, np.int, np.asscalar, binary np.fromstring and the other "
                             "NumPy names removed in 1.24/2.0 [MXTORCH_NUMPY_ALIASES=1]")
    parser.add_argument("--device", default=None,
                        help="torch device that mx.cpu() and mx.gpu() compute on: cpu, cuda, cuda:1, mps "
                             "[MXTORCH_DEVICE]")
    parser.add_argument("--no-package-compat", action="store_true",
                        help="leave the import-time checks of GluonCV / GluonNLP as they are (by default "
                             "mxtorch answers them and turns the NumPy aliases on) [MXTORCH_PACKAGE_COMPAT=0]")
    parser.add_argument("-m", dest="module", metavar="MODULE", default=None,
                        help="run library module MODULE as a script (like python -m)")
    parser.add_argument("script", nargs="?", metavar="SCRIPT", help="the program file to run")
    parser.add_argument("args", nargs="*", metavar="ARGS", help="arguments passed to the program")


def parse_run_arguments(parser, argv):
    """Parse ``run``'s own options up to SCRIPT (or ``-m MODULE``); everything after is the
    program's.  Returns an argparse Namespace with ``command='run'``."""
    import argparse
    args = argparse.Namespace(command="run", gpu_as_cpu=0, numpy_aliases=False, device=None, module=None,
                              script=None, args=[], no_package_compat=False)
    run_parser = _subparser(parser, "run")
    index = 0
    while index < len(argv):
        item = argv[index]
        if item in ("-h", "--help"):
            run_parser.print_help()
            raise SystemExit(0)
        if item == "--numpy-aliases":
            args.numpy_aliases = True
        elif item == "--no-package-compat":
            args.no_package_compat = True
        elif item == "--gpu-as-cpu":
            args.gpu_as_cpu = 1
        elif item.startswith("--gpu-as-cpu="):
            args.gpu_as_cpu = _count(run_parser, item.split("=", 1)[1])
        elif item == "--device" or item.startswith("--device="):
            if "=" in item:
                args.device = item.split("=", 1)[1]
            else:
                index += 1
                if index == len(argv):
                    run_parser.error("--device needs a value such as cpu, cuda:1 or mps")
                args.device = argv[index]
        elif item == "-m" or (item.startswith("-m") and len(item) > 2):
            if item == "-m":
                index += 1
                if index == len(argv):
                    run_parser.error("-m needs a module name")
                args.module = argv[index]
            else:
                args.module = item[2:]
            args.args = argv[index + 1:]
            return args
        elif item == "--":
            index += 1
            break
        elif item.startswith("-"):
            run_parser.error(f"unknown option {item!r} before SCRIPT (the program's own options go after SCRIPT)")
        else:
            break
        index += 1
    if index >= len(argv):
        run_parser.error("give the program to run: SCRIPT or -m MODULE")
    args.script = argv[index]
    args.args = argv[index + 1:]
    return args


def _count(parser, text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        parser.error(f"--gpu-as-cpu: expected a number of GPUs, got {text!r}")
    return value


def _subparser(parser, name):
    import argparse
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]
    raise KeyError(name)


def _apply_switches(gpu_as_cpu=0, numpy_aliases=False, device=None, package_compat=True):
    from . import context
    from .install import install_as_mxnet
    if gpu_as_cpu:
        os.environ["MXTORCH_GPU_AS_CPU"] = str(gpu_as_cpu)
        context.set_gpu_as_cpu(gpu_as_cpu)
    if device:
        context.set_device(device)
        os.environ["MXTORCH_DEVICE"] = device
    if numpy_aliases:
        os.environ["MXTORCH_NUMPY_ALIASES"] = "1"
    if not package_compat:
        os.environ["MXTORCH_PACKAGE_COMPAT"] = "0"
    install_as_mxnet(numpy_aliases=True if numpy_aliases else None, package_compat=None if package_compat else False)


def run_program(script=None, module=None, args=(), gpu_as_cpu=0, numpy_aliases=False, device=None,
                package_compat=True):
    """Run ``script`` (a path) or ``module`` (a dotted name) as ``__main__`` with ``sys.argv``
    set from ``args``, after installing mxtorch as mxnet and applying the switches
    (``package_compat=False`` is ``--no-package-compat``).

    Returns the exit status: 0 when the program ends normally, the ``SystemExit`` code when it
    calls ``sys.exit``.  Other exceptions propagate.  Raises MXNetError when ``script`` does
    not exist or neither / both of ``script`` and ``module`` are given.
    """
    if (script is None) == (module is None):
        raise MXNetError("run: give exactly one of SCRIPT or -m MODULE")
    if script is not None and not os.path.isfile(script):
        raise MXNetError(f"run: no such file {script!r}")
    _apply_switches(gpu_as_cpu, numpy_aliases, device, package_compat)
    saved_argv, saved_path0 = sys.argv[:], sys.path[0] if sys.path else None
    try:
        if script is not None:
            sys.argv = [script, *args]
            folder = os.path.dirname(os.path.abspath(script))
            if sys.path:
                sys.path[0] = folder
            else:
                sys.path.insert(0, folder)
            runpy.run_path(script, run_name="__main__")
        else:
            sys.argv = [module, *args]
            if sys.path:
                sys.path[0] = os.getcwd()
            runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as stop:
        return _exit_status(stop.code)
    except KeyboardInterrupt:
        raise                           # Python's own handling (exit status 130 on Ctrl-C)
    except Exception as error:          # noqa: BLE001 - reported as Python reports an uncaught exception
        _print_program_traceback(error)
        return 1
    finally:
        sys.argv = saved_argv
        if saved_path0 is not None and sys.path:
            sys.path[0] = saved_path0
    return 0


def _print_program_traceback(error):
    """Print ``error``'s traceback as ``python SCRIPT`` would, without the frames of runpy and
    of this launcher (the caller exits with status 1)."""
    import traceback
    skipped = {os.path.abspath(runpy.__file__), os.path.abspath(__file__), os.path.abspath("<frozen runpy>")}
    tb = error.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) in skipped:
        tb = tb.tb_next
    sys.stderr.write("".join(traceback.format_exception(type(error), error, tb)))
    sys.stderr.flush()


def _exit_status(code):
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def run_command(args):
    """The ``run`` subcommand (see the module docstring)."""
    return run_program(script=args.script, module=args.module, args=args.args, gpu_as_cpu=args.gpu_as_cpu,
                       numpy_aliases=args.numpy_aliases, device=args.device,
                       package_compat=not getattr(args, "no_package_compat", False))
