"""``mx.rnn``: cells, BucketSentenceIter, encode_sentences and the RNN checkpoint helpers,
against references written by MXNet 1.9.1 (``tools/gen_rnn_reference.py`` -> ``tests/data/rnn``)."""
import json
import os
import random
import sys
import warnings

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rnn_cases  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "rnn")


def _load_json(name):
    with open(os.path.join(DATA, name)) as handle:
        return json.load(handle)


GRAPHS = _load_json("graphs.json")
NUMBERS = np.load(os.path.join(DATA, "numbers.npz"))
WEIGHTS = np.load(os.path.join(DATA, "weights.npz"))


def _build(builder):
    with mx.name.NameManager(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return builder(mx)


# -- graphs --------------------------------------------------------------------------------------------
def test_lstm_lm_fixture_graph_is_identical():
    """The MXNet checkpoint fixture's LSTM language model, rebuilt with mxtorch's cells."""
    with open(os.path.join(DATA, "lstm_lm-symbol.json")) as handle:
        reference = handle.read()
    symbol = _build(rnn_cases.lstm_lm)
    assert json.loads(symbol.tojson()) == json.loads(reference)
    assert symbol.tojson() == reference


@pytest.mark.parametrize("name", sorted(rnn_cases.GRAPHS))
def test_graph_json_matches_mxnet(name):
    symbol, _ = _build(rnn_cases.GRAPHS[name][0])
    assert json.loads(symbol.tojson()) == GRAPHS[name]


NUMERIC = [name for name, (_, deterministic) in rnn_cases.GRAPHS.items() if deterministic is not None]


@pytest.mark.parametrize("name", NUMERIC)
def test_forward_backward_match_mxnet(name):
    builder, deterministic = rnn_cases.GRAPHS[name]
    symbol, shapes = _build(builder)
    executor = symbol.simple_bind(mx.cpu(), grad_req="write", **shapes)
    for arg_name, array in zip(symbol.list_arguments(), executor.arg_arrays):
        array[:] = NUMBERS[f"{name}|arg|{arg_name}"]
    outputs = executor.forward(is_train=deterministic)
    for k, output in enumerate(outputs):
        np.testing.assert_allclose(output.asnumpy(), NUMBERS[f"{name}|out|{k}"], rtol=1e-4, atol=1e-5,
                                   err_msg=f"{name} output {k}")
    if not deterministic:
        return
    executor.backward([mx.nd.array(NUMBERS[f"{name}|head|{k}"]) for k in range(len(outputs))])
    for arg_name, grad in zip(symbol.list_arguments(), executor.grad_arrays):
        np.testing.assert_allclose(grad.asnumpy(), NUMBERS[f"{name}|grad|{arg_name}"], rtol=1e-4, atol=1e-5,
                                   err_msg=f"{name} gradient of {arg_name}")


def test_zoneout_and_dropout_train_differently_from_inference():
    """Dropout/zoneout masks act in training only (the inference outputs are MXNet's)."""
    symbol, shapes = _build(rnn_cases.zoneout)
    executor = symbol.simple_bind(mx.cpu(), grad_req="null", **shapes)
    for arg_name, array in zip(symbol.list_arguments(), executor.arg_arrays):
        array[:] = NUMBERS[f"zoneout|arg|{arg_name}"]
    inference = executor.forward(is_train=False)[0].asnumpy()
    training = executor.forward(is_train=True)[0].asnumpy()
    np.testing.assert_allclose(inference, NUMBERS["zoneout|out|0"], rtol=1e-4, atol=1e-5)
    assert not np.allclose(inference, training)


# -- cell properties -------------------------------------------------------------------------------------
def test_state_info_and_begin_state_names():
    lstm = mx.rnn.LSTMCell(7, prefix="a_")
    assert lstm.state_info == [{"shape": (0, 7), "__layout__": "NC"}] * 2
    assert lstm.state_shape == [(0, 7), (0, 7)]
    fused = mx.rnn.FusedRNNCell(4, num_layers=3, mode="gru", bidirectional=True)
    assert fused.state_shape == [(6, 0, 4)]
    assert fused._prefix == "gru_"
    conv = mx.rnn.ConvGRUCell((1, 2, 8, 6), 5, i2h_stride=(2, 2))
    assert conv.state_shape == [(0, 5, 4, 3)]
    states = lstm.begin_state()
    assert [s.name for s in states] == ["a_begin_state_0", "a_begin_state_1"]
    assert [s.name for s in lstm.begin_state()] == ["a_begin_state_2", "a_begin_state_3"]
    variables = lstm.begin_state(func=mx.sym.Variable)
    assert variables[0].list_attr() == {"__shape__": "(0, 7)", "__layout__": "NC"}
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.GRUCell(3, prefix="g_"))
    stack.add(lstm)
    assert stack.state_shape == [(0, 3), (0, 7), (0, 7)]
    assert sorted(stack.params._params) == ["a_h2h_bias", "a_h2h_weight", "a_i2h_bias", "a_i2h_weight",
                                            "g_h2h_bias", "g_h2h_weight", "g_i2h_bias", "g_i2h_weight"]


