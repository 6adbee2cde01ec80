"""Write tests/data/gluonnlp/: GluonNLP 0.10.0 models and data pipeline results under MXNet 1.9.1.

Models (small hyper-parameters, built with GluonNLP's own classes; parameters initialised by
MXNet and saved with ``save_parameters`` as ``<name>.params``):

- ``bert``: ``BERTModel(BERTEncoder(2 layers, units 16, hidden 32, 2 heads), vocab 30,
  token types 2, pooler + decoder + classifier)`` on token ids, token types, valid lengths
  and masked positions (outputs: sequence, pooled, next-sentence scores, masked-LM scores);
- ``bert_classifier``: ``BERTClassifier`` (3 classes) over a second such BERT without decoder;
- ``transformer``: ``NMTModel`` over ``get_transformer_encoder_decoder(2 layers, units 16,
  hidden 32, 4 heads)``, source/target vocabularies of 20 and 18 words (output: the decoder's
  scores on the target sequence with valid lengths; a ``BeamSearchSampler`` translation of the
  source batch: samples, scores, lengths);
- ``transformer_encoder``: the ``TransformerEncoder`` alone (its output with valid lengths);
- ``awd_lstm``: ``AWDRNN('lstm', vocab 30, embed 8, hidden 12, 3 layers, tied weights)``;
- ``standard_gru``: ``StandardRNN('gru', vocab 30, embed 8, hidden 8, 2 layers, tied)``;
- ``standard_lstm_lm_200``: ``gluonnlp.model.get_model('standard_lstm_lm_200',
  vocab=Vocab(36 words + 4 special tokens), pretrained=False)`` with parameters drawn from
  ``RandomState(SEED)`` (too large to store: the test draws them again, in ``collect_params()``
  order).

For BERT (hybridized) and the AWD LM, ``:grad:<structural parameter name>`` holds the
parameter gradients of a weighted sum of the outputs (``gradients``).

Each model runs imperatively and, except StandardRNN (whose hybrid_forward calls ``nd.Dropout``:
MXNet cannot hybridize it either), hybridized (``:hybrid:<k>``, the AWD LM's ``:hybrid_state:<k>``).
``reference.npz`` holds the inputs (``<name>:in:<k>``) and outputs (``<name>:out:<k>``,
``<name>:hybrid:<k>``, for the LM ``:state:<k>`` too).

Data pipeline (``pipeline.json``): ``Vocab`` built from a ``Counter`` (indices, unknown /
reserved tokens, ``to_tokens``), ``BERTBasicTokenizer``, ``BERTTokenizer`` (word pieces),
``nlp.data.count_tokens``, batchify ``Pad`` / ``Stack`` / ``Tuple`` / ``Dict``, ``FixedBucketSampler`` and ``SortedBucketSampler`` batches,
``ClipSequence`` / ``PadSequence`` transforms, ``BERTSentenceTransform``, fastText ``NGramHashes``
of ASCII and non-ASCII words.

Run with the reference interpreter: /root/mxref/bin/python tools/gen_gluonnlp_reference.py
"""
import json
import os
import warnings
from collections import Counter

import numpy as np

warnings.filterwarnings("ignore")
import mxnet as mx  # noqa: E402
import gluonnlp as nlp  # noqa: E402
from gluonnlp.model import bert, transformer, language_model, translation  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "gluonnlp")
SEED = 7


def _flatten(values):
    """The arrays of ``values`` in order (LM outputs nest: (output, [[h, c], ...]))."""
    if not isinstance(values, (list, tuple)):
        return [values]
    return [array for value in values for array in _flatten(value)]


def _arrays(prefix, values):
    return {"%s:%d" % (prefix, i): v.asnumpy() for i, v in enumerate(_flatten(values))}


