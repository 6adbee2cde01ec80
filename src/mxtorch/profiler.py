"""``mx.profiler``: MXNet 1.9.1's profiler API on ``torch.profiler``.

Use as in MXNet::

    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename='profile.json')
    mx.profiler.set_state('run')
    ...                                  # work to profile
    mx.profiler.set_state('stop')
    print(mx.profiler.dumps())           # aggregate table (needs aggregate_stats=True)
    mx.profiler.dump()                   # chrome://tracing JSON written to `filename`

``set_state('run')`` starts a ``torch.profiler.profile`` session (CPU, plus CUDA when
torch sees a GPU); ``pause()`` / ``resume()`` end the session and start a new one, so
work done while paused is not recorded.  Every torch operator run while recording
(mxtorch's operators run as torch operators) appears in the trace and in the
``operator`` category of ``dumps``.

``Domain`` / ``Task`` / ``Frame`` / ``Event`` / ``Counter`` / ``Marker`` are kept by
mxtorch itself: a Task, Frame or Event is a ``torch.profiler.record_function`` range (so
torch operators nest under it in the trace) whose durations are aggregated under the
category of its domain (``<domain>``, ``<domain>,frame``, ``event``); counter values
become chrome-trace counter events (``"ph": "C"``), marks instant events (``"ph": "i"``).
They are recorded only while the profiler runs and is not paused.

Configuration keys and their MXNet defaults: ``filename='profile.json'``,
``profile_all=False``, ``profile_symbolic=True``, ``profile_imperative=True``,
``profile_memory=True``, ``profile_api=True``, ``continuous_dump=True``,
``dump_period=1.0``, ``aggregate_stats=False``, ``profile_process='worker'``.
Differences from MXNet, documented:

- torch records every operator, symbolic or imperative, so ``profile_symbolic``,
  ``profile_imperative`` and ``profile_api`` are accepted but select nothing;
  ``profile_memory`` (or ``profile_all``) turns on torch's memory profiling.
- no file is written in the background: ``continuous_dump`` and ``dump_period`` are
  accepted and ignored; call ``dump()``.  Every ``dump()`` writes the whole trace
  recorded so far as one valid JSON file (MXNet appended to the file).
- ``profile_process='server'`` is accepted and ignored with a warning: mxtorch's
  distributed kvstore runs on torch.distributed and has no server processes.
- ``dumps`` lists counters in a table of their own (count, min, max, last value) rather
  than in time columns, and has no ``Device Storage`` memory table.
"""
from __future__ import annotations

import json
import os
import tempfile
import threading
import time
import warnings

from .base import MXNetError, parse_bool
from .util import atomic_write
# names MXNet 1.9.1's mxnet.profiler had in its namespace from its ctypes binding
from .base import (KVStoreHandle, ProfileHandle, c_str, c_str_array, check_call, py_str)  # noqa: E402,F401

__all__ = ["set_config", "profiler_set_config", "set_state", "profiler_set_state", "dump", "dump_profile",
           "dumps", "pause", "resume", "set_kvstore_handle", "Domain", "Task", "Frame", "Event", "Counter",
           "Marker"]

_DEFAULTS = {
    "profile_all": False, "profile_symbolic": True, "profile_imperative": True, "profile_memory": True,
    "profile_api": True, "filename": "profile.json", "continuous_dump": True, "dump_period": 1.0,
    "aggregate_stats": False, "profile_process": "worker",
}
_PROCESSES = ("worker", "server")
_SORT_KEYS = ("total", "avg", "min", "max", "count")
_FORMATS = ("table", "json")

profiler_kvstore_handle = None


class _Statistic:
    """Count, total, min and max of the durations (ms) or values recorded under one name."""

    __slots__ = ("count", "total", "minimum", "maximum", "last")

    def __init__(self):
        self.count, self.total, self.minimum, self.maximum, self.last = 0, 0.0, None, None, None

    def add(self, value):
        self.count += 1
        self.total += value
        self.minimum = value if self.minimum is None else min(self.minimum, value)
        self.maximum = value if self.maximum is None else max(self.maximum, value)
        self.last = value

    @property
    def average(self):
        return self.total / self.count if self.count else 0.0

    def sort_value(self, key):
        return {"total": self.total, "avg": self.average, "min": self.minimum or 0.0,
                "max": self.maximum or 0.0, "count": self.count}[key]


