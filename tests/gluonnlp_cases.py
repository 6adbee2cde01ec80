"""GluonNLP 0.10.0 on mxtorch: its models with MXNet-saved parameters and its data pipeline give
MXNet 1.9.1's results.

Reference data: tests/data/gluonnlp/, written by tools/gen_gluonnlp_reference.py under real
MXNet 1.9.1 + GluonNLP 0.10.0 (its docstring lists the models and the pipeline cases).  The
models are built here with the same GluonNLP classes and hyper-parameters, load the
``.params`` files MXNet saved (``standard_lstm_lm_200`` gets the parameters the generator drew
from ``RandomState(seed)``), and must reproduce MXNet's outputs imperatively and hybridized
(rel 1e-3), and for BERT and the AWD LM MXNet's parameter gradients; beam search over the
Transformer, and the ONNX export of the hybridized BERT and Transformer encoder, give MXNet's
results too.  GluonNLP imports ``mxnet``, so the module installs mxtorch under that name first.

Run by tests/test_gluonnlp_models.py in a fresh interpreter (not collected on its own: its
``install_as_mxnet()`` and the NumPy 1 behaviours GluonNLP's package compat enables would
otherwise hold for the rest of the test session).
"""
import json
import os
from collections import Counter

import numpy as np
import pytest

import mxtorch

mxtorch.install_as_mxnet()
import gluonnlp as nlp  # noqa: E402

import mxtorch as mx  # noqa: E402
from gluonnlp.model import bert, transformer, language_model, translation  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "gluonnlp")
REF = np.load(os.path.join(DATA, "reference.npz"))
PIPELINE = json.load(open(os.path.join(DATA, "pipeline.json"), encoding="utf-8"))
RTOL, ATOL = 1e-3, 1e-5


def _inputs(name):
    found = {}
    for key in REF.files:
        if key.startswith(name + ":in:"):
            found[int(key.rsplit(":", 1)[1])] = mx.nd.array(REF[key])
    return [found.get(i) for i in range(max(found) + 1)]


def _flatten(outputs):
    """The arrays of ``outputs`` in order (LM outputs nest: (output, [[h, c], ...]))."""
    if not isinstance(outputs, (list, tuple)):
        return [outputs]
    return [array for value in outputs for array in _flatten(value)]


def _compare(name, kind, outputs):
    outputs = _flatten(outputs)
    keys = sorted((k for k in REF.files if k.startswith(f"{name}:{kind}:")), key=lambda k: int(k.rsplit(":", 1)[1]))
    assert len(outputs) == len(keys), (name, kind, len(outputs), keys)
    for key, value in zip(keys, outputs):
        np.testing.assert_allclose(value.asnumpy(), REF[key], rtol=RTOL, atol=ATOL, err_msg=key)


def _bert():
    encoder = bert.BERTEncoder(num_layers=2, units=16, hidden_size=32, max_length=16, num_heads=2, dropout=0.1)
    return bert.BERTModel(encoder, vocab_size=30, token_type_vocab_size=2, units=16, embed_size=16,
                          use_pooler=True, use_decoder=True, use_classifier=True, prefix="bert_")


def _bert_classifier():
    encoder = bert.BERTEncoder(num_layers=2, units=16, hidden_size=32, max_length=16, num_heads=2)
    inner = bert.BERTModel(encoder, vocab_size=30, token_type_vocab_size=2, units=16, embed_size=16,
                           use_pooler=True, use_decoder=False, use_classifier=False, prefix="bertc_")
    return bert.BERTClassifier(inner, num_classes=3, dropout=0.1, prefix="cls_")


def _transformer_encoder():
    return transformer.TransformerEncoder(num_layers=2, num_heads=4, units=16, hidden_size=32, max_length=16,
                                          dropout=0.1, prefix="tenc_")


