"""``mxtorch plot-log LOGFILE -o curves.png``."""
from __future__ import annotations

__all__ = ["configure", "plot_log_command"]


def configure(parser):
    parser.add_argument("logfile", metavar="LOGFILE")
    parser.add_argument("-o", "--output", required=True)


def plot_log_command(args):
    raise NotImplementedError
