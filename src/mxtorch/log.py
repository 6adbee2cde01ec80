"""Loggers with MXNet's glog-style line format (MXNet 1.9.1's ``mxnet.log``).

``get_logger(name)`` returns ``logging.getLogger(name)`` set up once: a handler (a
``FileHandler`` on ``filename`` opened with ``filemode``, default ``'a'``, else a
``StreamHandler`` to stderr with the coloured format below) and ``level`` (default WARNING).
Later calls with the same name return the same logger untouched; ``name=None`` returns the root
logger without adding a handler, as MXNet did.

A stream line reads ``<colour><L><MMDD HH:MM:SS> <pid> <path>:<function>:<line>]<reset> <message>``
where ``L`` is C/E/W/I/D (U for other levels) and the colour is red for WARNING and above,
green for INFO, blue below.
"""
import logging
import warnings

__all__ = ["CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG", "NOTSET", "getLogger", "get_logger"]

CRITICAL = logging.CRITICAL
ERROR = logging.ERROR
WARNING = logging.WARNING
INFO = logging.INFO
DEBUG = logging.DEBUG
NOTSET = logging.NOTSET

_LABELS = {CRITICAL: "C", ERROR: "E", WARNING: "W", INFO: "I", DEBUG: "D"}


class _Formatter(logging.Formatter):
    """The glog-like coloured line format described in the module docstring."""

    def __init__(self):
        super().__init__(datefmt="%m%d %H:%M:%S")

    @staticmethod
    def _colour(level):
        if level >= logging.WARNING:
            return "\x1b[31m"
        if level >= logging.INFO:
            return "\x1b[32m"
        return "\x1b[34m"

    def format(self, record):
        self._style._fmt = (self._colour(record.levelno) + _LABELS.get(record.levelno, "U")
                            + "%(asctime)s %(process)d %(pathname)s:%(funcName)s:%(lineno)d]"
                            + "\x1b[0m %(message)s")
        return super().format(record)


def getLogger(name=None, filename=None, filemode=None, level=WARNING):
    """Deprecated spelling of ``get_logger`` (warns DeprecationWarning, as MXNet)."""
    warnings.warn("getLogger is deprecated, Use get_logger instead.", DeprecationWarning, stacklevel=2)
    return get_logger(name, filename, filemode, level)


def get_logger(name=None, filename=None, filemode=None, level=WARNING):
    """The logger ``name``, given a handler and ``level`` the first time it is asked for (see the
    module docstring).  ``filename``: send the output to this file (mode ``filemode``, default
    ``'a'``, plain format) instead of stderr."""
    logger = logging.getLogger(name)
    if name is not None and not getattr(logger, "_init_done", None):
        logger._init_done = True
        if filename:
            handler = logging.FileHandler(filename, filemode if filemode else "a")
        else:
            handler = logging.StreamHandler()
            handler.setFormatter(_Formatter())
        logger.addHandler(handler)
        logger.setLevel(level)
    return logger
