"""``mxtorch`` / ``python -m mxtorch``: the command line.

Subcommands (each registered with ``register_command``; ``mxtorch --help`` lists them):

- ``train`` / ``score``: train and score a network on the bundled digits (below);
- ``run SCRIPT|-m MODULE [ARGS...]``: run an unmodified MXNet program on mxtorch
  (``mxtorch.cli_run``);
- ``convert PREFIX EPOCH --to torch|onnx|torchscript -o FILE``: export a checkpoint
  (``mxtorch.export``);
- ``plot-log LOGFILE -o curves.png``: training / validation curves from an MXNet-style log
  (``mxtorch.plot_log``).

``train`` follows MXNet 1.x's ``example/image-classification`` script
(``common/fit.py``): the same flag names and meanings where they apply, a
``Module`` trained with ``fit``, a Speedometer in the log, a checkpoint
(``PREFIX-symbol.json`` + ``PREFIX-NNNN.params``) after every epoch when
``--model-prefix`` is given, and resuming with ``--load-epoch``.  It ends by
printing the validation accuracy as ``Validation-accuracy=<value>``.

``score`` loads a checkpoint with ``mx.mod.Module.load``, binds it for
inference and prints ``Validation-accuracy=<value>`` on the validation
split.

Data: ``mxtorch.datasets.load_digits`` (1,408 training and 389 validation
images of 8x8 pixels, or resized to 28x28 with ``--image-size 28``).
"""
from __future__ import annotations

import argparse
import logging
import math
import os
import sys

import mxtorch as mx
from . import cli_networks
from . import launcher
from .base import MXNetError
from .datasets import digits_iterators

__all__ = ["main", "build_parser", "register_command"]

_DEFAULT_PREFIX_HELP = "checkpoint prefix: files PREFIX-symbol.json and PREFIX-NNNN.params"


def _add_data_arguments(parser):
    parser.add_argument("--image-size", type=int, default=8, choices=(8, 28),
                        help="image height and width: 8 as stored, or 28 (bilinear resize) (default 8)")
    parser.add_argument("--batch-size", type=int, default=64, help="samples per batch (default 64)")
    parser.add_argument("--gpus", type=str, default="",
                        help="GPUs to use, e.g. '0' or '0,1'; empty uses the CPU (default empty)")


class _Command:
    """One subcommand: ``configure(subparser)`` adds its arguments, ``handler(args)`` runs it and
    returns None/0 or an exit status; ``logs`` says whether ``main`` configures logging first."""

    def __init__(self, name, help, configure, handler, logs=True):
        self.name, self.help, self.configure, self.handler, self.logs = name, help, configure, handler, logs


_COMMANDS: dict = {}


def register_command(name, help, configure, handler, logs=True):
    """Add the subcommand ``name`` to ``mxtorch``: ``configure(parser)`` receives its argparse
    sub-parser, ``handler(args)`` runs it (an MXNetError it raises becomes one line on stderr
    and exit status 1; an int it returns is the exit status).  ``logs=False`` leaves logging
    unconfigured (programs that configure their own, such as ``run``'s)."""
    _COMMANDS[name] = _Command(name, help, configure, handler, logs)


def _program_name():
    """``mxtorch`` when started as the console script, else ``python -m mxtorch``."""
    invoked = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return "mxtorch" if invoked in ("mxtorch", "mxtorch.exe") else "python -m mxtorch"


def build_parser():
    """The argparse parser of ``mxtorch`` / ``python -m mxtorch`` with every registered subcommand."""
    parser = argparse.ArgumentParser(prog=_program_name(),
                                     description="Run MXNet 1.x programs and checkpoints on PyTorch: train or score "
                                                 "a network on the bundled digits, run an unmodified MXNet script, "
                                                 "export a checkpoint, plot a training log.")
    # not required here: main reports a missing command with the list of commands (argparse's
    # own message only says "the following arguments are required: COMMAND")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in _COMMANDS.values():
        command.configure(commands.add_parser(command.name, help=command.help, description=command.help))
    return parser