HYBRID_MODELS = {"bert": _bert, "bert_classifier": _bert_classifier, "transformer_encoder": _transformer_encoder}


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("name", sorted(HYBRID_MODELS))
def test_model_with_mxnet_parameters_gives_mxnet_outputs(name, hybridize):
    """BERT (sequence, pooled, next-sentence and masked-LM outputs), BERTClassifier and the
    Transformer encoder with valid lengths."""
    model = HYBRID_MODELS[name]()
    model.load_parameters(os.path.join(DATA, name + ".params"))
    if hybridize:
        model.hybridize()
    outputs = model(*_inputs(name))
    _compare(name, "hybrid" if hybridize else "out", outputs)


def _nmt():
    src_vocab = nlp.Vocab(Counter({"s%d" % i: 30 - i for i in range(16)}))
    tgt_vocab = nlp.Vocab(Counter({"t%d" % i: 30 - i for i in range(14)}))
    assert [len(src_vocab), len(tgt_vocab)] == REF["transformer:sizes"].tolist()
    enc, dec, one_step = transformer.get_transformer_encoder_decoder(
        num_layers=2, num_heads=4, units=16, hidden_size=32, dropout=0.1, max_src_length=16, max_tgt_length=16)
    model = translation.NMTModel(src_vocab=src_vocab, tgt_vocab=tgt_vocab, encoder=enc, decoder=dec,
                                 one_step_ahead_decoder=one_step, embed_size=16, prefix="nmt_")
    model.load_parameters(os.path.join(DATA, "transformer.params"))
    return model, tgt_vocab


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
def test_transformer_nmt_model_gives_mxnet_scores(hybridize):
    """``NMTModel`` over ``get_transformer_encoder_decoder``: the decoder's scores over the target
    vocabulary for a source / target batch with valid lengths."""
    model, _ = _nmt()
    if hybridize:
        model.hybridize()
    outputs = model(*_inputs("transformer"))
    _compare("transformer", "hybrid" if hybridize else "out", outputs[0])


def test_transformer_beam_search_translation():
    """``BeamSearchSampler`` (beam 3, ``BeamSearchScorer(alpha=0.6, K=5)``, 6 steps) over the NMT
    model's ``decode_step``, as GluonNLP's translation scripts drive it: MXNet's samples, scores
    and lengths."""
    model, tgt_vocab = _nmt()
    src, _, src_valid, _ = _inputs("transformer")
    encoded, _ = model.encode(src, valid_length=src_valid)
    states = model.decoder.init_state_from_encoder(encoded, src_valid)

    def step(inputs, step_states):
        output, step_states, _ = model.decode_step(inputs, step_states)
        return mx.nd.log_softmax(output), step_states

    sampler = nlp.model.BeamSearchSampler(beam_size=3, decoder=step, eos_id=tgt_vocab[tgt_vocab.eos_token],
                                          scorer=nlp.model.BeamSearchScorer(alpha=0.6, K=5), max_length=6)
    start = mx.nd.full(shape=(src.shape[0],), val=tgt_vocab[tgt_vocab.bos_token])
    samples, scores, lengths = sampler(start, states)
    np.testing.assert_array_equal(samples.asnumpy(), REF["transformer:beam:samples"])
    np.testing.assert_allclose(scores.asnumpy(), REF["transformer:beam:scores"], rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(lengths.asnumpy(), REF["transformer:beam:lengths"])


def _language_model_outputs(name, model, hybridize=False):
    if hybridize:
        model.hybridize()
    state = model.begin_state(batch_size=REF[name + ":in:0"].shape[1], func=mx.nd.zeros)
    output, new_state = model(_inputs(name)[0], state)
    _compare(name, "hybrid" if hybridize else "out", output)
    _compare(name, "hybrid_state" if hybridize else "state", new_state)


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
def test_awd_lstm_language_model(hybridize):
    model = language_model.AWDRNN("lstm", vocab_size=30, embed_size=8, hidden_size=12, num_layers=3,
                                  tie_weights=True, dropout=0.4, weight_drop=0.5, drop_h=0.2, drop_i=0.65,
                                  drop_e=0.1, prefix="awd_")
    model.load_parameters(os.path.join(DATA, "awd_lstm.params"))
    _language_model_outputs("awd_lstm", model, hybridize)


def test_standard_gru_language_model():
    model = language_model.StandardRNN("gru", vocab_size=30, embed_size=8, hidden_size=8, num_layers=2, dropout=0.2,
                                       tie_weights=True, prefix="std_")
    model.load_parameters(os.path.join(DATA, "standard_gru.params"))
    _language_model_outputs("standard_gru", model)


def test_get_model_standard_lstm_lm_200():
    """``get_model('standard_lstm_lm_200', vocab=..., pretrained=False)``: the same parameter
    names and shapes as MXNet's, and with the generator's parameters MXNet's outputs."""
    vocab = nlp.Vocab(Counter({"w%d" % i: 50 - i for i in range(36)}))
    model, returned_vocab = nlp.model.get_model("standard_lstm_lm_200", vocab=vocab, pretrained=False)
    assert returned_vocab is vocab
    model.initialize()
    params = model.collect_params()
    assert [[name, list(p.shape)] for name, p in params.items()] == PIPELINE["param_shapes"]["standard_lstm_lm_200"]
    draw = np.random.RandomState(PIPELINE["seed"])
    for param in params.values():
        param.set_data(mx.nd.array(draw.uniform(-0.1, 0.1, param.shape).astype(np.float32)))
    _language_model_outputs("standard_lstm_lm_200", model)


# ---------------------------------------------------------------- data pipeline

TEXT = "the quick brown fox jumps over the lazy dog the fox"
SENTENCES = ["Hello, World! It's  a\tTEST.", "Jim Henson was a puppeteer.", "unaffable naïve café 中文字"]
PIECES = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", ",", "world", "!", "it", "'", "s", "a", "test", ".",
          "un", "##aff", "##able", "jim", "hen", "##son", "was", "puppet", "##eer", "na", "##ive"]