def test_rnn_params_shares_variables():
    params = mx.rnn.RNNParams("p_")
    first = params.get("w", shape=(2, 3))
    assert params.get("w") is first
    assert first.name == "p_w" and first.attr("__shape__") == "(2, 3)"
    a = mx.rnn.RNNCell(3, prefix="a_", params=params)
    b = mx.rnn.RNNCell(3, prefix="b_", params=params)
    assert a._iW is b._iW and a._iW.name == "p_i2h_weight"


def test_lstm_bias_initializer_attribute():
    outputs, _ = mx.rnn.LSTMCell(2, forget_bias=0.5).unroll(1, [mx.sym.Variable("x")])
    attrs = outputs[0].attr_dict()
    assert attrs["lstm_i2h_bias"]["__init__"] == '["lstmbias", {"forget_bias": 0.5}]'


def test_unroll_list_or_symbol_forms():
    cell = mx.rnn.GRUCell(3)
    outputs, states = cell.unroll(2, mx.sym.Variable("data"), merge_outputs=False)
    assert isinstance(outputs, list) and len(outputs) == 2 and len(states) == 1
    merged, _ = cell.unroll(2, [mx.sym.Variable("a"), mx.sym.Variable("b")], merge_outputs=True)
    _, out_shapes, _ = merged.infer_shape(a=(4, 5), b=(4, 5))
    assert out_shapes == [(4, 2, 3)]
    merged, _ = cell.unroll(2, [mx.sym.Variable("a"), mx.sym.Variable("b")], layout="TNC", merge_outputs=True)
    assert merged.infer_shape(a=(4, 5), b=(4, 5))[1] == [(2, 4, 3)]


def _run(symbol, **arrays):
    return symbol.bind(mx.cpu(), arrays, grad_req="null").forward(is_train=False)[0].asnumpy()


