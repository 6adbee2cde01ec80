"""``mx.notebook.callback``: record training statistics as pandas DataFrames
(``PandasLogger``) and plot them live with bokeh (``LiveLearningCurve``, ``LiveTimeSeries``),
as MXNet 1.9.1's module of that name.

pandas and bokeh are optional (``pip install mxtorch[notebook]``): rows are recorded without
them, and a DataFrame or chart is only built when asked for; a missing library then raises
MXNetError naming it.  Differences from MXNet: ``records_per_sec`` is samples per second and
``batches_per_sec`` batches per second (MXNet had the two swapped), and ``epoch_cb`` accepts
the ``(epoch, symbol, arg_params, aux_params)`` that ``fit`` passes to epoch-end callbacks.
"""
from __future__ import annotations

import datetime
import time
from collections import defaultdict  # noqa: F401 (in MXNet's namespace)

from ..base import MXNetError

__all__ = ["PandasLogger", "LiveBokehChart", "LiveTimeSeries", "LiveLearningCurve", "args_wrapper"]


class Pandas_Failed_To_Import:  # noqa: N801 (MXNet's name)
    """What ``mx.notebook.callback.pd`` is when pandas cannot be imported (MXNet's placeholder)."""


def __getattr__(name):
    # ``pd``: pandas, imported on first use of the name (MXNet imported it with the module)
    if name == "pd":
        from ..util import optional_module
        return optional_module(globals(), "pd", "pandas", Pandas_Failed_To_Import)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _pandas():
    try:
        import pandas
    except ImportError:
        raise MXNetError("mx.notebook.callback: pandas is needed for DataFrames; pip install pandas "
                         "(or mxtorch[notebook])") from None
    return pandas


def _bokeh():
    try:
        import bokeh.io
        import bokeh.plotting
    except ImportError:
        raise MXNetError("mx.notebook.callback: bokeh is needed for live charts; pip install bokeh "
                         "(or mxtorch[notebook])") from None
    return bokeh


class PandasLogger:
    """Logs training statistics into three tables, ``train`` (every ``frequent`` batches),
    ``eval`` (after each evaluation) and ``epoch`` (epoch times), readable as pandas
    DataFrames (``train_df``, ``eval_df``, ``epoch_df``, ``all_dataframes``).

    Each train / eval row holds the metric values (the metric is reset after reading, as in
    MXNet), ``records_per_sec``, ``batches_per_sec``, ``elapsed`` (timedelta since creation),
    ``minibatch_count`` and ``epoch``; an epoch row ``elapsed`` and ``epoch_time``.
    """

    def __init__(self, batch_size, frequent=50):
        self.batch_size = batch_size
        self.frequent = frequent
        self._rows = {"train": [], "eval": [], "epoch": []}
        self.last_time = time.time()
        self.start_time = datetime.datetime.now()
        self.last_epoch_time = datetime.datetime.now()

    def _frame(self, name):
        pandas = _pandas()
        rows = self._rows[name]
        columns = []
        for row in rows:
            columns.extend(key for key in row if key not in columns)
        return pandas.DataFrame(rows, columns=columns)

    @property
    def train_df(self):
        """DataFrame of the training rows."""
        return self._frame("train")

    @property
    def eval_df(self):
        """DataFrame of the evaluation rows."""
        return self._frame("eval")

    @property
    def epoch_df(self):
        """DataFrame of the epoch rows."""
        return self._frame("epoch")

    @property
    def all_dataframes(self):
        """``{'train': ..., 'eval': ..., 'epoch': ...}`` DataFrames."""
        return {name: self._frame(name) for name in self._rows}

    def elapsed(self):
        """Time since the logger was created (``datetime.timedelta``)."""
        return datetime.datetime.now() - self.start_time

    def append_metrics(self, metrics, df_name):
        """Append the dict ``metrics`` as a row of table ``df_name``."""
        if df_name not in self._rows:
            raise MXNetError(f"PandasLogger.append_metrics: unknown table {df_name!r}; tables are "
                             f"{sorted(self._rows)}")
        self._rows[df_name].append(dict(metrics))

    def train_cb(self, param):
        """``batch_end_callback``: a train row every ``frequent`` batches."""
        if param.nbatch % self.frequent == 0:
            self._process_batch(param, "train")

    def eval_cb(self, param):
        """``eval_end_callback``: an eval row."""
        self._process_batch(param, "eval")

    def _process_batch(self, param, table):
        now = time.time()
        metrics = {}
        if param.eval_metric is not None:
            metrics = dict(param.eval_metric.get_name_value())
            param.eval_metric.reset()
        seconds = now - self.last_time
        batches_per_sec = self.frequent / seconds if seconds > 0 else float("inf")
        metrics["batches_per_sec"] = batches_per_sec
        metrics["records_per_sec"] = batches_per_sec * self.batch_size
        metrics["elapsed"] = self.elapsed()
        metrics["minibatch_count"] = param.nbatch
        metrics["epoch"] = param.epoch
        self.append_metrics(metrics, table)
        self.last_time = now

    def epoch_cb(self, *args):
        """``epoch_end_callback``: an epoch row (the arguments fit passes are not needed)."""
        now = datetime.datetime.now()
        self.append_metrics({"elapsed": self.elapsed(), "epoch_time": now - self.last_epoch_time}, "epoch")
        self.last_epoch_time = now

    def callback_args(self):
        """Keyword arguments for ``fit`` that install all three callbacks."""
        return {"batch_end_callback": self.train_cb, "eval_end_callback": self.eval_cb,
                "epoch_end_callback": self.epoch_cb}


