"""MXNet 1.9.1's private module names that real code imports, with MXNet's values and behaviour.

Expected values are MXNet 1.9.1's (read from the real library: ~/mxref) or computed here
independently (NumPy).
"""
import ctypes
import sys
import types

import numpy as np
import pytest

import mxtorch as mx
from mxtorch import base


# -- mxnet.base ------------------------------------------------------------------------------------
def test_base_operator_name_tables_are_mxnets():
    assert base._OP_NAME_PREFIX_LIST == ['_contrib_', '_linalg_', '_sparse_', '_image_', '_random_']
    assert (base._NP_OP_PREFIX, base._NP_EXT_OP_PREFIX, base._NP_INTERNAL_OP_PREFIX) == ('_np_', '_npx_', '_npi_')
    assert base._NP_OP_SUBMODULE_LIST == ['_random_', '_linalg_']
    assert base._NP_EXT_OP_SUBMODULE_LIST == ['_image_', '_random_']
    assert base._NP_OUTPUT_IS_LIST_OPERATORS == {'_npi_split', '_npi_hsplit'}


def test_base_operator_name_helpers():
    assert base._get_op_name_prefix("_contrib_box_nms") == "_contrib_"
    assert base._get_op_name_prefix("_random_uniform") == "_random_"
    assert base._get_op_name_prefix("FullyConnected") == ""
    assert base._get_op_submodule_name("_np__random_uniform", "_np_", base._NP_OP_SUBMODULE_LIST) == "_random_"
    assert base._get_op_submodule_name("_np_random_uniform", "_np_", base._NP_OP_SUBMODULE_LIST) == ""
    assert base._get_op_submodule_name("_np_sum", "_np_", base._NP_OP_SUBMODULE_LIST) == ""
    with pytest.raises(AssertionError):
        base._get_op_submodule_name("sum", "_np_", [])
    assert base._is_np_op("_npi_add") and base._is_np_op("_npx_relu") and not base._is_np_op("relu")
    assert base._output_is_list("_npi_split") and not base._output_is_list("_npi_add")
    assert not base._output_is_list("split")


def test_base_error_name_helpers():
    assert base._find_error_type("ValueError: bad value") == "ValueError"
    assert base._find_error_type("mxnet.error.InternalError: x") == "mxnet.error.InternalError"
    assert base._find_error_type("no colon here") is None
    assert base._find_error_type("two words: x") is None
    assert base._valid_error_name("Value_Error.x1") and not base._valid_error_name("a b")


def test_base_class_property_names():
    class Holder(base.with_metaclass(base._MXClassPropertyMetaClass, object)):
        _value = 1

        @base.classproperty
        def value(cls):
            return cls._value

        @value.setter
        def value(cls, new):
            cls._value = new

    assert isinstance(Holder.__dict__["value"], base._MXClassPropertyDescriptor)
    Holder.value = 5
    assert Holder.value == 5 and Holder._value == 5
    assert mx.context._MXClassPropertyMetaClass is base._MXClassPropertyMetaClass


def test_load_lib_and_shutdown_notice():
    assert base._load_lib() is base._LIB
    array = mx.nd.ones((2,)) * 3
    base._notify_shutdown()            # waits for queued work, returns normally
    assert array.asnumpy().tolist() == [3.0, 3.0]


# -- the operator C entry points and the generated front ends ----------------------------------------
def test_operator_listing_and_atomic_symbol_info():
    names = base._all_op_names()
    assert "FullyConnected" in names and "_contrib_box_nms" in names
    from mxtorch.ops import c_api
    handle = base._op_handle("FullyConnected")
    assert c_api.operator_of_handle(handle) == "FullyConnected"
    name, _, arg_names, arg_types, _, var_args, _ = c_api.atomic_symbol_info(handle)
    assert name == "FullyConnected" and var_args == ""
    # MXNet 1.9.1: data, weight, bias, then the attributes
    assert arg_names[:6] == ["data", "weight", "bias", "num_hidden", "no_bias", "flatten"]
    assert arg_types[:3] == ["NDArray-or-Symbol"] * 3 and arg_types[3] == "int, required"
    _, _, arg_names, arg_types, _, var_args, _ = c_api.atomic_symbol_info(base._op_handle("Concat"))
    assert arg_names[0] == "data" and arg_types[0] == "NDArray-or-Symbol[]" and var_args == "num_args"
    with pytest.raises(mx.MXNetError):
        base._op_handle("NoSuchOperator")


