"""Reference data for tests/test_mkldnn_subgraph.py, from MXNet 1.9.1 (CPU build with oneDNN).

Run with MXNet's interpreter:  ~/mxref/bin/python tools/gen_mkldnn_reference.py
Writes tests/data/mkldnn/:
- <case>-fused.json: ``sym.get_backend_symbol('MKLDNN')`` of each float model;
- <case>-quantized.json / <case>-quantized.params: the model fused by 'MKLDNN_QUANTIZE',
  quantized by ``contrib.quant.quantize_model`` (calib_mode='naive' on the case's data) and fused
  again by 'MKLDNN_QUANTIZE' (MXNet's int8 oneDNN graph, _sg_mkldnn_* nodes);
- <case>.npz: the input ``data``, the float model's output ``float_out`` and the int8 graph's
  output ``int8_out`` (both MXNet's);
- tiny_int8-symbol.json / -0000.params / .npz: a Gluon network through quantize_net (see
  gluon_int8), the layout of GluonCV's int8 model zoo files;
- selfatt_qk / selfatt_valatt -fused.json and -quantized.json, selfatt.npz: the self-attention
  products fused by 'MKLDNN' and quantized (see selfatt);
- single_conv_int8 / _uint8 -quantized.json / .params, single_conv.npz: one calibrated int8
  convolution of int8 and of uint8 data and its int8 output (see single_conv).

Each .npz holds ``vnni``: whether the CPU that ran MXNet has AVX-512 VNNI, which changes the
numbers of oneDNN's int8 kernels (see mxtorch.ops.quantized_mkldnn).  The files of the first cases
came from a CPU with VNNI.  ``python tools/gen_mkldnn_reference.py NAME`` writes only the case
NAME (selfatt, single_conv).
"""
import json
import os
import sys

import mxnet as mx
import numpy as np
from mxnet.module import Module

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "mkldnn")


def conv_bn_relu_add():
    data = mx.sym.Variable("data")
    conv = mx.sym.Convolution(data, num_filter=8, kernel=(3, 3), pad=(1, 1), name="conv")
    bn = mx.sym.BatchNorm(conv, name="bn", fix_gamma=False)
    relu = mx.sym.Activation(bn, act_type="relu", name="relu")
    conv1 = mx.sym.Convolution(data, num_filter=8, kernel=(3, 3), pad=(1, 1), name="conv1")
    total = relu + conv1
    act = mx.sym.Activation(total, act_type="relu", name="relu1")
    pool = mx.sym.Pooling(act, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool")
    fc = mx.sym.FullyConnected(pool, num_hidden=6, name="fc")
    return mx.sym.Activation(fc, act_type="relu", name="relu2"), (2, 4, 6, 6), "uint8"


def add_then_conv():
    # the sum's chain is the right operand; conv without bias; FC without eltwise
    data = mx.sym.Variable("data")
    pool = mx.sym.Pooling(mx.sym.Convolution(data, num_filter=4, kernel=(1, 1), name="conv0"),
                          kernel=(1, 1), pool_type="avg", name="pool")
    conv = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), pad=(1, 1), no_bias=True, name="conv")
    total = pool + conv
    fc = mx.sym.FullyConnected(total, num_hidden=5, name="fc")
    return fc, (2, 3, 5, 5), "int8"


CASES = {"conv_bn_relu_add": conv_bn_relu_add, "add_then_conv": add_then_conv}


class OneBatch(mx.io.DataIter):
    def __init__(self, batch, shape):
        super().__init__(shape[0])
        self.provide_data = [("data", shape)]
        self.provide_label = []
        self.batch = batch

    def __iter__(self):
        yield self.batch


def run(sym, args, aux, data):
    mod = Module(symbol=sym, label_names=None)
    mod.bind(for_training=False, data_shapes=[("data", data.shape)])
    mod.set_params(args, aux)
    mod.forward(mx.io.DataBatch([data], []), is_train=False)
    return mod.get_outputs()[0].asnumpy()