class _Profiler:
    """The process-wide profiler state (MXNet has one profiler per process)."""

    def __init__(self):
        self.lock = threading.RLock()
        self.config = dict(_DEFAULTS)
        self.running = False
        self.paused = False
        self.session = None
        self.trace = []                 # chrome-trace events of finished sessions and local objects
        self.metadata = {}              # deduplicated "ph": "M" events
        self.times = {}                 # category -> name -> _Statistic of durations (ms)
        self.counters = {}              # domain -> name -> _Statistic of values
        self.annotations = {}           # record_function name -> category, for the trace

    @property
    def recording(self):
        return self.running and not self.paused

    def add_time(self, category, name, milliseconds):
        if self.config["aggregate_stats"]:
            self.times.setdefault(category, {}).setdefault(name, _Statistic()).add(milliseconds)

    # -- torch sessions -----------------------------------------------------------------------
    def start_session(self):
        import torch
        from torch.profiler import ProfilerActivity, profile
        activities = [ProfilerActivity.CPU]
        if torch.cuda.is_available():
            activities.append(ProfilerActivity.CUDA)
        memory = bool(self.config["profile_memory"] or self.config["profile_all"])
        session = profile(activities=activities, profile_memory=memory)
        try:
            session.start()
        except RuntimeError as error:
            raise MXNetError(f"profiler: torch.profiler could not start ({error}); is another profiler "
                             f"running?") from None
        self.session = session

    def end_session(self):
        session, self.session = self.session, None
        if session is None:
            return
        session.stop()
        handle, path = tempfile.mkstemp(prefix="mxtorch-profile-", suffix=".json")
        os.close(handle)
        try:
            session.export_chrome_trace(path)
            with open(path, encoding="utf-8") as stream:
                exported = json.load(stream)
        finally:
            os.unlink(path)
        self._merge_trace(exported)
        if self.config["aggregate_stats"]:
            self._aggregate(session.events())

    def _merge_trace(self, exported):
        """Add torch's events with absolute timestamps (microseconds since the epoch, as MXNet
        wrote them); our record_function ranges get their domain as category."""
        offset = exported.get("baseTimeNanoseconds", 0) / 1000.0
        for event in exported.get("traceEvents", []):
            event = dict(event)
            if "ts" in event:
                event["ts"] = float(event["ts"]) + offset
            if event.get("ph") == "M":
                key = json.dumps({k: v for k, v in event.items() if k != "ts"}, sort_keys=True)
                self.metadata.setdefault(key, event)
                continue
            if event.get("cat") == "user_annotation" and event.get("name") in self.annotations:
                event["cat"] = self.annotations[event["name"]]
            self.trace.append(event)

    def _aggregate(self, events):
        for event in events:
            if getattr(event, "is_user_annotation", False) and event.name in self.annotations:
                continue                  # our Task/Frame/Event ranges are timed locally
            device = str(getattr(event, "device_type", "cpu")).rsplit(".", 1)[-1].lower()
            if device == "cpu":
                self.add_time("operator", event.name, event.cpu_time_total / 1000.0)
            else:
                total = getattr(event, "device_time_total", None)
                if total is None:
                    total = getattr(event, "cuda_time_total", 0.0)
                self.add_time(f"{device} kernel", event.name, total / 1000.0)

    def flush(self, restart):
        """Collect what the running session recorded; start a new session if ``restart``."""
        if self.session is not None:
            self.end_session()
            if restart:
                self.start_session()

    def local_event(self, event):
        event.setdefault("pid", os.getpid())
        event.setdefault("tid", threading.get_native_id())  # the id torch's trace uses
        self.trace.append(event)


_PROFILER = _Profiler()


def _now_us():
    return time.time_ns() / 1000.0