def test_generated_ndarray_function_runs():
    from mxtorch.ndarray import register
    code, doc = register._generate_ndarray_function_code(base._op_handle("FullyConnected"), "FullyConnected",
                                                         "FullyConnected")
    assert code.lstrip().startswith("def FullyConnected(data=None, weight=None, bias=None, num_hidden=_Null")
    assert "out=None, name=None, **kwargs):" in code and "Parameters\n    ----------" in code
    assert doc.endswith("out : NDArray or list of NDArrays\n    The output of this function.\n")
    function = register._make_ndarray_function(base._op_handle("FullyConnected"), "FullyConnected",
                                               "FullyConnected")
    x, w, b = np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((4, 3), np.float32), np.arange(4, dtype=np.float32)
    out = function(mx.nd.array(x), mx.nd.array(w), mx.nd.array(b), num_hidden=4)
    np.testing.assert_allclose(out.asnumpy(), x @ w.T + b)
    target = mx.nd.zeros((2, 4))
    assert function(mx.nd.array(x), mx.nd.array(w), mx.nd.array(b), num_hidden=4, out=target) is target
    np.testing.assert_allclose(target.asnumpy(), x @ w.T + b)
    concat = register._make_ndarray_function(base._op_handle("Concat"), "Concat", "concat")
    assert concat(mx.nd.ones((1, 2)), mx.nd.zeros((1, 2)), dim=0).asnumpy().tolist() == [[1, 1], [0, 0]]
    with pytest.raises(AssertionError):
        concat(np.ones(2))
    stub, _ = register._generate_ndarray_function_code(base._op_handle("relu"), "relu", "relu", True)
    namespace = {"_Null": base._Null}
    exec(stub, namespace)
    assert namespace["relu"](1) == (0,)


def test_generated_symbol_function_matches_the_front_end():
    from mxtorch.symbol import register
    function = register._make_symbol_function(base._op_handle("FullyConnected"), "FullyConnected",
                                              "FullyConnected")
    x = mx.sym.var("x")
    generated = function(x, num_hidden=3, name="fc")
    assert generated.tojson() == mx.sym.FullyConnected(x, num_hidden=3, name="fc").tojson()
    concat = register._make_symbol_function(base._op_handle("Concat"), "Concat", "Concat")
    node = concat(x, x, dim=1, name="cat")
    assert node.attr("num_args") == "2" and node.list_arguments() == ["x"]
    with pytest.raises(TypeError):
        register._symbol_creator(base._op_handle("Concat").value, [x], {"data": x}, [], [], "c", False)
    assert register._build_doc("f", "desc", ["a"], ["int, required"], ["x"]).startswith(
        "desc\n\nParameters\n----------\na : int, required\n    x\n\nname : string, optional.")


def test_set_symbol_class_changes_created_symbols():
    from mxtorch.symbol import register

    class Tagged(mx.sym.Symbol):
        pass
    register._set_symbol_class(Tagged)
    try:
        made = register._symbol_creator(base._op_handle("relu").value, [mx.sym.var("x")], None, [], [], "r", False)
        assert type(made) is Tagged and made.name == "r"
    finally:
        register._set_symbol_class(None)


def _fake_front_end(root, front):
    """Empty modules standing for root.front.op, ._internal, root.contrib.front and the prefix
    submodules, as _init_op_module expects them."""
    names = [f"{root}.{front}.op", f"{root}.{front}._internal", f"{root}.contrib.{front}"] + \
        [f"{root}.{front}.{prefix[1:-1]}" for prefix in base._OP_NAME_PREFIX_LIST]
    modules = {}
    for name in names:
        module = types.ModuleType(name)
        module.__all__ = []
        modules[name] = module
    return modules


def test_init_op_module_fills_the_front_end(monkeypatch):
    from mxtorch.ndarray import register
    modules = _fake_front_end("fakemx", "ndarray")
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    base._init_op_module("fakemx", "ndarray", register._make_ndarray_function)
    op, internal = modules["fakemx.ndarray.op"], modules["fakemx.ndarray._internal"]
    contrib, old_contrib = modules["fakemx.ndarray.contrib"], modules["fakemx.contrib.ndarray"]
    assert "FullyConnected" in op.__all__ and "_plus_scalar" in internal.__all__
    assert "box_nms" in contrib.__all__ and "box_nms" in old_contrib.__all__
    assert "_random_uniform" in internal.__all__ and "uniform" not in modules["fakemx.ndarray.random"].__all__
    assert op.FullyConnected.__module__ == "ndarray"
    assert not any(name.startswith("_np") for name in internal.__all__)
    np.testing.assert_allclose(internal._plus_scalar(mx.nd.ones((2,)), scalar=2.5).asnumpy(), [3.5, 3.5])