def gluon_int8():
    """A tiny Gluon network quantized by contrib.quant.quantize_net (calib_mode='naive') and exported,
    as GluonCV's *_int8 model files are: tiny_int8-symbol.json / tiny_int8-0000.params / tiny_int8.npz."""
    from mxnet.gluon import nn
    mx.random.seed(11); np.random.seed(11)
    with mx.name.NameManager():
        net = nn.HybridSequential(prefix='tiny_')
        with net.name_scope():
            net.add(nn.Conv2D(8, 3, padding=1, use_bias=False), nn.BatchNorm(), nn.Activation('relu'),
                    nn.Conv2D(8, 3, padding=1), nn.Activation('relu'), nn.MaxPool2D(2), nn.Dense(5))
        net.initialize(mx.init.Xavier(magnitude=2.0))
    x = mx.nd.array(np.random.uniform(-1, 1, (2, 3, 8, 8)).astype(np.float32))
    net(x)
    for p in net.collect_params().values():
        if p.name.endswith('running_var'): p.set_data(mx.nd.array(np.random.uniform(0.5, 1.5, p.shape)))
        if p.name.endswith('running_mean'): p.set_data(mx.nd.array(np.random.uniform(-0.2, 0.2, p.shape)))
    float_out = net(x).asnumpy()
    calib = mx.io.NDArrayIter(x, batch_size=2)
    q = mx.contrib.quant.quantize_net(net, quantized_dtype='auto', calib_mode='naive', calib_data=calib, num_calib_examples=2, ctx=mx.cpu(), data_shapes=[mx.io.DataDesc('data', (2, 3, 8, 8))])
    q.hybridize(static_alloc=True, static_shape=True)
    int8_out = q(x).asnumpy()
    q.export(os.path.join(OUT, 'tiny_int8'))
    np.savez(os.path.join(OUT, 'tiny_int8.npz'), data=x.asnumpy(), float_out=float_out, int8_out=int8_out,
             vnni=np.array(cpu_vnni()))
    print(float_out[0], int8_out[0])


def selfatt():
    """interleaved_matmul_selfatt_qk / _valatt through 'MKLDNN' (selfatt_*-fused.json) and
    quantize_model (calib_mode naive, then 'MKLDNN_QUANTIZE': selfatt_*-quantized.json); the
    float outputs and those of the int8 graphs in selfatt.npz (qk_float, qk_int8, qk_uncalibrated:
    calib_mode none, valatt_float, valatt_int8).  The keys (the weights of the qk product) stay
    within 0.4 of the queries' range and the values within 0.5: oneDNN's int8 kernels without
    VNNI sum pairs of uint8 x int8 products in int16 with saturation (the int8 source shifted by
    128), which these ranges keep from saturating, so the int8 results are the exact products."""
    rng = np.random.RandomState(5)
    seq, batch, heads, head_dim = 4, 2, 2, 6     # seq = batch * heads: one batch axis for calibration
    qkv = rng.uniform(-1, 1, (seq, batch * heads, 3, head_dim))
    qkv[:, :, 1] *= 0.4
    qkv[:, :, 2] *= 0.5
    qkv = mx.nd.array(qkv.reshape(seq, batch, heads * 3 * head_dim).astype(np.float32))
    att = mx.nd.array(rng.uniform(0, 1, (batch * heads, seq, seq)).astype(np.float32))
    out = {"qkv": qkv.asnumpy(), "attention": att.asnumpy()}
    data = mx.sym.Variable("data")
    qk = mx.sym.contrib.interleaved_matmul_selfatt_qk(queries_keys_values=data, heads=heads, name="qk")
    valatt = mx.sym.contrib.interleaved_matmul_selfatt_valatt(
        queries_keys_values=data, attention=mx.sym.Variable("attention"), heads=heads, name="valatt")
    for name, sym, feeds in (("qk", qk, {"data": qkv}), ("valatt", valatt, {"data": qkv, "attention": att})):
        with open(os.path.join(OUT, f"selfatt_{name}-fused.json"), "w") as f:
            f.write(sym.get_backend_symbol("MKLDNN").tojson())
        ex = sym.bind(mx.cpu(), dict(feeds))
        out[f"{name}_float"] = ex.forward()[0].asnumpy()
        shapes = [(k, v.shape) for k, v in feeds.items()]
        modes = ("naive", "none") if name == "qk" else ("naive",)
        for mode in modes:
            calib = dict(calib_mode="none")
            if mode == "naive":
                calib = dict(calib_mode="naive", num_calib_examples=1,
                             calib_data=OneBatch(mx.io.DataBatch(list(feeds.values()), []), shapes[0][1]))
                calib["calib_data"].provide_data = shapes
            qsym, _, _ = mx.contrib.quant.quantize_model(
                sym=sym.get_backend_symbol("MKLDNN_QUANTIZE"), arg_params={}, aux_params={},
                ctx=mx.cpu(), quantized_dtype="auto", data_names=tuple(feeds), label_names=None,
                quantize_mode="full", **calib)
            qsym = qsym.get_backend_symbol("MKLDNN_QUANTIZE")
            result = qsym.bind(mx.cpu(), dict(feeds)).forward()[0].asnumpy()
            if mode == "naive":
                qsym.save(os.path.join(OUT, f"selfatt_{name}-quantized.json"))
                out[f"{name}_int8"] = result
            else:
                out[f"{name}_uncalibrated"] = result
    out["vnni"] = np.array(cpu_vnni())
    np.savez(os.path.join(OUT, "selfatt.npz"), **out)
    print({k: v.ravel()[:3] for k, v in out.items()})


def cpu_vnni():
    with open("/proc/cpuinfo") as handle:
        return "avx512_vnni" in handle.read()