def _check_process(profile_process, function):
    if profile_process not in _PROCESSES:
        raise MXNetError(f"{function}: profile_process must be 'worker' or 'server', got {profile_process!r}")
    if profile_process == "server":
        warnings.warn(f"{function}(profile_process='server') is ignored: mxtorch's distributed kvstore has no "
                      f"server processes", RuntimeWarning, stacklevel=3)
        return False
    return True


def _parse_config_value(key, value):
    if key == "filename":
        return os.fspath(value) if not isinstance(value, str) else value
    if key == "dump_period":
        try:
            return float(value)
        except (TypeError, ValueError):
            raise MXNetError(f"set_config: dump_period must be a number of seconds, got {value!r}") from None
    if key == "profile_process":
        if value not in _PROCESSES:
            raise MXNetError(f"set_config: profile_process must be 'worker' or 'server', got {value!r}")
        return value
    return parse_bool(value, key)


def set_config(**kwargs):
    """Set profiler options (keywords only; see the module docstring for the keys and
    their defaults).  Options not given keep their current values.  An unknown key or a
    value of the wrong kind raises MXNetError naming the key.  Settings take effect at the
    next ``set_state('run')``."""
    unknown = sorted(set(kwargs) - set(_DEFAULTS))
    if unknown:
        raise MXNetError(f"set_config: unknown option(s) {unknown}; options are {sorted(_DEFAULTS)}")
    parsed = {key: _parse_config_value(key, value) for key, value in kwargs.items()}
    if parsed.get("profile_process") == "server":
        _check_process("server", "set_config")
        return
    with _PROFILER.lock:
        _PROFILER.config.update(parsed)


def profiler_set_config(mode="symbolic", filename="profile.json"):
    """Deprecated form of ``set_config``: ``mode`` 'symbolic' or 'all' turns on
    ``profile_symbolic`` or ``profile_all``; warns (DeprecationWarning)."""
    warnings.warn("profiler.profiler_set_config() is deprecated; use profiler.set_config()",
                  DeprecationWarning, stacklevel=2)
    if mode not in ("symbolic", "all"):
        raise MXNetError(f"profiler_set_config: mode must be 'symbolic' or 'all', got {mode!r}")
    set_config(**{"profile_" + mode: True, "filename": filename})


def set_state(state="stop", profile_process="worker"):
    """Start (``'run'``) or stop (``'stop'``) recording.  Running again while running, or
    stopping while stopped, does nothing.  Stopping keeps what was recorded for
    ``dump`` / ``dumps``.  Another state raises MXNetError."""
    if state not in ("run", "stop"):
        raise MXNetError(f"set_state: state must be 'run' or 'stop', got {state!r}")
    if not _check_process(profile_process, "set_state"):
        return
    with _PROFILER.lock:
        if state == "run" and not _PROFILER.running:
            _PROFILER.start_session()
            _PROFILER.running, _PROFILER.paused = True, False
        elif state == "stop" and _PROFILER.running:
            _PROFILER.flush(restart=False)
            _PROFILER.running, _PROFILER.paused = False, False


def profiler_set_state(state="stop"):
    """Deprecated form of ``set_state``; warns (DeprecationWarning)."""
    warnings.warn("profiler.profiler_set_state() is deprecated; use profiler.set_state()",
                  DeprecationWarning, stacklevel=2)
    set_state(state)


def pause(profile_process="worker"):
    """Stop recording until ``resume()``, keeping the profiler in the 'run' state (no
    effect when it is not running or already paused)."""
    if not _check_process(profile_process, "pause"):
        return
    with _PROFILER.lock:
        if _PROFILER.recording:
            _PROFILER.flush(restart=False)
            _PROFILER.paused = True


def resume(profile_process="worker"):
    """Resume recording after ``pause()`` (no effect otherwise)."""
    if not _check_process(profile_process, "resume"):
        return
    with _PROFILER.lock:
        if _PROFILER.running and _PROFILER.paused:
            _PROFILER.start_session()
            _PROFILER.paused = False