def _configure_train(train):
    train.add_argument("--network", type=str, default="lenet", choices=sorted(cli_networks.NETWORKS),
                       help="network to train (default lenet)")
    train.add_argument("--num-layers", type=int, default=20,
                       help="resnet depth, 6 * n + 2 (default 20; other networks ignore it)")
    _add_data_arguments(train)
    train.add_argument("--num-epochs", type=int, default=10, help="last epoch to train, 1-based (default 10)")
    train.add_argument("--lr", type=float, default=0.05, help="initial learning rate (default 0.05)")
    train.add_argument("--lr-factor", type=float, default=0.1,
                       help="multiply the learning rate by this at each of --lr-step-epochs (default 0.1)")
    train.add_argument("--lr-step-epochs", type=str, default="8",
                       help="comma-separated epochs at which the learning rate drops; empty: never (default '8')")
    train.add_argument("--optimizer", type=str, default="sgd", help="optimizer name for mx.optimizer (default sgd)")
    train.add_argument("--mom", type=float, default=0.9, help="momentum, for sgd and nag (default 0.9)")
    train.add_argument("--wd", type=float, default=0.0001, help="weight decay (default 0.0001)")
    train.add_argument("--model-prefix", type=str, default=None,
                       help=_DEFAULT_PREFIX_HELP + ", written after every epoch (default: no checkpoints)")
    train.add_argument("--load-epoch", type=int, default=None,
                       help="resume from PREFIX-NNNN.params of this epoch (needs --model-prefix)")
    train.add_argument("--kv-store", type=str, default="local", help="key-value store type (default local)")
    train.add_argument("--disp-batches", type=int, default=10,
                       help="log speed and training accuracy every this many batches (default 10)")
    train.add_argument("--seed", type=int, default=0, help="random seed for initialisation and shuffling (default 0)")
    train.add_argument("--initializer", type=str, default="default",
                       choices=("default", "xavier", "msra", "uniform", "normal"),
                       help="weight initializer; default: Xavier(rnd_type='gaussian', factor_type='in', "
                            "magnitude=2) (default default)")


def _configure_score(score):
    score.add_argument("--model-prefix", type=str, required=True, help=_DEFAULT_PREFIX_HELP)
    score.add_argument("--load-epoch", type=int, required=True, help="epoch number NNNN of the .params file")
    _add_data_arguments(score)


def _contexts(gpus):
    gpus = gpus.strip()
    if not gpus:
        return [mx.cpu()]
    try:
        indices = [int(index) for index in gpus.split(",")]
    except ValueError:
        raise MXNetError(f"--gpus must be comma-separated GPU numbers such as '0,1', got {gpus!r}") from None
    available = mx.context.num_gpus()
    missing = [index for index in indices if not 0 <= index < available]
    if missing:
        raise MXNetError(f"--gpus {gpus}: no GPU numbered {missing[0]}; this machine has {available} "
                                 "(leave --gpus empty to use the CPU)")
    return [mx.gpu(index) for index in indices]


def _initializer(name):
    if name == "default":
        return mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2)
    if name == "xavier":
        return mx.init.Xavier()
    if name == "msra":
        return mx.init.MSRAPrelu()
    if name == "uniform":
        return mx.init.Uniform()
    return mx.init.Normal()


def _learning_rate_schedule(args, batches_per_epoch):
    """Initial learning rate and scheduler, as common/fit.py computes them.

    The rate is already lowered for every step epoch at or before the epoch
    training resumes from; the remaining steps become a MultiFactorScheduler
    counted in updates from the start of this run.
    """
    begin_epoch = args.load_epoch or 0
    if args.lr_factor >= 1 or not args.lr_step_epochs.strip():
        return args.lr, None
    try:
        step_epochs = [int(epoch) for epoch in args.lr_step_epochs.split(",")]
    except ValueError:
        raise MXNetError(f"--lr-step-epochs must be comma-separated epoch numbers such as '30,60', "
                         f"got {args.lr_step_epochs!r}") from None
    learning_rate = args.lr * args.lr_factor ** sum(epoch <= begin_epoch for epoch in step_epochs)
    steps = [batches_per_epoch * (epoch - begin_epoch) for epoch in step_epochs if epoch > begin_epoch]
    if not steps:
        return learning_rate, None
    return learning_rate, mx.lr_scheduler.MultiFactorScheduler(step=steps, factor=args.lr_factor,
                                                               base_lr=learning_rate)