def test_generate_op_module_signature_writes_importable_stubs(tmp_path, monkeypatch):
    from mxtorch.ndarray import register
    package = tmp_path / "fakegen" / "ndarray"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    base._generate_op_module_signature("fakegen", "ndarray", register._generate_ndarray_function_code)
    source = (package / "gen_op.py").read_text()
    assert source.startswith("# coding: utf-8# Licensed to the Apache Software Foundation")
    namespace = {}
    stub_source = source.replace("from ._internal import NDArrayBase\n", "").replace("from ..base import _Null", "")
    exec(compile(stub_source, "gen_op.py", "exec"), {"_Null": base._Null}, namespace)
    assert "FullyConnected" in namespace["__all__"]
    assert namespace["FullyConnected"](num_hidden=1) == (0,)
    assert "box_nms" in (package / "gen_contrib.py").read_text()


# -- mxnet.ndarray.ndarray / sparse / utils ---------------------------------------------------------------
def test_ndarray_tables_are_mxnets():
    module = mx.nd.ndarray
    assert (module._STORAGE_TYPE_UNDEFINED, module._STORAGE_TYPE_DEFAULT, module._STORAGE_TYPE_ROW_SPARSE,
            module._STORAGE_TYPE_CSR) == (-1, 0, 1, 2)
    assert module._STORAGE_TYPE_ID_TO_STR == {-1: 'undefined', 0: 'default', 1: 'row_sparse', 2: 'csr'}
    assert module._GRAD_REQ_MAP == {'null': 0, 'write': 1, 'add': 3}
    assert module._SIGNED_INT32_UPPER_LIMIT == 2147483647
    assert module._DTYPE_MX_TO_NP == {-1: None, 0: np.float32, 1: np.float64, 2: np.float16, 3: np.uint8,
                                      4: np.int32, 5: np.int8, 6: np.int64, 7: np.bool_,
                                      12: np.dtype([('bfloat16', np.uint16)])}
    assert module._DTYPE_NP_TO_MX == {value: key for key, value in module._DTYPE_MX_TO_NP.items()}
    assert (module._NDARRAY_UNSUPPORTED_INDEXING, module._NDARRAY_BASIC_INDEXING,
            module._NDARRAY_ADVANCED_INDEXING, module._NDARRAY_EMPTY_TUPLE_INDEXING) == (-1, 0, 1, 2)
    assert (module._NDARRAY_NO_ZERO_DIM_BOOL_ARRAY, module._NDARRAY_ZERO_DIM_BOOL_ARRAY_FALSE,
            module._NDARRAY_ZERO_DIM_BOOL_ARRAY_TRUE) == (-1, 0, 1)
    assert module._int64_enabled() is True and module._INT64_TENSOR_SIZE_ENABLED is True
    assert mx.nd._GRAD_REQ_MAP is module._GRAD_REQ_MAP and mx.autograd._GRAD_REQ_MAP is module._GRAD_REQ_MAP
    assert mx.sym.symbol._STORAGE_TYPE_STR_TO_ID == {'undefined': -1, 'default': 0, 'row_sparse': 1, 'csr': 2}
    assert mx.nd.sparse._STORAGE_AUX_TYPES == {'row_sparse': [np.int64], 'csr': [np.int64, np.int64]}