def dump(finished=True, profile_process="worker"):
    """Write everything recorded so far to the configured ``filename`` as a chrome://tracing
    JSON file (``{"traceEvents": [...], "displayTimeUnit": "ms"}``, timestamps in
    microseconds since the epoch), atomically.  ``finished=True`` also stops the
    profiler (as ``set_state('stop')``); ``finished=False`` keeps it recording.  Raises
    MXNetError when the file cannot be written."""
    if not _check_process(profile_process, "dump"):
        return
    with _PROFILER.lock:
        if _PROFILER.recording:
            _PROFILER.flush(restart=not finished)
        if finished:
            _PROFILER.running, _PROFILER.paused = False, False
        events = list(_PROFILER.metadata.values()) + sorted(_PROFILER.trace, key=lambda e: e.get("ts", 0.0))
        payload = json.dumps({"traceEvents": events, "displayTimeUnit": "ms"}).encode("utf-8")
        atomic_write(_PROFILER.config["filename"], payload)


def dump_profile():
    """Deprecated form of ``dump()``; warns (DeprecationWarning)."""
    warnings.warn("profiler.dump_profile() is deprecated; use profiler.dump()", DeprecationWarning, stacklevel=2)
    dump(True)


def _sorted_rows(table, sort_by, ascending):
    return sorted(table.items(), key=lambda item: item[1].sort_value(sort_by), reverse=not ascending)


def _name_column(name):
    """The name padded to the 30-character first column (a longer name and one space)."""
    return f"{name:<30}" if len(name) < 30 else name + " "


def _table_text(times, counters, sort_by, ascending):
    lines = ["", "Profile Statistics:", "\tNote the difference in units for different entries."]
    sections = [(category, "time", table) for category, table in times.items()] + \
               [(f"{domain} (counters)", "value", table) for domain, table in counters.items()]
    for title, kind, table in sorted(sections, key=lambda section: section[0]):
        lines += [title, "================="]
        if kind == "time":
            lines.append(f"{'Name':<30}{'Total Count':>11}{'Time (ms)':>17}{'Min Time (ms)':>17}"
                         f"{'Max Time (ms)':>17}{'Avg Time (ms)':>17}")
            lines.append(f"{'----':<30}{'-' * 11:>11}{'-' * 9:>17}{'-' * 13:>17}{'-' * 13:>17}{'-' * 13:>17}")
            for name, stat in _sorted_rows(table, sort_by, ascending):
                lines.append(f"{_name_column(name)}{stat.count:>11}{stat.total:>17.4f}{stat.minimum:>17.4f}"
                             f"{stat.maximum:>17.4f}{stat.average:>17.4f}")
        else:
            lines.append(f"{'Name':<30}{'Total Count':>11}{'Min Value':>17}{'Max Value':>17}{'Last Value':>17}")
            lines.append(f"{'----':<30}{'-' * 11:>11}{'-' * 9:>17}{'-' * 9:>17}{'-' * 10:>17}")
            for name, stat in _sorted_rows(table, sort_by, ascending):
                lines.append(f"{_name_column(name)}{stat.count:>11}{stat.minimum:>17g}{stat.maximum:>17g}"
                             f"{stat.last:>17g}")
        lines.append("")
    return "\n".join(lines) + "\n"


def _json_text(times, counters, sort_by, ascending):
    document = {"Time": {category: {name: {"Count": stat.count, "Total": round(stat.total, 6),
                                           "Min": round(stat.minimum, 6), "Max": round(stat.maximum, 6),
                                           "Avg": round(stat.average, 6)}
                                    for name, stat in _sorted_rows(table, sort_by, ascending)}
                         for category, table in sorted(times.items())}}
    if counters:
        document["Counter"] = {domain: {name: {"Count": stat.count, "Min": stat.minimum, "Max": stat.maximum,
                                               "Last": stat.last}
                                        for name, stat in _sorted_rows(table, sort_by, ascending)}
                               for domain, table in sorted(counters.items())}
    document["Unit"] = {"Time": "ms"}
    return json.dumps(document, indent=4)