def test_vocab():
    counter = nlp.data.count_tokens(TEXT.split())
    assert sorted([list(item) for item in counter.items()]) == PIPELINE["count_tokens"]
    vocab = nlp.Vocab(counter, max_size=6, min_freq=1, unknown_token="<unk>", padding_token="<pad>",
                      bos_token="<bos>", eos_token="<eos>", reserved_tokens=["<sep>"])
    want = PIPELINE["vocab"]
    assert vocab.idx_to_token == want["idx_to_token"]
    assert len(vocab) == want["len"]
    assert vocab[["the", "fox", "cat", "<pad>", "dog"]] == want["lookup"]
    assert vocab.to_tokens([0, 3, 5, 7]) == want["to_tokens"]
    assert vocab.reserved_tokens == want["reserved_tokens"]
    assert json.loads(vocab.to_json()) == want["json"]
    assert nlp.Vocab.from_json(vocab.to_json()).idx_to_token == want["idx_to_token"]
    assert nlp.Vocab(counter, min_freq=2).idx_to_token == PIPELINE["vocab_min_freq"]


def test_bert_tokenizers_and_sentence_transform():
    assert [nlp.data.BERTBasicTokenizer(lower=True)(s) for s in SENTENCES] == PIPELINE["bert_basic"]
    assert [nlp.data.BERTBasicTokenizer(lower=False)(s) for s in SENTENCES] == PIPELINE["bert_basic_cased"]
    bert_vocab = nlp.vocab.BERTVocab(Counter(PIECES))
    assert bert_vocab.idx_to_token == PIPELINE["bert_vocab"]
    wordpiece = nlp.data.BERTTokenizer(bert_vocab, lower=True)
    assert [wordpiece(s) for s in SENTENCES] == PIPELINE["bert_wordpiece"]
    assert [wordpiece.convert_tokens_to_ids(wordpiece(s)) for s in SENTENCES] == PIPELINE["bert_wordpiece_ids"]
    transform = nlp.data.BERTSentenceTransform(wordpiece, max_seq_length=12, pad=True, pair=True)
    ids, length, segments = transform((SENTENCES[0], SENTENCES[1]))
    assert [ids.tolist(), int(length), segments.tolist()] == PIPELINE["bert_sentence_transform"]