class LiveBokehChart:
    """Base of the live charts: redraws at most every ``display_freq`` seconds from the rows of
    a PandasLogger.  Needs bokeh (MXNetError otherwise)."""

    def __init__(self, pandas_logger, metric_name, display_freq=10, batch_size=None, frequent=50):
        self.pandas_logger = pandas_logger or PandasLogger(batch_size=batch_size, frequent=frequent)
        self.display_freq = display_freq
        self.last_update = time.time()
        self.metric_name = metric_name
        self._bokeh = _bokeh()
        self.fig = None
        self.handle = None
        self.setup_chart()

    def setup_chart(self):
        raise NotImplementedError("a LiveBokehChart subclass draws its chart in setup_chart()")

    def update_chart_data(self):
        raise NotImplementedError("a LiveBokehChart subclass refreshes its data in update_chart_data()")

    def interval_elapsed(self):
        """True when ``display_freq`` seconds passed since the last redraw."""
        return time.time() - self.last_update > self.display_freq

    def _push_render(self):
        self._bokeh.io.push_notebook(handle=self.handle)
        self.last_update = time.time()

    def _do_update(self):
        self.update_chart_data()
        self._push_render()

    def batch_cb(self, param):
        if self.interval_elapsed():
            self._do_update()

    def eval_cb(self, param):
        self._do_update()

    def callback_args(self):
        return {"batch_end_callback": self.batch_cb, "eval_end_callback": self.eval_cb}


class LiveTimeSeries(LiveBokehChart):
    """A live line of values against seconds since start (``update_chart_data(value)``)."""

    def __init__(self, **fig_params):
        self.fig_params = fig_params
        self.start_time = datetime.datetime.now()
        self.x_axis_val = []
        self.y_axis_val = []
        super().__init__(None, None)

    def setup_chart(self):
        self.fig = self._bokeh.plotting.figure(**self.fig_params)
        self.line = self.fig.line(self.x_axis_val, self.y_axis_val)
        self.handle = self._bokeh.io.show(self.fig, notebook_handle=True)

    def elapsed(self):
        return datetime.datetime.now() - self.start_time

    def update_chart_data(self, value):
        self.x_axis_val.append(self.elapsed().total_seconds())
        self.y_axis_val.append(value)
        self.line.data_source.data = {"x": self.x_axis_val, "y": self.y_axis_val}
        self._push_render()


class LiveLearningCurve(LiveBokehChart):
    """Live training and validation curves of ``metric_name`` against minibatches."""

    def __init__(self, metric_name, display_freq=10, frequent=50):
        self.frequent = frequent
        self.start_time = datetime.datetime.now()
        self._data = {"train": {"elapsed": [], "value": []}, "eval": {"elapsed": [], "value": []}}
        super().__init__(None, metric_name, display_freq, frequent=frequent)

    def setup_chart(self):
        self.fig = self._bokeh.plotting.figure(x_axis_label="minibatches", y_axis_label=self.metric_name)
        self.train_line = self.fig.line([], [], legend_label="train")
        self.eval_line = self.fig.line([], [], color="red", legend_label="validation")
        self.handle = self._bokeh.io.show(self.fig, notebook_handle=True)

    def batch_cb(self, param):
        if param.nbatch % self.frequent == 0:
            self._process_batch(param, "train")
        if self.interval_elapsed():
            self._do_update()

    def eval_cb(self, param):
        self._process_batch(param, "eval")
        self._do_update()

    def _process_batch(self, param, table):
        if param.eval_metric is None:
            return
        values = dict(param.eval_metric.get_name_value())
        if self.metric_name not in values:
            return
        self._data[table]["elapsed"].append(param.nbatch + (param.epoch or 0) * 10 ** 6)
        self._data[table]["value"].append(values[self.metric_name])

    def update_chart_data(self):
        for line, table in ((self.train_line, "train"), (self.eval_line, "eval")):
            line.data_source.data = {"x": self._data[table]["elapsed"], "y": self._data[table]["value"]}


def args_wrapper(*args):
    """Merge the ``callback_args()`` of several loggers / charts into one dict for ``fit``:
    each callback kind becomes a list of the callbacks given for it."""
    merged = {}
    for item in args:
        for key, value in item.callback_args().items():
            merged.setdefault(key, []).append(value)
    return merged