def single_conv():
    """A 3x3 convolution (16 filters over 8 channels, weights uniform in (-1, 1)) fused and
    quantized (calib_mode naive) on int8 data in (-1, 1) and on uint8 data in (0, 1): the int8
    output of the quantized convolution for each.  Without VNNI, oneDNN's int16 pair sums
    saturate on these uint8 inputs, and its int8 source runs with halved weights."""
    rng = np.random.RandomState(0)
    out = {"vnni": np.array(cpu_vnni())}
    for kind in ("int8", "uint8"):
        data = mx.sym.Variable("data")
        conv = mx.sym.Convolution(data, num_filter=16, kernel=(3, 3), pad=(1, 1), name="conv")
        shape = (2, 8, 10, 10)
        x = rng.uniform(-1 if kind == "int8" else 0, 1, shape).astype(np.float32)
        args = {"conv_weight": mx.nd.array(rng.uniform(-1, 1, (16, 8, 3, 3))),
                "conv_bias": mx.nd.array(rng.uniform(-1, 1, (16,)))}
        qsym, qargs, _ = mx.contrib.quant.quantize_model(
            conv.get_backend_symbol("MKLDNN_QUANTIZE"), args, {}, ctx=mx.cpu(), calib_mode="naive",
            calib_data=OneBatch(mx.io.DataBatch([mx.nd.array(x)], []), shape), label_names=None,
            num_calib_examples=2, quantized_dtype=kind, quantize_mode="full")
        qsym = qsym.get_backend_symbol("MKLDNN_QUANTIZE")
        q = qsym.get_internals()["quantized_sg_mkldnn_conv_0_output"]
        mod = Module(symbol=q, label_names=None)
        mod.bind(for_training=False, data_shapes=[("data", shape)])
        mod.set_params(qargs, {})
        mod.forward(mx.io.DataBatch([mx.nd.array(x)], []), is_train=False)
        qsym.save(os.path.join(OUT, f"single_conv_{kind}-quantized.json"))
        mx.nd.save(os.path.join(OUT, f"single_conv_{kind}-quantized.params"), {f"arg:{k}": v for k, v in qargs.items()})
        out[f"data_{kind}"] = x
        out[f"out_{kind}"] = mod.get_outputs()[0].asnumpy()
    np.savez(os.path.join(OUT, "single_conv.npz"), **out)
    print({k: v.ravel()[:4] for k, v in out.items()})


def main():
    os.makedirs(OUT, exist_ok=True)
    if sys.argv[1:]:
        {"selfatt": selfatt, "single_conv": single_conv}[sys.argv[1]]()
        return
    for name, make in CASES.items():
        mx.random.seed(7)
        np.random.seed(7)
        with mx.name.NameManager():
            sym, shape, dtype = make()
        with open(os.path.join(OUT, f"{name}-fused.json"), "w") as f:
            f.write(sym.get_backend_symbol("MKLDNN").tojson())
        mod = Module(symbol=sym, label_names=None)
        mod.bind(for_training=False, data_shapes=[("data", shape)])
        mod.init_params(mx.init.Normal(0.5))
        args, aux = mod.get_params()
        for key in aux:
            if key.endswith("moving_var"):
                aux[key] = mx.nd.array(np.random.uniform(0.5, 1.5, aux[key].shape))
            if key.endswith("moving_mean"):
                aux[key] = mx.nd.array(np.random.uniform(-0.2, 0.2, aux[key].shape))
        low = 0.0 if dtype == "uint8" else -1.0
        data = mx.nd.array(np.random.uniform(low, 1.0, shape).astype(np.float32))
        float_out = run(sym, args, aux, data)
        sg = sym.get_backend_symbol("MKLDNN_QUANTIZE")
        qsym, qargs, qaux = mx.contrib.quant.quantize_model(
            sym=sg, arg_params=args, aux_params=aux, ctx=mx.cpu(), quantized_dtype=dtype, calib_mode="naive",
            calib_data=OneBatch(mx.io.DataBatch([data], []), shape), label_names=None, num_calib_examples=1,
            quantize_mode="full")
        qsym = qsym.get_backend_symbol("MKLDNN_QUANTIZE")
        int8_out = run(qsym, qargs, qaux, data)
        qsym.save(os.path.join(OUT, f"{name}-quantized.json"))
        saved = {f"arg:{k}": v for k, v in qargs.items()}
        saved.update({f"aux:{k}": v for k, v in qaux.items()})
        mx.nd.save(os.path.join(OUT, f"{name}-quantized.params"), saved)
        np.savez(os.path.join(OUT, f"{name}.npz"), data=data.asnumpy(), float_out=float_out, int8_out=int8_out,
                 vnni=np.array(cpu_vnni()))
        print(name, "float", float_out.ravel()[:4], "int8", int8_out.ravel()[:4])
    gluon_int8()
    selfatt()


if __name__ == "__main__":
    main()