def test_ndarray_index_helpers():
    module = mx.nd.ndarray
    # values from MXNet 1.9.1
    assert module._shape_for_bcast((3,), 4, [0, 1]) == (1, 1, 1, 3)
    assert module._shape_for_bcast((2, 3), 4, [1]) == (1, 1, 2, 3)
    assert module._shape_for_bcast((5,), 3, []) == (1, 1, 5)
    assert module._get_broadcast_shape((), (2, 3)) == (2, 3)
    assert module._get_broadcast_shape((3, 1), (1, 4)) == (3, 4)
    with pytest.raises(ValueError):
        module._get_broadcast_shape((2,), (3,))
    assert module._broadcast_shapes([np.zeros((3, 1)), np.zeros((4,))]) == (3, 4)
    assert module._int_to_slice(-1) == slice(-1, None) and module._int_to_slice(2) == slice(2, 3)
    assert module._is_advanced_index([1]) and module._is_advanced_index(3) and not module._is_advanced_index(None)
    with pytest.raises(RuntimeError):
        module._is_advanced_index(1.5)
    assert module._get_index_range(None, None, 5, -1) == (4, -1, -1)
    assert module._get_index_range(-2, 10, 5) == (3, 5, 1)
    for start, stop, step in [(0, 5, 2), (4, -1, -1), (1, 1, 1)]:
        assert module._get_dim_size(start, stop, step) == len(range(start, stop, step))
    for piece in (slice(None, None, 2), slice(5, 1, -2), slice(-3, None)):
        assert module._get_slice_len(piece, 7) == len(range(7)[piece])


def test_ufunc_helper_dispatch():
    calls = []
    helper = mx.nd.ndarray._ufunc_helper
    array = mx.nd.ones((1,))
    record = lambda kind: (lambda a, b: calls.append((kind, b)) or kind)  # noqa: E731
    assert helper(2, 3, record("arrays"), lambda a, b: a * b, record("left")) == 6
    assert helper(array, 2, record("arrays"), None, record("left")) == "left"
    assert helper(2, array, record("arrays"), None, record("left"), record("right")) == "right"
    assert helper(2, array, record("arrays"), None, record("left")) == "left"     # commutative
    assert helper(array, array, record("arrays"), None, record("left")) == "arrays"
    assert calls[0] == ("left", 2.0) and isinstance(calls[0][1], float)
    with pytest.raises(TypeError):
        helper(array, "x", None, None, None)


def test_array_handles():
    module = mx.nd.ndarray
    handle = module._new_alloc_handle((2, 3), mx.cpu(), False, np.int32)
    assert module._storage_type(handle) == 0
    array = mx.nd.NDArray(handle)
    assert array.shape == (2, 3) and array.dtype == np.int32
    empty = mx.nd.NDArray(module._new_empty_handle())
    assert empty.shape == (0,)
    csr = mx.nd.sparse._new_alloc_handle("csr", (2, 2), mx.cpu(), False, np.float32, [np.int64, np.int64])
    assert mx.nd.sparse._storage_type(csr) == 2
    assert isinstance(mx.nd.sparse._ndarray_cls(csr), mx.nd.sparse.CSRNDArray)
    with pytest.raises(NotImplementedError):
        mx.nd.sparse._new_alloc_handle("csr", (2, 2), mx.cpu(), False, np.float32, [np.int32, np.int64])
    source = mx.nd.array([1.0, 2.0])
    wrapped = mx.nd.utils._ndarray_cls(ctypes.cast(source, mx.base.NDArrayHandle), stype=0)
    assert type(wrapped) is mx.nd.NDArray and wrapped.asnumpy().tolist() == [1.0, 2.0]
    readonly = mx.nd.sparse._ndarray_cls(ctypes.cast(source, mx.base.NDArrayHandle), writable=False)
    with pytest.raises(mx.MXNetError):
        readonly[:] = 0


def test_set_ndarray_class_wraps_imperative_outputs():
    from mxtorch.ndarray import register

    wrapped = []

    def wrap(handle, writable=True, stype=-1):
        array = mx.nd.sparse._ndarray_cls(handle, writable, stype)
        wrapped.append(stype)
        return array
    mx.nd.sparse._set_ndarray_class(wrap)
    try:
        out = register._imperative_invoke(base._op_handle("relu"), [mx.nd.array([-1.0, 2.0])], [], [], None,
                                          False, False)
    finally:
        mx.nd.sparse._set_ndarray_class(mx.nd.sparse._ndarray_cls)
    assert wrapped == [0] and out.asnumpy().tolist() == [0.0, 2.0]


def test_dlpack_deleter_calls_the_tensors_deleter():
    from mxtorch.ndarray import interop
    calls = []
    deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda address: calls.append(address))
    managed = interop._DLManagedTensorHead(deleter=deleter)
    capsule = ctypes.pythonapi.PyCapsule_New(ctypes.c_void_p(ctypes.addressof(managed)), b"dltensor", None)
    mx.nd.ndarray._dlpack_deleter(id(capsule))
    assert calls == [ctypes.addressof(managed)]
    used = ctypes.pythonapi.PyCapsule_New(ctypes.c_void_p(ctypes.addressof(managed)), b"used_dltensor", None)
    mx.nd.ndarray._dlpack_deleter(id(used))         # a consumed capsule is left alone
    assert len(calls) == 1
    assert mx.nd.ndarray._c_str_dltensor.value == b"dltensor"
    assert mx.nd.ndarray._c_str_used_dltensor.value == b"used_dltensor"


