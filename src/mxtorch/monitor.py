"""``mx.mon.Monitor``: statistics of every node output (and argument) every ``interval`` batches."""
from __future__ import annotations

import logging
import math
import re

from .ndarray.ndarray import NDArray
# names MXNet 1.9.1's mxnet.monitor had in its namespace from its ctypes binding
from .base import (NDArrayHandle, py_str)  # noqa: E402,F401
# names MXNet 1.9.1's mxnet.monitor had in its namespace (imported there, not defined)
from math import sqrt  # noqa: E402,F401

__all__ = ["Monitor"]


def _mean_norm(array):
    """``||x||_2 / sqrt(x.size)``, MXNet's default statistic (an NDArray of shape (1,))."""
    return array.norm() / math.sqrt(max(array.size, 1))


class Monitor:
    """Collects ``stat_func(array)`` for node outputs whose names match ``pattern``.

    Use: ``mon = Monitor(100); module.install_monitor(mon)``, then ``mon.tic()`` before
    and ``mon.toc_print()`` after a batch (``fit(monitor=mon)`` does both).  Log lines:
    ``Batch: <step> <name> <value>``.
    """

    def __init__(self, interval, stat_func=None, pattern=".*", sort=False, monitor_all=False):
        self.stat_func = stat_func if stat_func is not None else _mean_norm
        self.interval = int(interval)
        self.activated = False
        self.queue = []
        self.step = 0
        self.exes = []
        self.re_prog = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all

    def stat_helper(self, name, array):
        """Executor callback: record ``stat_func(array)`` when active and ``name`` matches."""
        if not self.activated or not self.re_prog.match(name):
            return
        self.queue.append((self.step, name, self.stat_func(array)))

    def install(self, exe):
        """Attach to an Executor."""
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def tic(self):
        """Start collecting if this batch is on the interval."""
        if self.step % self.interval == 0:
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self):
        """Stop collecting; ``[(step, name, value_string)]`` including matching arguments."""
        if not self.activated:
            return []
        for exe in self.exes:
            for name, array in zip(exe._symbol.list_arguments(), exe.arg_arrays):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
            for name, array in zip(exe._symbol.list_auxiliary_states(), exe.aux_arrays):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        result = []
        queue = sorted(self.queue, key=lambda item: item[1]) if self.sort else self.queue
        for step, name, values in queue:
            if isinstance(values, NDArray):
                values = [values]
            # MXNet's text: a (1,)-shaped statistic as a scalar, anything else as numpy prints it
            text = "".join((str(value.asscalar()) if value.shape == (1,) else str(value.asnumpy())) + "\t"
                           for value in values)
            result.append((step, name, text))
        self.queue = []
        return result

    def toc_print(self):
        """``toc()`` and log each line."""
        for step, name, value in self.toc():
            logging.info("Batch: {:7d} {:30s} {:s}".format(step, name, value))