def _run(name, block, inputs, store, save=True):
    """``block(*inputs)`` imperatively and hybridized; records inputs, both outputs, params."""
    def nd(x):
        return None if x is None else mx.nd.array(x, dtype=x.dtype)
    out = block(*[nd(x) for x in inputs])
    store.update(_arrays(name + ":out", out))
    if save:
        block.save_parameters(os.path.join(OUT, name + ".params"))
    block.hybridize()
    hybrid = block(*[nd(x) for x in inputs])
    store.update(_arrays(name + ":hybrid", hybrid))
    for i, x in enumerate(inputs):
        if x is not None:
            store["%s:in:%d" % (name, i)] = x


def beam_search(nlp, mx, nmt, tgt_vocab, src, src_valid, beam_size=3, max_length=6):
    """Beam search over ``nmt`` (as GluonNLP's translation scripts drive it): encode, initial
    decoder states from the encoder, ``BeamSearchSampler`` on the log-softmax of
    ``decode_step`` from BOS.  Returns (samples, scores, valid lengths)."""
    encoded, _ = nmt.encode(src, valid_length=src_valid)
    states = nmt.decoder.init_state_from_encoder(encoded, src_valid)

    def step(inputs, step_states):
        output, step_states, _ = nmt.decode_step(inputs, step_states)
        return mx.nd.log_softmax(output), step_states

    sampler = nlp.model.BeamSearchSampler(beam_size=beam_size, decoder=step, eos_id=tgt_vocab[tgt_vocab.eos_token],
                                          scorer=nlp.model.BeamSearchScorer(alpha=0.6, K=5), max_length=max_length)
    start = mx.nd.full(shape=(src.shape[0],), val=tgt_vocab[tgt_vocab.bos_token])
    return sampler(start, states)


def gradients(mx, name, block, inputs, store):
    """Gradients of ``sum(output_k * weight_k)`` over every output (weights from ``RandomState(3)``)
    for each parameter, recorded with ``train_mode=False`` (dropout off, so deterministic), under
    ``<name>:grad:<structural parameter name>``."""
    with mx.autograd.record(train_mode=False):
        outputs = block(*inputs)
        outputs = _flatten(outputs)
        draw = np.random.RandomState(3)
        total = None
        for output in outputs:
            term = (output * mx.nd.array(draw.uniform(-1, 1, output.shape).astype(np.float32))).sum()
            total = term if total is None else total + term
    total.backward()
    for pname, param in block._collect_params_with_prefix().items():
        if param.grad_req != "null":
            store["%s:grad:%s" % (name, pname)] = param.grad().asnumpy()


