"""Write MXNet 1.9.1 references for ``tests/test_rnn.py`` into ``tests/data/rnn``.

Run with the reference MXNet (never imported by mxtorch or its tests):

    ~/mxref/bin/python tools/gen_rnn_reference.py

Writes
- ``graphs.json``: ``tojson()`` (parsed) of every cell graph in ``tests/rnn_cases.GRAPHS``;
- ``numbers.npz``: for the graphs with input shapes, the arguments (``<case>|arg|<name>``),
  the outputs (``<case>|out|<k>``) and, for graphs without randomness, the head gradients
  (``<case>|head|<k>``) and argument gradients (``<case>|grad|<name>``) of one training
  forward + backward; random graphs (dropout, zoneout) are run in inference only;
- ``weights.npz``: cells' ``unpack_weights`` results (``<case>|packed|<name>`` /
  ``<case>|unpacked|<name>``);
- ``fused_ckpt-symbol.json`` / ``fused_ckpt-0003.params``: ``save_rnn_checkpoint`` of a
  FusedRNNCell (whose packed vector is ``weights.npz`` ``fused_ckpt|packed|...``);
- ``iterator.npz`` / ``iterator.json``: BucketSentenceIter batches for seeded runs;
- ``encode.json``: ``encode_sentences`` results;
- ``lm.npz``: a BucketingModule LSTM language model's parameters after training from
  fixed initial parameters (a manual loop over two epochs, and ``fit`` for one epoch).
"""
import json
import os
import random
import sys
import warnings

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import rnn_cases  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "data", "rnn")