def test_sparse_definition_constructors():
    sparse = mx.nd.sparse
    csr = sparse._csr_matrix_from_definition([1.0, 2.0, 3.0], [0, 2, 1], [0, 2, 3])
    assert isinstance(csr, sparse.CSRNDArray) and csr.shape == (2, 3)
    assert csr.asnumpy().tolist() == [[1, 0, 2], [0, 3, 0]]
    rsp = sparse._row_sparse_ndarray_from_definition([[1.0, 2.0]], [2], shape=(4, 2))
    assert isinstance(rsp, sparse.RowSparseNDArray)
    assert rsp.asnumpy().tolist() == [[0, 0], [0, 0], [1, 2], [0, 0]]
    assert sparse._row_sparse_ndarray_from_definition([[1.0], [5.0]], [0, 3]).shape == (4, 1)
    with pytest.raises(ValueError):
        sparse._csr_matrix_from_definition([[1.0]], [0], [0, 1])
    with pytest.raises(ValueError):
        sparse._check_shape((2, 3), (3, 2))
    sparse._check_shape((2, 3), None)
    assert sparse._prepare_default_dtype(np.zeros(2, np.int32), None) == np.int32
    assert sparse._prepare_default_dtype([1, 2], None) is np.float32
    assert sparse._prepare_src_array([1, 2], np.int64).dtype == np.int64
    assert mx.nd.utils._zeros_sparse_ndarray("row_sparse", (2, 2)).stype == "row_sparse"
    assert mx.nd.utils._empty_ndarray((2,)).shape == (2,)


# -- contrib, random and control-flow helpers -----------------------------------------------------------
def test_ndarray_contrib_helpers():
    contrib = mx.nd.contrib
    a, b, c = mx.nd.ones((1,)), mx.nd.zeros((1,)), mx.nd.ones((2,))
    flat, fmt = contrib._flatten([a, [b, c]], "data")
    assert flat == [a, b, c] and fmt == [0, [0, 0]]
    nested, rest = contrib._regroup(flat, fmt)
    assert nested[0] is a and nested[1][1] is c and rest == []
    assert contrib._flatten_list([[1, 2], [3]]) == [1, 2, 3]
    assert contrib._as_list(a) == [a] and contrib._as_list((a,)) == (a,)
    rescale = contrib._get_rescale_grad(0.5)
    assert rescale.shape == (1,) and rescale.asnumpy().tolist() == [0.5] and rescale.context == mx.cpu()


def test_symbol_contrib_helpers():
    contrib = mx.sym.contrib
    x = mx.sym.var("x")
    y = x + 1
    assert contrib._get_sym_uniq_name(x) == "x-0"                       # MXNet 1.9.1
    assert contrib._get_sym_uniq_name(y) == f"{y.name}-0"
    flat, fmt = contrib._flatten([x, [y]], "data")
    assert flat == [x, y] and fmt == [0, [0]]
    assert contrib._regroup(flat, fmt)[0][1][0] is y
    contrib._check_data([x, y], mx.sym.Symbol, "must be symbols")
    with pytest.raises(AssertionError, match="must be symbols"):
        contrib._check_data([x, 1], mx.sym.Symbol, "must be symbols")
    graph = contrib._construct_subgraph(x, [y], "none")
    assert len(graph.list_outputs()) == 2
    assert [s.name for s in contrib._get_graph_inputs(y * mx.sym.var("z"))] == ["x", "z"]
    first, second = contrib._get_unique_subgraph_name("pn_loop"), contrib._get_unique_subgraph_name("pn_loop")
    assert (first, second) == ("pn_loop0", "pn_loop1")