def models(store):
    rng = np.random.RandomState(0)
    mx.random.seed(0)
    batch, length = 2, 7
    tokens = rng.randint(0, 30, (batch, length)).astype(np.float32)
    types = (np.arange(length)[None, :] >= 4).repeat(batch, 0).astype(np.float32)
    valid = np.array([7, 5], dtype=np.float32)
    masked = np.array([[1, 3], [0, 4]], dtype=np.float32)

    encoder = bert.BERTEncoder(num_layers=2, units=16, hidden_size=32, max_length=16, num_heads=2, dropout=0.1)
    model = bert.BERTModel(encoder, vocab_size=30, token_type_vocab_size=2, units=16, embed_size=16,
                           use_pooler=True, use_decoder=True, use_classifier=True, prefix="bert_")
    model.initialize(mx.init.Normal(0.2))
    _run("bert", model, [tokens, types, valid, masked], store)
    gradients(mx, "bert", model, [mx.nd.array(x) for x in (tokens, types, valid, masked)], store)

    encoder = bert.BERTEncoder(num_layers=2, units=16, hidden_size=32, max_length=16, num_heads=2)
    inner = bert.BERTModel(encoder, vocab_size=30, token_type_vocab_size=2, units=16, embed_size=16,
                           use_pooler=True, use_decoder=False, use_classifier=False, prefix="bertc_")
    classifier = bert.BERTClassifier(inner, num_classes=3, dropout=0.1, prefix="cls_")
    classifier.initialize(mx.init.Normal(0.2))
    _run("bert_classifier", classifier, [tokens, types, valid], store)

    src_vocab = nlp.Vocab(Counter({"s%d" % i: 30 - i for i in range(16)}))   # 16 + 4 special tokens
    tgt_vocab = nlp.Vocab(Counter({"t%d" % i: 30 - i for i in range(14)}))
    enc, dec, one_step = transformer.get_transformer_encoder_decoder(
        num_layers=2, num_heads=4, units=16, hidden_size=32, dropout=0.1, max_src_length=16, max_tgt_length=16)
    nmt = translation.NMTModel(src_vocab=src_vocab, tgt_vocab=tgt_vocab, encoder=enc, decoder=dec,
                               one_step_ahead_decoder=one_step, embed_size=16, prefix="nmt_")
    nmt.initialize(mx.init.Xavier(magnitude=3))
    src = rng.randint(0, len(src_vocab), (batch, 6)).astype(np.float32)
    tgt = rng.randint(0, len(tgt_vocab), (batch, 5)).astype(np.float32)
    src_valid = np.array([6, 4], dtype=np.float32)
    tgt_valid = np.array([5, 3], dtype=np.float32)
    out = nmt(mx.nd.array(src), mx.nd.array(tgt), mx.nd.array(src_valid), mx.nd.array(tgt_valid))
    store.update(_arrays("transformer:out", out[0]))
    nmt.save_parameters(os.path.join(OUT, "transformer.params"))
    samples, scores, lengths = beam_search(nlp, mx, nmt, tgt_vocab, mx.nd.array(src), mx.nd.array(src_valid))
    store["transformer:beam:samples"] = samples.asnumpy()
    store["transformer:beam:scores"] = scores.asnumpy()
    store["transformer:beam:lengths"] = lengths.asnumpy()
    nmt.hybridize()
    out = nmt(mx.nd.array(src), mx.nd.array(tgt), mx.nd.array(src_valid), mx.nd.array(tgt_valid))
    store.update(_arrays("transformer:hybrid", out[0]))
    for i, x in enumerate([src, tgt, src_valid, tgt_valid]):
        store["transformer:in:%d" % i] = x
    store["transformer:sizes"] = np.array([len(src_vocab), len(tgt_vocab)])

    enc_only = transformer.TransformerEncoder(num_layers=2, num_heads=4, units=16, hidden_size=32, max_length=16,
                                              dropout=0.1, prefix="tenc_")
    enc_only.initialize(mx.init.Xavier())
    feats = rng.uniform(-1, 1, (batch, 6, 16)).astype(np.float32)
    _run("transformer_encoder", enc_only, [feats, None, src_valid], store)   # (inputs, states, valid_length)

    seq = rng.randint(0, 30, (length, batch)).astype(np.float32)   # LMs are (time, batch)
    awd = language_model.AWDRNN("lstm", vocab_size=30, embed_size=8, hidden_size=12, num_layers=3, tie_weights=True,
                                dropout=0.4, weight_drop=0.5, drop_h=0.2, drop_i=0.65, drop_e=0.1, prefix="awd_")
    awd.initialize(mx.init.Xavier())
    state = awd.begin_state(batch_size=batch, func=mx.nd.zeros)
    out, new_state = awd(mx.nd.array(seq), state)
    store.update(_arrays("awd_lstm:out", out))
    store.update(_arrays("awd_lstm:state", new_state))
    awd.hybridize()
    out, new_state = awd(mx.nd.array(seq), awd.begin_state(batch_size=batch, func=mx.nd.zeros))
    store.update(_arrays("awd_lstm:hybrid", out))
    store.update(_arrays("awd_lstm:hybrid_state", new_state))
    awd.save_parameters(os.path.join(OUT, "awd_lstm.params"))
    gradients(mx, "awd_lstm", awd, [mx.nd.array(seq), awd.begin_state(batch_size=batch, func=mx.nd.zeros)], store)
    store["awd_lstm:in:0"] = seq

    gru = language_model.StandardRNN("gru", vocab_size=30, embed_size=8, hidden_size=8, num_layers=2, dropout=0.2,
                                     tie_weights=True, prefix="std_")
    gru.initialize(mx.init.Xavier())
    state = gru.begin_state(batch_size=batch, func=mx.nd.zeros)
    out, new_state = gru(mx.nd.array(seq), state)
    store.update(_arrays("standard_gru:out", out))
    store.update(_arrays("standard_gru:state", new_state))
    gru.save_parameters(os.path.join(OUT, "standard_gru.params"))
    store["standard_gru:in:0"] = seq

    lm_vocab = nlp.Vocab(Counter({"w%d" % i: 50 - i for i in range(36)}))   # 36 + 4 special tokens
    lm, _ = nlp.model.get_model("standard_lstm_lm_200", vocab=lm_vocab, pretrained=False)
    lm.initialize()
    draw = np.random.RandomState(SEED)
    names = []
    for pname, param in lm.collect_params().items():
        param.set_data(mx.nd.array(draw.uniform(-0.1, 0.1, param.shape).astype(np.float32)))
        names.append([pname, list(param.shape)])
    seq40 = rng.randint(0, 40, (length, batch)).astype(np.float32)
    state = lm.begin_state(batch_size=batch, func=mx.nd.zeros)
    out, new_state = lm(mx.nd.array(seq40), state)
    store.update(_arrays("standard_lstm_lm_200:out", out))
    store.update(_arrays("standard_lstm_lm_200:state", new_state))
    store["standard_lstm_lm_200:in:0"] = seq40
    return {"standard_lstm_lm_200": names}