def test_sequence_transforms():
    assert nlp.data.ClipSequence(3)([1, 2, 3, 4, 5]) == PIPELINE["clip_sequence"]
    assert list(nlp.data.PadSequence(6, pad_val=-1)([1, 2, 3])) == PIPELINE["pad_sequence"]
    assert list(nlp.data.PadSequence(2, pad_val=-1, clip=True)([1, 2, 3])) == PIPELINE["pad_sequence_clip"]


def test_batchify():
    samples = [np.arange(n, dtype=np.int32) + n for n in (3, 5, 2, 4, 1)]
    padded, lengths = nlp.data.batchify.Pad(axis=0, pad_val=-1, ret_length=True)(samples)
    assert isinstance(padded, mx.nd.NDArray)
    want = PIPELINE["pad"]
    assert padded.asnumpy().tolist() == want["data"] and str(padded.dtype) == want["dtype"]
    assert lengths.asnumpy().tolist() == want["length"]
    assert nlp.data.batchify.Pad(pad_val=0, round_to=4)(samples).asnumpy().tolist() == PIPELINE["pad_round_to"]
    padded = nlp.data.batchify.Pad(pad_val=0, dtype="float32")([np.ones((2, 3)), 2 * np.ones((4, 3))])
    assert padded.asnumpy().tolist() == PIPELINE["pad_2d"]["data"] and str(padded.dtype) == PIPELINE["pad_2d"]["dtype"]
    stacked = nlp.data.batchify.Stack()([np.array([1, 2]), np.array([3, 4])])
    assert stacked.asnumpy().tolist() == PIPELINE["stack"]["data"] and str(stacked.dtype) == PIPELINE["stack"]["dtype"]
    pairs = [(np.array([1, 2, 3]), 0), (np.array([4]), 1)]
    tup = nlp.data.batchify.Tuple(nlp.data.batchify.Pad(pad_val=0), nlp.data.batchify.Stack("float32"))(pairs)
    assert [tup[0].asnumpy().tolist(), tup[1].asnumpy().tolist(), str(tup[1].dtype)] == PIPELINE["tuple"]
    out = nlp.data.batchify.Dict({"a": nlp.data.batchify.Pad(pad_val=9), "b": nlp.data.batchify.Stack()})(
        [{"a": [1, 2], "b": 1}, {"a": [3], "b": 2}])
    assert {"a": out["a"].asnumpy().tolist(), "b": out["b"].asnumpy().tolist()} == PIPELINE["dict"]


def test_bucket_samplers():
    lengths = PIPELINE["sampler_lengths"]
    assert lengths == [int(n) for n in np.random.RandomState(1).randint(2, 30, 40)]
    fixed = nlp.data.FixedBucketSampler(lengths, batch_size=4, num_buckets=4, shuffle=False)
    want = PIPELINE["fixed_bucket"]
    assert [list(map(int, b)) for b in fixed] == want["batches"]
    assert len(fixed) == want["len"] and [int(k) for k in fixed._bucket_keys] == want["keys"]
    ratio = nlp.data.FixedBucketSampler(lengths, batch_size=4, num_buckets=3, ratio=0.5, shuffle=False)
    assert [list(map(int, b)) for b in ratio] == PIPELINE["fixed_bucket_ratio"]
    sorted_sampler = nlp.data.SortedBucketSampler(lengths, batch_size=5, mult=2, shuffle=False)
    assert [list(map(int, b)) for b in sorted_sampler] == PIPELINE["sorted_bucket"]


def test_fasttext_ngram_hashes_of_non_ascii_words():
    """``NGramHashes`` (fastText's n-gram hashing) of ASCII and non-ASCII words: MXNet's ids
    (GluonNLP's hash fails on NumPy 2 without mxtorch's package compat shim)."""
    hashes = nlp.vocab.create_subword_function("NGramHashes", ngrams=[3, 4, 5, 6], num_subwords=1000)
    assert [list(map(int, h)) for h in hashes(["test", "τεστ", "café naïve"])] == PIPELINE["ngram_hashes"]