def _print_accuracy(mod, val_iter):
    for name, value in mod.score(val_iter, "acc"):
        print(f"Validation-{name}={value:f}", flush=True)


def train(args):
    if args.load_epoch is not None and args.model_prefix is None:
        raise MXNetError("train: --load-epoch needs --model-prefix to find the checkpoint")
    mx.random.seed(args.seed)          # torch and NumPy (NDArrayIter shuffles with NumPy)
    train_iter, val_iter = digits_iterators(args.batch_size, image_size=args.image_size)
    network = cli_networks.get_network(mx, args.network, num_classes=10, image_size=args.image_size,
                                       num_layers=args.num_layers)
    batches_per_epoch = math.ceil(train_iter.num_data / args.batch_size)

    arg_params = aux_params = None
    if args.load_epoch is not None:
        _, arg_params, aux_params = mx.model.load_checkpoint(args.model_prefix, args.load_epoch)
        logging.info("Loaded model %s-%04d.params", args.model_prefix, args.load_epoch)

    learning_rate, scheduler = _learning_rate_schedule(args, batches_per_epoch)
    optimizer_params = {"learning_rate": learning_rate, "wd": args.wd}
    if scheduler is not None:
        optimizer_params["lr_scheduler"] = scheduler
    if args.optimizer in ("sgd", "nag"):
        optimizer_params["momentum"] = args.mom

    batch_end_callback = [mx.callback.Speedometer(args.batch_size, args.disp_batches)]
    epoch_end_callback = None
    if args.model_prefix:
        os.makedirs(os.path.dirname(os.path.abspath(args.model_prefix)), exist_ok=True)
        epoch_end_callback = mx.callback.do_checkpoint(args.model_prefix)

    mod = mx.mod.Module(network, context=_contexts(args.gpus))
    # Module.fit shows a progress bar when stderr is a terminal (MXTORCH_PROGRESS=0 hides it)
    mod.fit(train_iter,
            eval_data=val_iter,
            eval_metric="acc",
            kvstore=args.kv_store,
            optimizer=args.optimizer,
            optimizer_params=optimizer_params,
            initializer=_initializer(args.initializer),
            arg_params=arg_params,
            aux_params=aux_params,
            allow_missing=True,
            batch_end_callback=batch_end_callback,
            epoch_end_callback=epoch_end_callback,
            begin_epoch=args.load_epoch or 0,
            num_epoch=args.num_epochs)
    _print_accuracy(mod, val_iter)


def _check_image_size(args):
    """Raise MXNetError saying which ``--image-size`` the checkpoint was trained with when its
    parameter shapes do not fit ``args.image_size`` but fit another size."""
    symbol, arg_params, _ = mx.model.load_checkpoint(args.model_prefix, args.load_epoch)

    def fits(image_size):
        try:
            arg_shapes, _, _ = symbol.infer_shape_partial(data=(1, 1, image_size, image_size))
        except MXNetError:
            return False
        shapes = dict(zip(symbol.list_arguments(), arg_shapes))
        return all(tuple(shapes.get(name) or value.shape) == value.shape for name, value in arg_params.items())

    if fits(args.image_size):
        return
    for other in (8, 28):
        if other != args.image_size and fits(other):
            raise MXNetError(f"--image-size {args.image_size}: the checkpoint {args.model_prefix}-"
                             f"{args.load_epoch:04d}.params was trained with another image size, "
                             f"--image-size {other}; score it with --image-size {other}")


def score(args):
    _check_image_size(args)
    _, val_iter = digits_iterators(args.batch_size, image_size=args.image_size)
    mod = mx.mod.Module.load(args.model_prefix, args.load_epoch, context=_contexts(args.gpus))
    mod.bind(data_shapes=val_iter.provide_data, label_shapes=val_iter.provide_label, for_training=False)
    _print_accuracy(mod, val_iter)