def dumps(reset=False, format="table", sort_by="total", ascending=False):
    """The aggregate statistics recorded so far as text: for each category (``operator``
    for torch operators, one per profiling domain, ``event``) a row per name with its
    count and total / min / max / average time in milliseconds, sorted by ``sort_by``
    ('total', 'avg', 'min', 'max' or 'count'), descending unless ``ascending``; then
    each domain's counters.  ``format='json'`` gives the same as a JSON document
    (``{"Time": {category: {name: {"Count", "Total", "Min", "Max", "Avg"}}}, "Counter":
    ..., "Unit": {"Time": "ms"}}``).  ``reset=True`` clears the statistics afterwards.

    Statistics are kept only with ``set_config(aggregate_stats=True)``; without it the
    result is ``''``, as MXNet's.  Bad arguments raise MXNetError.
    """
    if format not in _FORMATS:
        raise MXNetError(f"dumps: format must be 'table' or 'json', got {format!r}")
    if sort_by not in _SORT_KEYS:
        raise MXNetError(f"dumps: sort_by must be one of {list(_SORT_KEYS)}, got {sort_by!r}")
    if not isinstance(ascending, bool) or not isinstance(reset, bool):
        raise MXNetError(f"dumps: reset and ascending must be True or False, got reset={reset!r}, "
                         f"ascending={ascending!r}")
    with _PROFILER.lock:
        if not _PROFILER.config["aggregate_stats"]:
            return ""
        if _PROFILER.recording:
            _PROFILER.flush(restart=True)
        write = _table_text if format == "table" else _json_text
        text = write(_PROFILER.times, _PROFILER.counters, sort_by, ascending)
        if reset:
            _PROFILER.times, _PROFILER.counters = {}, {}
        return text


def set_kvstore_handle(handle):
    """Record the kvstore whose server processes MXNet would profile (kept, unused: see
    ``profile_process`` in the module docstring)."""
    global profiler_kvstore_handle
    profiler_kvstore_handle = handle


def _check_name(name, what):
    if not isinstance(name, str) or not name:
        raise MXNetError(f"profiler.{what}: name must be a non-empty str, got {name!r}")
    return name


def _check_domain(domain, what):
    if not isinstance(domain, Domain):
        raise MXNetError(f"profiler.{what}: domain must be a profiler.Domain, got {type(domain).__name__}")
    return domain


class Domain:
    """A named group of tasks, frames, counters and markers (a category in the trace and in
    ``dumps``).  ``str(domain)`` is its name."""

    def __init__(self, name):
        self.name = _check_name(name, "Domain")

    def __str__(self):
        return self.name

    def new_task(self, name):
        """A Task in this domain."""
        return Task(self, name)

    def new_frame(self, name):
        """A Frame in this domain."""
        return Frame(self, name)

    def new_counter(self, name, value=None):
        """A Counter in this domain, starting at ``value`` when given."""
        return Counter(self, name, value)

    def new_marker(self, name):
        """A Marker in this domain."""
        return Marker(self, name)


class _Range:
    """A timed range: ``start()`` ... ``stop()``, recorded when the profiler was recording at
    ``start()``; a ``torch.profiler.record_function`` range in the trace."""

    _kind = "range"

    def __init__(self, category, name):
        self.name = name
        self._category = category
        self._range = None
        self._started_ns = None
        self._record = False

    def start(self):
        """Start timing.  MXNetError when already started."""
        if self._started_ns is not None:
            raise MXNetError(f"profiler.{type(self).__name__} {self.name!r}: start() called twice without stop()")
        import torch
        with _PROFILER.lock:
            self._record = _PROFILER.recording
            _PROFILER.annotations[self.name] = self._category
        self._range = torch.profiler.record_function(self.name)
        self._range.__enter__()
        self._started_ns = time.perf_counter_ns()

    def stop(self):
        """Stop timing and record the duration.  MXNetError when not started."""
        if self._started_ns is None:
            raise MXNetError(f"profiler.{type(self).__name__} {self.name!r}: stop() called before start()")
        elapsed_ms = (time.perf_counter_ns() - self._started_ns) / 1e6
        self._range.__exit__(None, None, None)
        self._range, self._started_ns = None, None
        if self._record:
            with _PROFILER.lock:
                _PROFILER.add_time(self._category, self.name, elapsed_ms)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def __str__(self):
        return self.name