def graphs_and_numbers():
    graphs, numbers = {}, {}
    for index, (name, (builder, deterministic)) in enumerate(rnn_cases.GRAPHS.items()):
        with mx.name.NameManager(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            symbol, shapes = builder(mx)
        graphs[name] = json.loads(symbol.tojson())
        if shapes is None:
            continue
        executor = symbol.simple_bind(mx.cpu(), grad_req="write", **shapes)
        state = np.random.RandomState(100 + index)
        for arg_name, array in zip(symbol.list_arguments(), executor.arg_arrays):
            value = state.uniform(-0.5, 0.5, size=array.shape).astype(np.float32)
            array[:] = value
            numbers[f"{name}|arg|{arg_name}"] = value
        outputs = executor.forward(is_train=bool(deterministic))
        for k, output in enumerate(outputs):
            numbers[f"{name}|out|{k}"] = output.asnumpy()
        if deterministic:
            heads = [state.uniform(-1, 1, size=o.shape).astype(np.float32) for o in outputs]
            executor.backward([mx.nd.array(h) for h in heads])
            for k, head in enumerate(heads):
                numbers[f"{name}|head|{k}"] = head
            for arg_name, grad in zip(symbol.list_arguments(), executor.grad_arrays):
                numbers[f"{name}|grad|{arg_name}"] = grad.asnumpy()
    with open(os.path.join(OUT, "graphs.json"), "w") as handle:
        json.dump(graphs, handle, sort_keys=True)
    np.savez_compressed(os.path.join(OUT, "numbers.npz"), **numbers)


WEIGHT_CELLS = {
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
}


def weights():
    result = {}
    state = np.random.RandomState(5)
    for name, make in WEIGHT_CELLS.items():
        cell = make()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outputs, _ = cell.unroll(2, mx.sym.Variable("data"), layout="TNC", merge_outputs=True)
        shape = (2, 1, 2, 4, 4) if name == "conv_lstm" else (2, 1, 4)
        arg_shapes, _, _ = outputs.infer_shape(data=shape)
        packed = {}
        for arg_name, arg_shape in zip(outputs.list_arguments(), arg_shapes):
            if arg_name == "data":
                continue
            packed[arg_name] = mx.nd.array(state.uniform(-1, 1, size=arg_shape).astype(np.float32))
        unpacked = cell.unpack_weights(packed)
        for key, value in packed.items():
            result[f"{name}|packed|{key}"] = value.asnumpy()
        for key, value in unpacked.items():
            result[f"{name}|unpacked|{key}"] = value.asnumpy()
        if name == "fused_ckpt":
            mx.rnn.save_rnn_checkpoint(cell, os.path.join(OUT, "fused_ckpt"), 3, outputs, packed, {})
    np.savez_compressed(os.path.join(OUT, "weights.npz"), **result)


ITERATOR_CASES = {
    "default": dict(batch_size=4),
    "tn_int": dict(batch_size=3, buckets=[6, 3], invalid_label=0, dtype="int32", layout="TN",
                   data_name="tokens", label_name="next"),
}


def iterators():
    arrays, meta = {}, {}
    sentences = rnn_cases.sentences()
    for name, kwargs in ITERATOR_CASES.items():
        random.seed(11)
        np.random.seed(11)
        iterator = mx.rnn.BucketSentenceIter(sentences, **kwargs)
        info = {"buckets": list(iterator.buckets), "default_bucket_key": iterator.default_bucket_key,
                "provide_data": [[d.name, list(d.shape), d.layout] for d in iterator.provide_data],
                "provide_label": [[d.name, list(d.shape), d.layout] for d in iterator.provide_label],
                "major_axis": iterator.major_axis, "epochs": []}
        for epoch in range(2):
            if epoch:
                iterator.reset()
            keys = []
            for k, batch in enumerate(iterator):
                keys.append([batch.bucket_key, [d.name for d in batch.provide_data],
                             list(batch.provide_data[0].shape), batch.pad, str(np.dtype(batch.data[0].dtype))])
                arrays[f"{name}|{epoch}|{k}|data"] = batch.data[0].asnumpy()
                arrays[f"{name}|{epoch}|{k}|label"] = batch.label[0].asnumpy()
            info["epochs"].append({"batches": keys, "idx": [list(map(int, p)) for p in iterator.idx]})
        for k, rows in enumerate(iterator.data):
            arrays[f"{name}|bucketdata|{k}"] = rows
        meta[name] = info
    np.savez_compressed(os.path.join(OUT, "iterator.npz"), **arrays)
    with open(os.path.join(OUT, "iterator.json"), "w") as handle:
        json.dump(meta, handle, indent=1, sort_keys=True)


def encodings():
    text = [["the", "cat", "sat"], ["the", "dog"], [], ["a", "cat", "\n", "the"]]
    result = {}
    encoded, vocab = mx.rnn.encode_sentences(text)
    result["default"] = [encoded, vocab]
    encoded, vocab = mx.rnn.encode_sentences(text, invalid_label=1, start_label=0, invalid_key="<eos>")
    result["invalid_1"] = [encoded, vocab]
    encoded, vocab = mx.rnn.encode_sentences([["cat", "the"]], vocab=dict(result["default"][1]))
    result["given_vocab"] = [encoded, vocab]
    with open(os.path.join(OUT, "encode.json"), "w") as handle:
        json.dump(result, handle, indent=1, sort_keys=True)


def language_model():
    result = {}
    initial = rnn_cases.lm_initial_params()
    for key, value in initial.items():
        result[f"initial|{key}"] = value
    optimizer, optimizer_params = rnn_cases.LM_OPTIMIZER

    # manual loop: forward / backward / update over two epochs
    random.seed(3)
    np.random.seed(3)
    iterator = mx.rnn.BucketSentenceIter(rnn_cases.sentences(), rnn_cases.LM_BATCH, buckets=list(rnn_cases.LM_BUCKETS),
                                         invalid_label=0)
    cell = mx.rnn.LSTMCell(rnn_cases.LM_HIDDEN, prefix="lstm_")
    module = mx.mod.BucketingModule(rnn_cases.lm_sym_gen(mx, cell), default_bucket_key=iterator.default_bucket_key,
                                    context=mx.cpu())
    module.bind(iterator.provide_data, iterator.provide_label)
    module.init_params(arg_params={k: mx.nd.array(v) for k, v in initial.items()}, allow_missing=False)
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
    result["loop|bucket_keys"] = np.array(keys)
    result["loop|perplexity"] = np.array(metric.get()[1])
    for key, value in module.get_params()[0].items():
        result[f"loop|{key}"] = value.asnumpy()

    # fit for one epoch, checkpointing with do_rnn_checkpoint
    random.seed(4)
    np.random.seed(4)
    iterator = mx.rnn.BucketSentenceIter(rnn_cases.sentences(), rnn_cases.LM_BATCH, buckets=list(rnn_cases.LM_BUCKETS),
                                         invalid_label=0)
    cell = mx.rnn.LSTMCell(rnn_cases.LM_HIDDEN, prefix="lstm_")
    module = mx.mod.BucketingModule(rnn_cases.lm_sym_gen(mx, cell), default_bucket_key=iterator.default_bucket_key,
                                    context=mx.cpu())
    module.fit(iterator, num_epoch=1, eval_metric=mx.metric.Perplexity(ignore_label=0),
               arg_params={k: mx.nd.array(v) for k, v in initial.items()}, optimizer=optimizer,
               optimizer_params=dict(optimizer_params))
    for key, value in module.get_params()[0].items():
        result[f"fit|{key}"] = value.asnumpy()
    np.savez_compressed(os.path.join(OUT, "lm.npz"), **result)


def main():
    os.makedirs(OUT, exist_ok=True)
    graphs_and_numbers()
    weights()
    iterators()
    encodings()
    language_model()
    print("wrote", sorted(os.listdir(OUT)))


if __name__ == "__main__":
    main()