def test_random_helpers():
    sample = mx.nd.random._random_helper(mx.nd._internal._random_uniform, mx.nd._internal._sample_uniform,
                                         [0.0, 1.0], base._Null, base._Null, None, None, {})
    assert sample.shape == (1,) and 0 <= float(sample.asscalar()) < 1
    low, high = mx.nd.array([0.0, 10.0]), mx.nd.array([1.0, 11.0])
    per_element = mx.nd.random._random_helper(mx.nd._internal._random_uniform, mx.nd._internal._sample_uniform,
                                              [low, high], (3,), base._Null, None, None, {})
    values = per_element.asnumpy()
    assert values.shape == (2, 3) and (values[1] >= 10).all() and (values[0] < 1).all()
    with pytest.raises(AssertionError):
        mx.nd.random._random_helper(None, None, [low, 1.0], base._Null, base._Null, None, None, {})
    with pytest.raises(ValueError):
        mx.nd.random._random_helper(None, None, ["a"], base._Null, base._Null, None, None, {})
    node = mx.sym.random._random_helper(mx.sym._internal._random_uniform, mx.sym._internal._sample_uniform,
                                        [0.0, 2.0], (2,), base._Null, {"name": "u"})
    assert node.name == "u" and node.attr("shape") == "(2,)" and node.attr("high") == "2.0"


# -- kvstore, executor, module, io, autograd, operator ---------------------------------------------------------
def test_kvstore_ctype_builders():
    from mxtorch.kvstore.base import _ctype_dict, _ctype_key_value
    from mxtorch.kvstore.kvstore import _get_kvstore_server_command_type, _updater_wrapper
    a = mx.nd.ones((2,))
    keys, values, str_keys = _ctype_key_value(["a", "b"], [a, [a, a]])
    assert list(keys) == [b"a", b"b", b"b"] and len(values) == 3 and str_keys is True
    keys, values, str_keys = _ctype_key_value(3, [a, a])
    assert list(keys) == [3, 3] and str_keys is False
    assert mx.nd.NDArray(mx.base.NDArrayHandle(values[0])).asnumpy().tolist() == [1.0, 1.0]
    with pytest.raises(AssertionError):
        _ctype_key_value(["a", 1], [a, a])
    keys, values = _ctype_dict({"x": 1, "y": "z"})
    assert list(keys) == [b"x", b"y"] and list(values) == [b"1", b"z"]
    assert [_get_kvstore_server_command_type(c) for c in ("kController", "kStopServer", "kSetProfilerParams")] \
        == [0, 2, 5]
    seen = []
    handle = _updater_wrapper(lambda key, lhs, rhs: seen.append((key, lhs.asnumpy().tolist(), rhs.asnumpy().tolist())))
    b = a * 2
    handle(7, ctypes.cast(a, ctypes.c_void_p).value, ctypes.cast(b, ctypes.c_void_p).value, None)
    assert seen == [(7, [1.0, 1.0], [2.0, 2.0])]


def test_executor_group_batch_loaders():
    from mxtorch.module import executor_group
    batch = mx.io.DataBatch(data=[mx.nd.array(np.arange(8).reshape(2, 4))], label=[mx.nd.array([5.0, 6.0])])
    first, second = mx.nd.zeros((2, 2)), mx.nd.zeros((2, 2))
    executor_group._load_data(batch, [[(slice(0, 2), first), (slice(2, 4), second)]], [1])
    assert first.asnumpy().tolist() == [[0, 1], [4, 5]] and second.asnumpy().tolist() == [[2, 3], [6, 7]]
    label = mx.nd.zeros((1,))
    executor_group._load_label(batch, [[(slice(1, 2), label)]], [0])
    assert label.asnumpy().tolist() == [6.0]
    assert mx.executor._split_input_slice(5, [1, 1]) == [slice(0, 2), slice(2, 5)]   # MXNet 1.9.1
    assert mx.model._check_arguments is mx.executor._check_arguments
    assert mx.mod.module._update_params is mx.model._update_params
    calls = []
    mx.executor._monitor_callback_wrapper(lambda name, array: calls.append(name))("fc_output", None, None)
    assert calls == ["fc_output"]


def test_io_private_names():
    data = mx.nd.array(np.arange(12).reshape(3, 4))
    part = mx.io.io._slice_along_batch_axis(data, slice(1, 3), 1)
    assert part.asnumpy().tolist() == [[1, 2], [5, 6], [9, 10]]
    assert mx.io._init_data(data, allow_empty=False, default_name="data")[0][0] == "data"
    assert mx.io.io._has_instance([("a", data)], mx.nd.NDArray)
    module = sys.modules["mxtorch.io.io"]
    saved = {name: getattr(module, name) for name in ("CSVIter", "MNISTIter", "LibSVMIter")}
    try:
        module._init_io_module()
        assert module.CSVIter is not saved["CSVIter"] and module.CSVIter.__name__ == "CSVIter"
        with pytest.raises(TypeError, match="keyword"):
            module.CSVIter("file.csv")
    finally:
        for name, value in saved.items():
            setattr(module, name, value)
    with pytest.raises(mx.MXNetError):
        module._make_io_iterator(ctypes.c_void_p(999))