class Task(_Range):
    """A unit of work in ``domain``: every pass from ``start()`` to ``stop()`` is added to
    one statistic named ``name`` in the domain's category.  Also a context manager."""

    def __init__(self, domain, name):
        domain = _check_domain(domain, "Task")
        super().__init__(domain.name, _check_name(name, "Task"))
        self.domain = domain


class Frame(_Range):
    """A frame (one pass of a repeated unit, e.g. a batch) in ``domain``: recorded in the
    ``<domain>,frame`` category.  Also a context manager."""

    def __init__(self, domain, name):
        domain = _check_domain(domain, "Frame")
        super().__init__(f"{domain.name},frame", _check_name(name, "Frame"))
        self.domain = domain


class Event(_Range):
    """A named timed range outside any domain: recorded in the ``event`` category.  Also a
    context manager."""

    def __init__(self, name):
        super().__init__("event", _check_name(name, "Event"))


class Counter:
    """An integer value tracked over time in ``domain``, starting at ``value`` (0 when
    None).  ``set_value``, ``increment``, ``decrement``, ``+=`` and ``-=`` change it;
    each change while recording is a counter event in the trace and a sample in
    ``dumps``'s counter table.  ``value`` reads it."""

    def __init__(self, domain, name, value=None):
        self.domain = _check_domain(domain, "Counter")
        self.name = _check_name(name, "Counter")
        self.value = 0
        if value is not None:
            self.set_value(value)

    def _changed(self):
        with _PROFILER.lock:
            if not _PROFILER.recording:
                return
            _PROFILER.local_event({"name": self.name, "cat": self.domain.name, "ph": "C", "ts": _now_us(),
                                   "args": {self.name: self.value}})
            if _PROFILER.config["aggregate_stats"]:
                _PROFILER.counters.setdefault(self.domain.name, {}).setdefault(self.name, _Statistic()).add(
                    self.value)

    def set_value(self, value):
        """Set the counter to ``value`` (an int)."""
        self.value = int(value)
        self._changed()

    def increment(self, delta=1):
        """Add ``delta`` (an int)."""
        self.value += int(delta)
        self._changed()

    def decrement(self, delta=1):
        """Subtract ``delta`` (an int)."""
        self.value -= int(delta)
        self._changed()

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self

    def __str__(self):
        return self.name


_MARKER_SCOPES = {"global": "g", "process": "p", "thread": "t", "task": "t", "marker": "t"}


class Marker:
    """A named instant in ``domain``: ``mark(scope)`` records an instant event (and a count
    in the ``<domain>,instant_marker`` category of ``dumps``) while recording."""

    def __init__(self, domain, name):
        self.domain = _check_domain(domain, "Marker")
        self.name = _check_name(name, "Marker")

    def mark(self, scope="process"):
        """Record the instant; ``scope`` is 'global', 'process', 'thread', 'task' or 'marker'
        (chrome tracing draws the first three; the last two are drawn as 'thread').  Another
        scope raises MXNetError."""
        if scope not in _MARKER_SCOPES:
            raise MXNetError(f"Marker.mark: scope must be one of {list(_MARKER_SCOPES)}, got {scope!r}")
        with _PROFILER.lock:
            if not _PROFILER.recording:
                return
            _PROFILER.local_event({"name": self.name, "cat": self.domain.name, "ph": "i", "ts": _now_us(),
                                   "s": _MARKER_SCOPES[scope]})
            _PROFILER.add_time(f"{self.domain.name},instant_marker", self.name, 0.0)

    def __str__(self):
        return self.name

# the C library object MXNet's module held (``from .base import _LIB``; see base_ctypes._CLibrary)
from .base_ctypes import _LIB  # noqa: E402,F401
