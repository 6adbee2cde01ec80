"""Per-thread defaults: Context.default_ctx, AttrScope.current, NameManager.current and the
NumPy-array scope are each thread's own, as in MXNet 1.9.1 (assigning them in one thread
leaves the others alone)."""
import threading

import pytest

import mxtorch as mx
from mxtorch import test_utils, util
from mxtorch.attribute import AttrScope
from mxtorch.base import MXNetError
from mxtorch.context import Context
from mxtorch.name import NameManager


def _in_thread(function):
    seen = []
    thread = threading.Thread(target=lambda: seen.append(function()))
    thread.start()
    thread.join()
    return seen[0]


def test_set_default_context_is_per_thread():
    assert Context.default_ctx == mx.cpu(0)
    def spawned():
        test_utils.set_default_context(mx.gpu(11))
        return Context.default_ctx, test_utils.default_context()
    assert _in_thread(spawned) == (mx.gpu(11), mx.gpu(11))
    assert Context.default_ctx == mx.cpu(0) and test_utils.default_context() == mx.cpu(0)


def test_attrscope_current_assignment_is_per_thread():
    saved = AttrScope.current
    try:
        AttrScope.current = AttrScope(y="hi")
        def spawned():
            before = dict(AttrScope.current._attr)
            AttrScope.current = AttrScope(x="a")
            return before, AttrScope.current._attr
        # a new thread starts with an empty scope and its assignment stays in it
        assert _in_thread(spawned) == ({}, {"x": "a"})
        assert AttrScope.current._attr == {"y": "hi"}
        assert mx.sym.var("v").attr("y") == "hi"
        with pytest.raises(MXNetError, match="AttrScope.current: expected an AttrScope"):
            AttrScope.current = {"y": "hi"}
    finally:
        AttrScope.current = saved


def test_name_manager_current_assignment_is_per_thread():
    saved = NameManager.current
    try:
        NameManager.current = NameManager()
        assert NameManager.current.get(None, "main") == "main0"
        def spawned():
            NameManager.current = NameManager()
            return NameManager.current.get(None, "main"), mx.sym.FullyConnected(num_hidden=2).name
        # the spawned thread counts from zero; the main thread's counters are untouched
        assert _in_thread(spawned) == ("main0", "fullyconnected0")
        assert NameManager.current.get(None, "main") == "main1"
        with pytest.raises(MXNetError, match="NameManager.current: expected a NameManager"):
            NameManager.current = "main"
    finally:
        NameManager.current = saved


def test_numpy_array_scope_is_per_thread():
    assert util.is_np_array() is False
    with util.np_array(False) as scope:
        assert isinstance(scope, util._NumpyArrayScope) and scope._is_np_array is False
        assert _in_thread(lambda: getattr(util._NumpyArrayScope._current, "value", None)) is None
        assert util.is_np_array() is False
    with util.np_array(True):
        assert util.is_np_array() is True
        assert _in_thread(util.is_np_array) is False      # another thread keeps its own scope
        with util.np_array(False):
            assert util.is_np_array() is False
        assert util.is_np_array() is True
    assert util.is_np_array() is False


def test_numpy_shape_semantics_on_in_every_thread_with_2():
    from mxtorch import np as mx_np
    try:
        util.set_np_shape(2)          # MXNet's GlobalOn
        assert _in_thread(util.is_np_shape) is True
        assert _in_thread(lambda: mx_np.ones(shape=(0, 1, 2)).shape) == (0, 1, 2)
    finally:
        util.set_np_shape(0)
    assert util.is_np_shape() is False and _in_thread(util.is_np_shape) is False
    util.set_np_shape(True)
    try:
        assert _in_thread(util.is_np_shape) is False    # 1 / True: this thread only
    finally:
        util.set_np_shape(False)
