"""MXNet 1.9.1's ctypes helpers, error registry and small legacy modules (``mxnet.base``'s C-binding
names, ``mxnet.error``, ``mxnet.log``, ``mxnet.misc``, ``mxnet.torch``) and their re-exports.

Expected values were produced with MXNet 1.9.1 (``/root/mxref``) running the same calls.
"""
import array
import ctypes
import logging
import sys

import numpy as np
import pytest

import mxtorch as mx
from mxtorch import base
from mxtorch.base import MXNetError
from mxtorch.base_ctypes import _set_last_error


def test_c_array_c_str_and_buffers_match_mxnet():
    values = base.c_array(base.mx_float, [1, 2, 3])
    assert isinstance(values, ctypes.Array) and values._type_ is ctypes.c_float
    assert list(values) == [1.0, 2.0, 3.0]
    assert list(base.c_array(ctypes.c_int, [1, 2])) == [1, 2]
    buffer = array.array("f", [1, 2, 3])
    shared = base.c_array_buf(base.mx_float, buffer)
    buffer[1] = 7.0                                  # no copy: the ctypes array sees the write
    assert list(shared) == [1.0, 7.0, 3.0]
    assert base.c_str("Hello").value == b"Hello"
    assert list(base.c_str_array(["a", "bc"])) == [b"a", b"bc"]
    assert base.mx_int64 is ctypes.c_int64 and base.mx_float_p is ctypes.POINTER(ctypes.c_float)
    assert base.NDArrayHandle is ctypes.c_void_p and base.CudaKernelHandle is ctypes.c_void_p
    assert base.long is int and base.basestring is str
    assert [name for name, _ in base.MXCallbackList._fields_] == ["num_callbacks", "callbacks", "contexts"]


def test_c_handle_array_reads_handles_and_names_objects_without_one():
    class Holder:
        handle = ctypes.c_void_p(1234)
    handles = base.c_handle_array([Holder(), Holder()])
    assert len(handles) == 2 and handles[0] == 1234
    with pytest.raises(AttributeError, match="NDArray has no C handle"):
        base.c_handle_array([mx.nd.ones(1)])
    with pytest.raises(MXNetError):
        base.c_handle_array([mx.nd.ones(1)])


def test_ctypes2buffer_and_numpy_shared_memory():
    raw = ctypes.create_string_buffer(b"abcd")
    assert base.ctypes2buffer(ctypes.cast(raw, ctypes.POINTER(ctypes.c_char)), 3) == bytearray(b"abc")
    with pytest.raises(TypeError, match="expected char pointer"):
        base.ctypes2buffer(1, 2)
    floats = (base.mx_float * 4)(1, 2, 3, 4)
    view = base.ctypes2numpy_shared(ctypes.cast(floats, base.mx_float_p), (2, 2))
    floats[0] = 9
    assert view.dtype == np.float32 and view.tolist() == [[9.0, 2.0], [3.0, 4.0]]
    with pytest.raises(RuntimeError, match="expected float pointer"):
        base.ctypes2numpy_shared(1, (2,))


def test_build_param_doc_and_add_fileline():
    # MXNet 1.9.1: num_args dropped, the duplicate 'a' dropped, empty descriptions leave no line
    doc = base.build_param_doc(["a", "num_args", "b", "a"], ["int", "int", "float", "int"],
                               ["desc a", "", "", "dup"])
    assert doc == "Parameters\n----------\na : int\n    desc a\nb : float\n"
    module = type(sys)("fileline_probe")

    def documented():
        """Doc."""
    module.documented = documented
    sys.modules["fileline_probe"] = module
    try:
        base.add_fileline_to_docstring("fileline_probe")
        assert documented.__doc__.startswith("Doc.\n\nFrom:") and __file__ in documented.__doc__
        base.add_fileline_to_docstring(module)        # a second pass adds nothing
        assert documented.__doc__.count("From:") == 1
    finally:
        del sys.modules["fileline_probe"]


def test_c2pyerror_moves_the_stack_trace_first():
    message, kind = base.c2pyerror("ValueError: bad thing\nStack trace:\n  File a\n  File b\nmore")
    assert (message, kind) == ("Traceback (most recent call last):\n  File b\n  File a\nValueError: bad thing\nmore",
                               "ValueError")
    assert base.c2pyerror("no colon here") == ("no colon here", None)