def test_fused_and_unfused_compute_the_same():
    """FusedRNNCell's packed layout vs its unfused stack of cells (independent of MXNet)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fused = mx.rnn.FusedRNNCell(3, num_layers=2, mode="lstm", bidirectional=True, prefix="f_")
        fused_out, _ = fused.unroll(4, mx.sym.Variable("data"), layout="TNC", merge_outputs=True)
        unfused = fused.unfuse()
        unfused_out, _ = unfused.unroll(4, mx.sym.Variable("data"), layout="TNC", merge_outputs=True)
    state = np.random.RandomState(0)
    data = state.uniform(-1, 1, size=(4, 2, 5)).astype(np.float32)
    count = fused_out.infer_shape(data=data.shape)[0][1][0]
    packed = {"f_parameters": mx.nd.array(state.uniform(-0.5, 0.5, size=(count,)).astype(np.float32))}
    fused_result = _run(fused_out, data=mx.nd.array(data), **packed)
    unfused_args = unfused.pack_weights(fused.unpack_weights(packed))
    assert sorted(unfused_args) == sorted(f"f_{d}{k}_{g}_{p}" for d in "lr" for k in "01"
                                          for g in ("i2h", "h2h") for p in ("weight", "bias"))
    unfused_result = _run(unfused_out, data=mx.nd.array(data), **unfused_args)
    np.testing.assert_allclose(unfused_result, fused_result, rtol=1e-5, atol=1e-6)
    assert fused_result.shape == (4, 2, 6)


# -- weights packing and checkpoints ---------------------------------------------------------------------
def _weight_cell(name):
    return {
        "lstm": lambda: mx.rnn.LSTMCell(3, prefix="lstm_"),
        "gru": lambda: mx.rnn.GRUCell(3, prefix="gru_"),
        "rnn": lambda: mx.rnn.RNNCell(3, prefix="rnn_"),
        "conv_lstm": lambda: mx.rnn.ConvLSTMCell((1, 2, 4, 4), 2, prefix="cl_"),
        "fused_lstm_bi": lambda: mx.rnn.FusedRNNCell(3, num_layers=2, mode="lstm", bidirectional=True, prefix="fl_"),
        "fused_gru": lambda: mx.rnn.FusedRNNCell(3, num_layers=2, mode="gru", prefix="fg_"),
        "fused_rnn_tanh_bi": lambda: mx.rnn.FusedRNNCell(3, mode="rnn_tanh", bidirectional=True, prefix="ft_"),
        "fused_ckpt": lambda: mx.rnn.FusedRNNCell(3, num_layers=2, mode="lstm", prefix="ck_"),
        "bidirectional": lambda: mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(3, prefix="bl_"),
                                                          mx.rnn.GRUCell(3, prefix="br_")),
    }[name]()


def _weights(case, kind):
    prefix = f"{case}|{kind}|"
    return {key[len(prefix):]: WEIGHTS[key] for key in WEIGHTS.files if key.startswith(prefix)}


WEIGHT_CASES = sorted({key.split("|")[0] for key in WEIGHTS.files})


@pytest.mark.parametrize("case", WEIGHT_CASES)
def test_unpack_and_pack_weights_match_mxnet(case):
    cell = _weight_cell(case)
    packed = {k: mx.nd.array(v) for k, v in _weights(case, "packed").items()}
    expected = _weights(case, "unpacked")
    unpacked = cell.unpack_weights(packed)
    assert sorted(unpacked) == sorted(expected)
    for key, value in expected.items():
        np.testing.assert_array_equal(unpacked[key].asnumpy(), value, err_msg=key)
    repacked = cell.pack_weights(unpacked)
    assert sorted(repacked) == sorted(packed)
    for key, value in packed.items():
        np.testing.assert_array_equal(repacked[key].asnumpy(), value.asnumpy(), err_msg=key)
    assert set(packed) == set(_weights(case, "packed"))   # the inputs were not modified


def test_unpacked_pieces_are_copies():
    cell = mx.rnn.LSTMCell(2, prefix="c_")
    packed = {"c_i2h_weight": mx.nd.ones((8, 3)), "c_i2h_bias": mx.nd.ones((8,)),
              "c_h2h_weight": mx.nd.ones((8, 2)), "c_h2h_bias": mx.nd.ones((8,))}
    unpacked = cell.unpack_weights(packed)
    unpacked["c_i2h_f_weight"][:] = 5
    assert packed["c_i2h_weight"].asnumpy().max() == 1


def test_pack_weights_errors():
    cell = mx.rnn.FusedRNNCell(3, mode="gru", prefix="e_")
    with pytest.raises(MXNetError, match="e_l0_i2h_r_weight"):
        cell.pack_weights({})
    unpacked = cell.unpack_weights({"e_parameters": mx.nd.zeros((3 * 3 * (4 + 3 + 2),))})
    unpacked["e_l0_h2h_z_weight"] = mx.nd.zeros((2, 3))
    with pytest.raises(MXNetError, match="expected \\(3, 3\\)"):
        cell.pack_weights(unpacked)
    with pytest.raises(MXNetError, match="does not fit"):
        cell.unpack_weights({"e_parameters": mx.nd.zeros((10,))})
    with pytest.raises(MXNetError, match="lstm_i2h_weight"):
        mx.rnn.LSTMCell(3).unpack_weights({})


def test_load_rnn_checkpoint_written_by_mxnet():
    cell = _weight_cell("fused_ckpt")
    symbol, args, aux = mx.rnn.load_rnn_checkpoint(cell, os.path.join(DATA, "fused_ckpt"), 3)
    assert aux == {}
    assert sorted(args) == ["ck_parameters"]
    np.testing.assert_array_equal(args["ck_parameters"].asnumpy(), WEIGHTS["fused_ckpt|packed|ck_parameters"])
    with open(os.path.join(DATA, "fused_ckpt-symbol.json")) as handle:
        assert json.loads(symbol.tojson()) == json.loads(handle.read())


def test_save_rnn_checkpoint_writes_mxnet_layout(tmp_path):
    cell = _weight_cell("fused_ckpt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outputs, _ = cell.unroll(2, mx.sym.Variable("data"), layout="TNC", merge_outputs=True)
    packed = {"ck_parameters": mx.nd.array(WEIGHTS["fused_ckpt|packed|ck_parameters"])}
    prefix = str(tmp_path / "mine")
    mx.rnn.save_rnn_checkpoint([cell], prefix, 3, outputs, packed, {})
    mine = mx.nd.load(prefix + "-0003.params")
    theirs = mx.nd.load(os.path.join(DATA, "fused_ckpt-0003.params"))
    assert sorted(mine) == sorted(theirs)
    for key in theirs:
        np.testing.assert_array_equal(mine[key].asnumpy(), theirs[key].asnumpy(), err_msg=key)
    assert packed["ck_parameters"].shape == (WEIGHTS["fused_ckpt|packed|ck_parameters"].size,)


def test_do_rnn_checkpoint_period(tmp_path):
    cell = mx.rnn.LSTMCell(2, prefix="d_")
    outputs, _ = cell.unroll(1, [mx.sym.Variable("x")])
    args = {name: mx.nd.ones(shape) for name, shape in
            zip(outputs[0].list_arguments(), outputs[0].infer_shape(x=(1, 3))[0]) if name != "x"}
    callback = mx.rnn.do_rnn_checkpoint(cell, str(tmp_path / "cb"), period=2)
    callback(0, outputs[0], args, {})
    assert not os.path.exists(tmp_path / "cb-0001.params")
    callback(1, outputs[0], args, {})
    saved = mx.nd.load(str(tmp_path / "cb-0002.params"))
    assert sorted(saved) == sorted(f"arg:d_{g}_{gate}_{p}" for g in ("i2h", "h2h") for gate in "ifco"
                                   for p in ("weight", "bias"))
    assert os.path.exists(tmp_path / "cb-symbol.json")


def test_rnn_unroll_is_deprecated_unroll():
    cell = mx.rnn.RNNCell(3, prefix="u_")
    with pytest.warns(UserWarning, match="deprecated"):
        outputs, states = mx.rnn.rnn_unroll(cell, 2, inputs=mx.sym.Variable("data"))
    with mx.name.NameManager():
        expected, _ = mx.rnn.RNNCell(3, prefix="u_").unroll(2, mx.sym.Variable("data"))
    assert [o.name for o in outputs] == [o.name for o in expected] == ["u_t0_out", "u_t1_out"]
    with pytest.raises(MXNetError, match="inputs=None"):
        with pytest.warns(UserWarning):
            mx.rnn.rnn_unroll(cell, 2)


# -- errors ---------------------------------------------------------------------------------------------
def test_cell_misuse_raises():
    with pytest.raises(NotImplementedError):
        mx.rnn.FusedRNNCell(3)(mx.sym.Variable("x"), [])
    with pytest.raises(NotImplementedError):
        mx.rnn.BidirectionalCell(mx.rnn.GRUCell(2, prefix="a_"), mx.rnn.GRUCell(2, prefix="b_"))(None, [])
    with pytest.raises(MXNetError, match="unfuse"):
        mx.rnn.ZoneoutCell(mx.rnn.FusedRNNCell(3))
    with pytest.raises(MXNetError, match="BidirectionalCell"):
        mx.rnn.ZoneoutCell(mx.rnn.BidirectionalCell(mx.rnn.GRUCell(2, prefix="a_"), mx.rnn.GRUCell(2, prefix="b_")))
    base = mx.rnn.LSTMCell(3)
    mx.rnn.ResidualCell(base)
    with pytest.raises(MXNetError, match="modifier cell"):
        base.begin_state()
    with pytest.raises(MXNetError, match="inputs=None"):
        mx.rnn.GRUCell(2).unroll(2, None)
    with pytest.raises(MXNetError, match="length=3 but 2"):
        mx.rnn.GRUCell(2).unroll(3, [mx.sym.Variable("a"), mx.sym.Variable("b")])
    with pytest.raises(MXNetError, match="mode"):
        mx.rnn.FusedRNNCell(3, mode="lstmp")
    with pytest.raises(MXNetError, match="h2h_kernel"):
        mx.rnn.ConvRNNCell((1, 2, 5, 5), 3, h2h_kernel=(2, 3))
    with pytest.raises(MXNetError, match="dropout"):
        mx.rnn.DropoutCell("0.5")
    with pytest.raises(MXNetError, match="not both"):
        mx.rnn.SequentialRNNCell(params=mx.rnn.RNNParams()).add(mx.rnn.LSTMCell(2))


def test_zoneout_on_stack_of_plain_cells():
    """MXNet 1.9.1 failed with AttributeError here (it read a missing attribute); mxtorch allows it."""
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.GRUCell(2, prefix="s0_"))
    cell = mx.rnn.ZoneoutCell(stack, zoneout_states=0.5)
    outputs, states = cell.unroll(2, mx.sym.Variable("data"), merge_outputs=True)
    assert outputs.infer_shape(data=(3, 2, 4))[1] == [(3, 2, 2)]
    assert [s.name for s in cell.begin_state()] == ["s0_begin_state_1"]


# -- data ----------------------------------------------------------------------------------------------------
ITERATOR_CASES = {
    "default": dict(batch_size=4),
    "tn_int": dict(batch_size=3, buckets=[6, 3], invalid_label=0, dtype="int32", layout="TN",
                   data_name="tokens", label_name="next"),
}


@pytest.mark.parametrize("case", sorted(ITERATOR_CASES))
def test_bucket_sentence_iter_matches_mxnet(case):
    reference = _load_json("iterator.json")[case]
    arrays = np.load(os.path.join(DATA, "iterator.npz"))
    random.seed(11)
    np.random.seed(11)
    iterator = mx.rnn.BucketSentenceIter(rnn_cases.sentences(), **ITERATOR_CASES[case])
    assert iterator.buckets == reference["buckets"]
    assert iterator.default_bucket_key == reference["default_bucket_key"]
    assert iterator.major_axis == reference["major_axis"]
    assert [[d.name, list(d.shape), d.layout] for d in iterator.provide_data] == reference["provide_data"]
    assert [[d.name, list(d.shape), d.layout] for d in iterator.provide_label] == reference["provide_label"]
    for epoch, expected in enumerate(reference["epochs"]):
        if epoch:
            iterator.reset()
        keys = []
        for k, batch in enumerate(iterator):
            keys.append([batch.bucket_key, [d.name for d in batch.provide_data], list(batch.provide_data[0].shape),
                         batch.pad, str(np.dtype(batch.data[0].dtype))])
            np.testing.assert_array_equal(batch.data[0].asnumpy(), arrays[f"{case}|{epoch}|{k}|data"])
            np.testing.assert_array_equal(batch.label[0].asnumpy(), arrays[f"{case}|{epoch}|{k}|label"])
            assert batch.provide_label[0].shape == batch.label[0].shape
        assert keys == expected["batches"]
        assert [list(p) for p in iterator.idx] == expected["idx"]
    for k, rows in enumerate(iterator.data):
        np.testing.assert_array_equal(rows, arrays[f"{case}|bucketdata|{k}"])


def test_bucket_sentence_iter_attributes_and_errors():
    iterator = mx.rnn.BucketSentenceIter([[1, 2], [3, 4], [5], [6, 7, 8, 9]], 2, buckets=[2, 3])
    assert iterator.buckets == [2]   # bucket 3 received no sentence; the 4-token one is discarded
    assert iterator.curr_idx == 0 and iterator.idx == [(0, 0)]
    assert (iterator.invalid_label, iterator.data_name, iterator.label_name, iterator.dtype, iterator.layout) == \
        (-1, "data", "softmax_label", "float32", "NT")
    assert len(iterator.nddata) == len(iterator.ndlabel) == 1
    batch = iterator.next()
    assert sorted(map(tuple, batch.data[0].asnumpy().tolist())) == [(1.0, 2.0), (3.0, 4.0)]
    assert sorted(map(tuple, batch.label[0].asnumpy().tolist())) == [(2.0, -1.0), (4.0, -1.0)]
    with pytest.raises(StopIteration):
        iterator.next()
    with pytest.raises(MXNetError, match="layout"):
        mx.rnn.BucketSentenceIter([[1, 2]], 1, layout="NTC")
    with pytest.raises(MXNetError, match="no bucket"):
        mx.rnn.BucketSentenceIter([[1, 2], [1]], 2)


def test_encode_sentences_matches_mxnet():
    reference = _load_json("encode.json")
    text = [["the", "cat", "sat"], ["the", "dog"], [], ["a", "cat", "\n", "the"]]
    assert list(mx.rnn.encode_sentences(text)) == reference["default"]
    assert list(mx.rnn.encode_sentences(text, invalid_label=1, start_label=0, invalid_key="<eos>")) == \
        reference["invalid_1"]
    assert list(mx.rnn.encode_sentences([["cat", "the"]], vocab=dict(reference["default"][1]))) == \
        reference["given_vocab"]


def test_encode_sentences_unknown_tokens():
    vocab = {"\n": -1, "a": 0, "b": 1}
    encoded, vocab = mx.rnn.encode_sentences([["a", "x", "b", "y", "x"]], vocab=vocab, unknown_token="<unk>")
    assert encoded == [[0, 2, 1, 2, 2]]
    assert vocab["<unk>"] == 2
    with pytest.raises(MXNetError, match="unknown token 'x'"):
        mx.rnn.encode_sentences([["x"]], vocab={"a": 0})


# -- training -----------------------------------------------------------------------------------------------
def _lm_module(seed):
    random.seed(seed)
    np.random.seed(seed)
    iterator = mx.rnn.BucketSentenceIter(rnn_cases.sentences(), rnn_cases.LM_BATCH,
                                         buckets=list(rnn_cases.LM_BUCKETS), invalid_label=0)
    cell = mx.rnn.LSTMCell(rnn_cases.LM_HIDDEN, prefix="lstm_")
    module = mx.mod.BucketingModule(rnn_cases.lm_sym_gen(mx, cell), default_bucket_key=iterator.default_bucket_key,
                                    context=mx.cpu())
    return iterator, cell, module


def _lm_initial():
    reference = np.load(os.path.join(DATA, "lm.npz"))
    return reference, {key[len("initial|"):]: mx.nd.array(reference[key]) for key in reference.files
                       if key.startswith("initial|")}


def test_bucketing_language_model_training_matches_mxnet():
    reference, initial = _lm_initial()
    iterator, _, module = _lm_module(3)
    optimizer, optimizer_params = rnn_cases.LM_OPTIMIZER
    module.bind(iterator.provide_data, iterator.provide_label)
    module.init_params(arg_params=initial, allow_missing=False)
    module.init_optimizer(optimizer=optimizer, optimizer_params=dict(optimizer_params))
    metric = mx.metric.Perplexity(ignore_label=0)
    keys = []
    for epoch in range(2):
        if epoch:
            iterator.reset()
        for batch in iterator:
            keys.append(batch.bucket_key)
            module.forward(batch, is_train=True)
            module.update_metric(metric, batch.label)
            module.backward()
            module.update()
    assert keys == reference["loop|bucket_keys"].tolist()
    assert len(set(keys)) == 3
    np.testing.assert_allclose(metric.get()[1], reference["loop|perplexity"], rtol=1e-4)
    params = module.get_params()[0]
    assert sorted(params) == sorted(initial)
    for key, value in params.items():
        np.testing.assert_allclose(value.asnumpy(), reference[f"loop|{key}"], rtol=1e-4, atol=1e-4, err_msg=key)
        assert not np.allclose(value.asnumpy(), initial[key].asnumpy())


def test_bucketing_language_model_fit_with_rnn_checkpoint(tmp_path):
    reference, initial = _lm_initial()
    iterator, cell, module = _lm_module(4)
    optimizer, optimizer_params = rnn_cases.LM_OPTIMIZER
    prefix = str(tmp_path / "lm")
    module.fit(iterator, num_epoch=1, eval_metric=mx.metric.Perplexity(ignore_label=0), arg_params=initial,
               optimizer=optimizer, optimizer_params=dict(optimizer_params),
               epoch_end_callback=mx.rnn.do_rnn_checkpoint(cell, prefix))
    params = module.get_params()[0]
    for key, value in params.items():
        np.testing.assert_allclose(value.asnumpy(), reference[f"fit|{key}"], rtol=1e-4, atol=1e-4, err_msg=key)
    saved = mx.nd.load(prefix + "-0001.params")
    assert "arg:lstm_i2h_f_bias" in saved and "arg:lstm_i2h_bias" not in saved
    _, loaded, _ = mx.rnn.load_rnn_checkpoint(cell, prefix, 1)
    for key, value in params.items():
        np.testing.assert_array_equal(loaded[key].asnumpy(), value.asnumpy(), err_msg=key)


def test_reexports():
    assert mx.rnn.DataBatch is mx.io.DataBatch and mx.rnn.DataDesc is mx.io.DataDesc
    assert mx.rnn.DataIter is mx.io.DataIter
    assert mx.rnn.save_checkpoint is mx.model.save_checkpoint
    assert mx.rnn.load_checkpoint is mx.model.load_checkpoint