def _kvstore_types():
    from .kvstore.base import store_types
    return store_types()


def _check_arguments(args):
    """Reject flag values that would train nothing or nonsense (MXNetError naming the flag)."""
    checks = [("num_epochs", "--num-epochs", lambda v: v >= 1, "at least 1"),
              ("batch_size", "--batch-size", lambda v: v >= 1, "at least 1"),
              ("disp_batches", "--disp-batches", lambda v: v >= 1, "at least 1"),
              ("lr", "--lr", lambda v: math.isfinite(v) and v > 0, "a positive finite number"),
              ("mom", "--mom", lambda v: math.isfinite(v) and 0 <= v < 1, "a number in [0, 1)"),
              ("wd", "--wd", lambda v: math.isfinite(v) and v >= 0, "a non-negative finite number"),
              ("kv_store", "--kv-store", lambda v: v.lower() in _kvstore_types(),
               f"a key-value store type ({', '.join(_kvstore_types())})"),
              ("load_epoch", "--load-epoch", lambda v: v is None or v >= 0, "non-negative")]
    for attribute, flag, valid, expected in checks:
        if hasattr(args, attribute) and not valid(getattr(args, attribute)):
            raise MXNetError(f"{flag} must be {expected}, got {getattr(args, attribute)!r}")


def _train_command(args):
    _check_arguments(args)
    train(args)


def _score_command(args):
    _check_arguments(args)
    score(args)


def _run_command(args):
    from .cli_run import run_command
    return run_command(args)


def _convert_command(args):
    from .export.convert import convert_command
    return convert_command(args)


def _plot_log_command(args):
    from .plot_log import plot_log_command
    return plot_log_command(args)


def _configure_run(parser):
    from .cli_run import configure
    configure(parser)


def _configure_convert(parser):
    from .export.convert import configure
    configure(parser)


def _configure_plot_log(parser):
    from .plot_log import configure
    configure(parser)


register_command("launch", "start a distributed job on torchrun (MXNet's tools/launch.py)",
                 launcher.add_arguments, launcher.main_with_args, logs=False)
register_command("train", "train a network on the bundled digits with Module.fit", _configure_train, _train_command)
register_command("score", "print the validation accuracy of a saved checkpoint", _configure_score, _score_command)
register_command("run", "run an unmodified MXNet 1.x program (SCRIPT or -m MODULE) with `import mxnet` "
                        "resolved to mxtorch", _configure_run, _run_command, logs=False)
register_command("convert", "export a checkpoint (PREFIX-symbol.json + PREFIX-EPOCH.params) to a torch.fx "
                            "module, TorchScript or ONNX", _configure_convert, _convert_command)
register_command("plot-log", "plot training and validation curves from an MXNet-style training log",
                 _configure_plot_log, _plot_log_command)


def main(argv=None):
    """Run ``mxtorch`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status.

    An MXNetError (bad flag value, missing checkpoint file, shapes that do
    not fit the checkpoint) is reported as one line on stderr with exit
    status 1.  ``run`` returns the program's own exit status (its exceptions
    propagate with their traceback, as under ``python SCRIPT``).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if argv and argv[0] == "run":
        from .cli_run import parse_run_arguments
        args = parse_run_arguments(parser, argv[1:])
    else:
        args, extras = parser.parse_known_args(argv)
        if args.command is None:
            given = f"got {' '.join(extras)!r}" if extras else "got none"
            parser.error(f"expected a command, one of {', '.join(_COMMANDS)}, {given} "
                         f"('{parser.prog} --help' describes them, '{parser.prog} COMMAND --help' "
                         "their options)")
        if extras:
            parser.error(f"unrecognized arguments: {' '.join(extras)}")
    command = _COMMANDS[args.command]
    if command.logs:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    try:
        status = command.handler(args)
    except MXNetError as error:
        print(f"{parser.prog} {args.command}: error: {error}", file=sys.stderr)
        return 1
    return 0 if status is None else status