def test_check_call_raises_the_registered_error_of_the_last_message():
    base.check_call(0)
    _set_last_error("ValueError: bad value")
    with pytest.raises(ValueError, match="bad value"):
        base.check_call(-1)
    _set_last_error("mxnet.error.InternalError: boom")
    with pytest.raises(mx.error.InternalError, match="MXNet hint"):
        base.check_call(1)
    _set_last_error("SomethingElse: x")
    with pytest.raises(MXNetError, match="SomethingElse: x"):
        base.check_call(1)
    _set_last_error("")
    with pytest.raises(MXNetError, match="no error message was recorded"):
        base.check_call(-1)
    assert {"ValueError", "TypeError", "AttributeError", "IndexError", "NotImplementedError",
            "InternalError", "NotImplementedForSymbol"} <= set(base.error_types)


def test_register_error_by_class_and_by_name():
    @mx.error.register
    class ProbeError(MXNetError):
        pass

    @base.register_error("ProbeAlias")
    class ProbeOther(Exception):
        pass
    assert base.error_types["ProbeError"] is ProbeError and base.error_types["ProbeAlias"] is ProbeOther
    _set_last_error("ProbeAlias: via name")
    with pytest.raises(ProbeOther):
        base.check_call(3)


def test_classproperty_and_with_metaclass():
    from mxtorch.base_ctypes import _ClassPropertyMeta

    class Scoped(base.with_metaclass(_ClassPropertyMeta, object)):
        _value = 1

        @base.classproperty
        def value(cls):
            return cls._value

        @value.setter
        def value(cls, new):
            cls._value = new
    assert Scoped.value == 1 and Scoped().value == 1
    Scoped.value = 5
    assert Scoped._value == 5 and Scoped().value == 5
    assert type(Scoped) is _ClassPropertyMeta and Scoped.__mro__[1] is object

    class ReadOnly(base.with_metaclass(_ClassPropertyMeta, object)):
        @base.classproperty
        def value(cls):
            return 3
    with pytest.raises(MXNetError, match="cannot use the setter"):
        ReadOnly.value = 4


def test_modules_reexport_the_base_objects():
    import mxtorch.executor
    import mxtorch.kvstore.kvstore
    import mxtorch.operator
    assert mxtorch.executor.check_call is base.check_call and mxtorch.operator.c_str is base.c_str
    assert mxtorch.kvstore.kvstore.KVStoreHandle is ctypes.c_void_p
    assert mxtorch.operator.c_int_p is ctypes.POINTER(ctypes.c_int)
    assert isinstance(mx.nd.ones(1), mx.ndarray.ndarray.NDArrayBase)
    assert isinstance(mx.sym.var("x"), mx.symbol.symbol.SymbolBase)


def test_log_get_logger_format_and_levels(tmp_path, capsys):
    logger = mx.log.get_logger("mxtorch_probe_logger", level=mx.log.INFO)
    assert logger is mx.log.get_logger("mxtorch_probe_logger") and logger.level == logging.INFO
    assert len(logger.handlers) == 1
    logger.info("hello")
    line = capsys.readouterr().err
    assert line.startswith("\x1b[32mI") and line.rstrip().endswith("]\x1b[0m hello")
    logger.debug("hidden")
    assert capsys.readouterr().err == ""
    path = tmp_path / "log.txt"
    file_logger = mx.log.get_logger("mxtorch_probe_file", filename=str(path), level=mx.log.WARNING)
    file_logger.warning("to file")
    file_logger.handlers[0].flush()
    assert path.read_text().strip() == "to file"
    with pytest.warns(DeprecationWarning, match="getLogger is deprecated"):
        mx.log.getLogger("mxtorch_probe_logger")


def test_misc_factor_scheduler():
    from mxtorch import misc
    scheduler = misc.FactorScheduler(step=2, factor=0.5)
    # MXNet 1.9.1: base_lr 0.01, halved every 2 iterations
    assert [scheduler(i) for i in range(5)] == [0.01, 0.01, 0.005, 0.005, 0.0025]
    with pytest.raises(ValueError):
        misc.FactorScheduler(step=0)
    with pytest.raises(ValueError):
        misc.FactorScheduler(step=1, factor=1.0)


def test_torch_plugin_module_explains_the_missing_plugin():
    from mxtorch import torch as legacy_torch
    assert legacy_torch.NDArray is mx.nd.NDArray and not hasattr(legacy_torch, "abs")
    with pytest.raises(MXNetError, match="Lua Torch plug-in"):
        legacy_torch.abs
