"""The MXNetError family: every error class mxtorch raises, at the bottom of the package.

``mxtorch.base`` re-exports them under MXNet's names (``mxnet.base.MXNetError``); this file
imports nothing of mxtorch, so every layer, ``base_ctypes`` included, can raise them.
"""
from __future__ import annotations


class MXNetError(RuntimeError):
    """The error every mxtorch failure raises (MXNet's ``mxnet.base.MXNetError``).

    The message names the operator or argument, what was expected and what was
    given.  It derives from ``RuntimeError`` like MXNet's did, so existing
    ``except MXNetError`` and ``except RuntimeError`` handlers keep working.
    """


class OperatorRunError(MXNetError):
    """An error of an operator's computation that MXNet's engine reported late: not at the call
    but at the next wait on the operator's outputs (``asnumpy``, ``wait_to_read``,
    ``mx.nd.waitall``).  Operators raise it for the checks MXNet made while computing (a sampler's
    parameter range); ``mxtorch.ndarray.pending`` defers it the same way."""


class OperatorRunValueError(OperatorRunError, ValueError):
    """An :class:`OperatorRunError` for a bad argument value found while computing, where MXNet's
    kernel reported ``ValueError`` (a sampler's ``scale < 0``, a failed ``npx.constraint_check``):
    raised at the next wait on the outputs, as both an OperatorRunError and a ValueError."""


class MXNetValueError(MXNetError, ValueError):
    """Bad argument values where MXNet raised ValueError: both an MXNetError and a ValueError,
    so handlers written for either keep working."""


class MXNetTypeError(MXNetError, TypeError):
    """Arguments of the wrong type where MXNet raised TypeError: both an MXNetError and a
    TypeError, so handlers written for either keep working."""


class MXNetAssertionError(MXNetError, AssertionError):
    """Invalid use MXNet reported with an ``assert`` (a foreach data or state input the loop body
    does not use, a module used before bind, a parameter missing from a file, an unknown
    metric name): both an MXNetError and an AssertionError."""


class MXNetIndexError(MXNetError, IndexError):
    """An index out of range where MXNet raised IndexError (``gather_nd``, a metric's label
    beyond the prediction's classes): both an MXNetError and an IndexError."""


class MXNetUserWarning(MXNetError, UserWarning):
    """Misuse MXNet reported by raising UserWarning (``Optimizer.set_learning_rate`` with an
    lr_scheduler): both an MXNetError and a UserWarning, so handlers for either keep working."""


class MissingDependencyError(MXNetError, ImportError):
    """An optional dependency that a feature needs is not installed (``onnx`` for ``to_onnx``,
    matplotlib for ``plot-log``): both an MXNetError and an ImportError, so ``except
    ImportError`` handlers keep working and ``mxtorch``'s command line reports it as one line.
    ``name`` is the missing module, ``extra`` the ``pip install 'mxtorch[EXTRA]'`` that brings it."""

    def __init__(self, feature, module, extra):
        super().__init__(f"{feature} needs the optional dependency {module}, which is not installed: "
                         f"pip install 'mxtorch[{extra}]'")
        self.name = module
        self.extra = extra
        self._arguments = (feature, module, extra)

    def __reduce__(self):           # pickles (worker processes) rebuild it from its arguments
        return type(self), self._arguments


class NotImplementedForSymbol(MXNetError):
    """Raised when an NDArray-only function is called on a Symbol."""

    def __init__(self, function, alias=None, *args):
        name = getattr(function, "__name__", str(function))
        message = f"Function {name} is not implemented for Symbol"
        if alias:
            message += f" (alias {alias})"
        super().__init__(message)


class NotSupportedForSparseNDArray(MXNetError):
    """Raised when a dense-only function is called on a sparse array.

    ``function`` is the function (its ``__name__`` is reported), ``alias`` the operator
    name it stands for (or None) and ``args`` the arguments given (their types are
    reported), as MXNet's exception of the same name.
    """

    def __init__(self, function, alias=None, *args):
        name = getattr(function, "__name__", str(function))
        types = [str(type(value)) for value in args]
        message = f"Function {name}"
        if alias:
            message += f' (namely operator "{alias}")'
        if types:
            message += f" with arguments ({', '.join(types)})"
        message += " is not supported for SparseNDArray and only available in NDArray."
        super().__init__(message)
        self.function = name
        self.alias = alias
        self.args = types
        self.message = message

    def __str__(self):
        return self.message


# MXNet's classes lived in mxnet.base: tracebacks and pickles name them there (base re-exports them)
for _error in (MXNetError, OperatorRunError, OperatorRunValueError, MXNetValueError, MXNetTypeError, MXNetAssertionError,
               MXNetIndexError, MXNetUserWarning, MissingDependencyError, NotImplementedForSymbol,
               NotSupportedForSparseNDArray):
    _error.__module__ = "mxtorch.base"
del _error