def pipeline():
    result = {}
    text = "the quick brown fox jumps over the lazy dog the fox"
    counter = nlp.data.count_tokens(text.split())
    result["count_tokens"] = sorted(counter.items())
    vocab = nlp.Vocab(counter, max_size=6, min_freq=1, unknown_token="<unk>", padding_token="<pad>",
                      bos_token="<bos>", eos_token="<eos>", reserved_tokens=["<sep>"])
    result["vocab"] = {
        "idx_to_token": vocab.idx_to_token, "len": len(vocab),
        "lookup": vocab[["the", "fox", "cat", "<pad>", "dog"]],
        "to_tokens": vocab.to_tokens([0, 3, 5, 7]),
        "reserved_tokens": vocab.reserved_tokens, "unknown_token": vocab.unknown_token,
        "json": json.loads(vocab.to_json()),
    }
    vocab_min = nlp.Vocab(counter, min_freq=2)
    result["vocab_min_freq"] = vocab_min.idx_to_token

    basic = nlp.data.BERTBasicTokenizer(lower=True)
    sentences = ["Hello, World! It's  a\tTEST.", "Jim Henson was a puppeteer.", "unaffable naïve café 中文字"]
    result["bert_basic"] = [basic(s) for s in sentences]
    result["bert_basic_cased"] = [nlp.data.BERTBasicTokenizer(lower=False)(s) for s in sentences]
    pieces = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", ",", "world", "!", "it", "'", "s", "a", "test",
              ".", "un", "##aff", "##able", "jim", "hen", "##son", "was", "puppet", "##eer", "na", "##ive"]
    bert_vocab = nlp.vocab.BERTVocab(Counter(pieces))
    result["bert_vocab"] = bert_vocab.idx_to_token
    wordpiece = nlp.data.BERTTokenizer(bert_vocab, lower=True)
    result["bert_wordpiece"] = [wordpiece(s) for s in sentences]
    result["bert_wordpiece_ids"] = [wordpiece.convert_tokens_to_ids(wordpiece(s)) for s in sentences]
    transform = nlp.data.BERTSentenceTransform(wordpiece, max_seq_length=12, pad=True, pair=True)
    ids, length, segments = transform((sentences[0], sentences[1]))
    result["bert_sentence_transform"] = [ids.tolist(), int(length), segments.tolist()]

    result["clip_sequence"] = nlp.data.ClipSequence(3)([1, 2, 3, 4, 5])
    result["pad_sequence"] = nlp.data.PadSequence(6, pad_val=-1)([1, 2, 3])
    result["pad_sequence_clip"] = nlp.data.PadSequence(2, pad_val=-1, clip=True)([1, 2, 3])

    samples = [np.arange(n, dtype=np.int32) + n for n in (3, 5, 2, 4, 1)]
    pad = nlp.data.batchify.Pad(axis=0, pad_val=-1, ret_length=True)
    padded, lengths = pad(samples)
    result["pad"] = {"data": padded.asnumpy().tolist(), "dtype": str(padded.dtype), "length": lengths.asnumpy().tolist()}
    padded = nlp.data.batchify.Pad(pad_val=0, round_to=4)(samples)
    result["pad_round_to"] = padded.asnumpy().tolist()
    padded = nlp.data.batchify.Pad(pad_val=0, dtype="float32")([np.ones((2, 3)), 2 * np.ones((4, 3))])
    result["pad_2d"] = {"data": padded.asnumpy().tolist(), "dtype": str(padded.dtype)}
    stacked = nlp.data.batchify.Stack()([np.array([1, 2]), np.array([3, 4])])
    result["stack"] = {"data": stacked.asnumpy().tolist(), "dtype": str(stacked.dtype)}
    pairs = [(np.array([1, 2, 3]), 0), (np.array([4]), 1)]
    tup = nlp.data.batchify.Tuple(nlp.data.batchify.Pad(pad_val=0), nlp.data.batchify.Stack("float32"))(pairs)
    result["tuple"] = [tup[0].asnumpy().tolist(), tup[1].asnumpy().tolist(), str(tup[1].dtype)]
    dct = nlp.data.batchify.Dict({"a": nlp.data.batchify.Pad(pad_val=9), "b": nlp.data.batchify.Stack()})
    out = dct([{"a": [1, 2], "b": 1}, {"a": [3], "b": 2}])
    result["dict"] = {"a": out["a"].asnumpy().tolist(), "b": out["b"].asnumpy().tolist()}

    ngram_hashes = nlp.vocab.create_subword_function("NGramHashes", ngrams=[3, 4, 5, 6], num_subwords=1000)
    result["ngram_hashes"] = [list(map(int, h)) for h in ngram_hashes(["test", "τεστ", "café naïve"])]

    lengths = [int(n) for n in np.random.RandomState(1).randint(2, 30, 40)]
    result["sampler_lengths"] = lengths
    fixed = nlp.data.FixedBucketSampler(lengths, batch_size=4, num_buckets=4, shuffle=False)
    result["fixed_bucket"] = {"batches": [list(map(int, b)) for b in fixed], "len": len(fixed),
                              "keys": [int(k) for k in fixed._bucket_keys]}
    fixed_ratio = nlp.data.FixedBucketSampler(lengths, batch_size=4, num_buckets=3, ratio=0.5, shuffle=False)
    result["fixed_bucket_ratio"] = [list(map(int, b)) for b in fixed_ratio]
    sorted_sampler = nlp.data.SortedBucketSampler(lengths, batch_size=5, mult=2, shuffle=False)
    result["sorted_bucket"] = [list(map(int, b)) for b in sorted_sampler]
    return result


def main():
    os.makedirs(OUT, exist_ok=True)
    store = {}
    shapes = models(store)
    np.savez_compressed(os.path.join(OUT, "reference.npz"), **store)
    data = pipeline()
    data["param_shapes"] = shapes
    data["seed"] = SEED
    with open(os.path.join(OUT, "pipeline.json"), "w") as fh:
        json.dump(data, fh, indent=1, ensure_ascii=False)
    print("wrote", OUT, sorted(os.listdir(OUT)))


if __name__ == "__main__":
    main()