def test_autograd_and_operator_private_names():
    a, g = mx.nd.ones((2,)), mx.nd.ones((2,))
    heads, grads = mx.autograd._parse_head(a, None)
    assert len(heads) == 1 and grads.value is None
    assert mx.nd.NDArray(mx.base.NDArrayHandle(heads[0])) .asnumpy().tolist() == [1.0, 1.0]
    _, grads = mx.autograd._parse_head([a, a], [g, None])
    assert grads[0] is not None and grads[1] is None
    with pytest.raises(AssertionError):
        mx.autograd._parse_head([a], [g, g])
    with mx.autograd._RecordingStateScope(True, False):
        assert mx.autograd.is_recording() and not mx.autograd.is_training()
    assert not mx.autograd.is_recording()
    registry = mx.operator._Registry()
    assert [registry.inc(), registry.inc()] == [0, 1] and registry.ref_holder == {}
    assert mx.operator._STORAGE_TYPE_ID_TO_STR[2] == "csr"
    as_np = mx.operator._np_ndarray_cls(ctypes.cast(a, mx.base.NDArrayHandle))
    assert isinstance(as_np, mx.np.ndarray) and as_np.asnumpy().tolist() == [1.0, 1.0]


# -- gluon -------------------------------------------------------------------------------------------------------
def test_gluon_private_helpers():
    from mxtorch.gluon import block, utils
    assert utils._indent("a\nb\nc", 2) == "a\n  b\n  c" and utils._indent("one", 4) == "one"
    assert block._brief_print_list(range(10)) == "'0', '1', '2', ..., '6', '7', '8', '9'"   # MXNet 1.9.1
    x = mx.nd.ones((1,))
    assert block._gather_type_ctx_info([x, [mx.sym.var("s")]]) == (True, True, {mx.cpu()}, mx.cpu())
    assert block._gather_type_ctx_info(3) == (False, False, set(), None)
    assert utils._check_same_symbol_type([mx.sym.var("a"), mx.sym.var("b")]) is mx.sym.Symbol
    with pytest.raises(TypeError):
        utils._check_same_symbol_type([mx.sym.var("a"), mx.sym.var("b").as_np_ndarray()])
    with pytest.raises(TypeError):
        utils._check_all_np_ndarrays([x])
    utils._check_all_np_ndarrays([x.as_np_ndarray(), 1])
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
    typed = mx.sym.var("data", dtype="float64")
    assert block._infer_param_types([typed], mx.sym.FullyConnected(typed, num_hidden=2, name="fc"),
                                    ["data", "fc_weight", "fc_bias"], []) == ([np.float64] * 3, [])
    assert block._infer_param_types([data], net, ["data", "fc_weight", "fc_bias"], ["m"]) == \
        ([np.float32] * 3, [np.float32])


def test_gluon_private_names_of_layers_and_data():
    from mxtorch.gluon.data.dataset import SimpleDataset, _FilteredDataset
    from mxtorch.gluon.nn.conv_layers import _infer_weight_shape
    from mxtorch.gluon.model_zoo.vision import densenet, squeezenet
    assert list(_FilteredDataset(SimpleDataset([1, 2, 3, 4]), lambda v: v % 2 == 0)) == [2, 4]
    # MXNet 1.9.1: [(2, 3, 8, 8), (4, 3, 3, 3), (4,)]
    assert _infer_weight_shape("Convolution", (2, 3, 8, 8), dict(kernel=(3, 3), num_filter=4)) == \
        [(2, 3, 8, 8), (4, 3, 3, 3), (4,)]
    assert densenet._make_transition is densenet._transition
    fire = squeezenet._make_fire_conv(8, 3, 1)
    fire.initialize()
    assert fire(mx.nd.ones((1, 2, 5, 5))).shape == (1, 8, 5, 5)
    from mxtorch.gluon.contrib.estimator.utils import _check_metric_known
    accuracy = mx.metric.Accuracy()
    _check_metric_known(object(), accuracy, [accuracy])
    with pytest.raises(ValueError):
        _check_metric_known(object(), mx.metric.Accuracy(), [accuracy])