@pytest.mark.parametrize("name", ["bert", "transformer_encoder"])
def test_hybridized_model_exports_to_onnx_with_mxnet_outputs(name, tmp_path, capfd):
    """GluonNLP model -> ``HybridBlock.export`` (MXNet's ``-symbol.json`` / ``.params``) ->
    ``mxtorch.export.to_onnx``: onnxruntime gives MXNet's outputs.  BERT's masked-position
    gather has a data-dependent index check, so torch.export's route fails and the
    TorchScript-based exporter writes the file; the failed trace's graph dump stays quiet."""
    onnxruntime = pytest.importorskip("onnxruntime")
    from mxtorch import export
    model = HYBRID_MODELS[name]()
    model.load_parameters(os.path.join(DATA, name + ".params"))
    model.hybridize()
    inputs = _inputs(name)
    model(*inputs)
    model.export(str(tmp_path / name))
    symbol, arg_params, aux_params = mx.model.load_checkpoint(str(tmp_path / name), 0)
    data_names = [n for n in symbol.list_arguments() if n not in arg_params]
    given = [x for x in inputs if x is not None]
    assert len(data_names) == len(given)
    path = export.to_onnx(symbol, arg_params, aux_params, [(n, x.shape) for n, x in zip(data_names, given)],
                          str(tmp_path / (name + ".onnx")))
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    got = session.run(None, {n: x.asnumpy() for n, x in zip(data_names, given)})
    keys = sorted((k for k in REF.files if k.startswith(f"{name}:hybrid:")), key=lambda k: int(k.rsplit(":", 1)[1]))
    assert len(got) == len(keys)
    for key, value in zip(keys, got):
        np.testing.assert_allclose(value, REF[key], rtol=RTOL, atol=ATOL, err_msg=key)
    assert "def forward(" not in capfd.readouterr().err


def _gradients(name, block, inputs):
    """As the generator's ``gradients``: each parameter's gradient of ``sum(output_k * weight_k)``
    (weights from ``RandomState(3)``), recorded with ``train_mode=False``."""
    with mx.autograd.record(train_mode=False):
        outputs = _flatten(block(*inputs))
        draw = np.random.RandomState(3)
        total = None
        for output in outputs:
            term = (output * mx.nd.array(draw.uniform(-1, 1, output.shape).astype(np.float32))).sum()
            total = term if total is None else total + term
    total.backward()
    want = {k[len(name) + len(":grad:"):]: REF[k] for k in REF.files if k.startswith(name + ":grad:")}
    got = {pname: param.grad().asnumpy() for pname, param in block._collect_params_with_prefix().items()
           if param.grad_req != "null"}
    assert sorted(got) == sorted(want)
    for pname, value in got.items():
        np.testing.assert_allclose(value, want[pname], rtol=RTOL, atol=1e-4, err_msg=pname)


def test_bert_parameter_gradients():
    """Backward through the hybridized BERT (all four heads, the decoder tied to the word
    embedding): MXNet's gradient for every parameter."""
    model = _bert()
    model.load_parameters(os.path.join(DATA, "bert.params"))
    model.hybridize()
    _gradients("bert", model, _inputs("bert"))


def test_awd_lstm_parameter_gradients():
    """Backward through the AWD LSTM LM (3 layers, tied embedding and decoder) from zero states."""
    model = language_model.AWDRNN("lstm", vocab_size=30, embed_size=8, hidden_size=12, num_layers=3,
                                  tie_weights=True, dropout=0.4, weight_drop=0.5, drop_h=0.2, drop_i=0.65,
                                  drop_e=0.1, prefix="awd_")
    model.load_parameters(os.path.join(DATA, "awd_lstm.params"))
    state = model.begin_state(batch_size=REF["awd_lstm:in:0"].shape[1], func=mx.nd.zeros)
    _gradients("awd_lstm", model, [_inputs("awd_lstm")[0], state])
