"""``mx.contrib.amp`` against MXNet 1.9.1's numbers and graphs (tests/data/amp/reference.json,
written by tools/gen_amp_reference.py): the operator lists, the converted graphs of
``convert_symbol`` / ``convert_model`` / ``convert_hybrid_block`` / ``convert_bucketing_module``,
and, in child processes (``amp.init`` changes the process for good), dynamic loss scaling with a
Gluon Trainer and the operator functions wrapped by ``amp.init``."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.contrib import amp

REFERENCE = json.loads((Path(__file__).parent / "data/amp/reference.json").read_text())
HERE = Path(__file__).resolve()


def dtype_name(dtype):
    dtype = np.dtype(dtype)
    return "bfloat16" if dtype.names == ("bfloat16",) else dtype.name


# -- the nets of tools/gen_amp_reference.py ------------------------------------------------------
def nets():
    result = {}
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=4, name="fc")
    act = mx.sym.Activation(fc, act_type="relu", name="act")
    result["fc_softmax_add"] = (mx.sym.elemwise_add(mx.sym.softmax(act, name="sm"), data, name="add"),
                                {"fc_weight": (4, 4), "fc_bias": (4,)}, {})
    conv = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, name="conv")
    bn = mx.sym.BatchNorm(conv, name="bn")
    relu = mx.sym.Activation(bn, act_type="relu", name="relu")
    pool = mx.sym.Pooling(relu, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool")
    fc2 = mx.sym.FullyConnected(mx.sym.Flatten(pool, name="flat"), num_hidden=3, name="fc2")
    result["conv_bn_softmaxoutput"] = (
        mx.sym.SoftmaxOutput(fc2, name="softmax"),
        {"conv_weight": (4, 2, 3, 3), "conv_bias": (4,), "bn_gamma": (4,), "bn_beta": (4,),
         "fc2_weight": (3, 16), "fc2_bias": (3,)}, {"bn_moving_mean": (4,), "bn_moving_var": (4,)})
    a = mx.sym.FullyConnected(data, num_hidden=3, name="fa")
    b = mx.sym.FullyConnected(data, num_hidden=3, name="fb")
    cat = mx.sym.Concat(a, b, dim=1, name="cat")
    mixed = mx.sym.elemwise_mul(a, mx.sym.exp(b, name="ex"), name="mixed")
    unknown = mx.sym.elemwise_add(a, data, name="plus")
    sr = mx.sym.Activation(a, act_type="softrelu", name="sr")
    parts = mx.sym.SliceChannel(cat, num_outputs=2, axis=1, name="parts")
    result["widest_and_multi_output"] = (
        mx.sym.Group([cat, mixed, unknown, sr, mx.sym.tanh(parts[1], name="th"), mx.sym.sum(parts[0], name="s")]),
        {"fa_weight": (3, 3), "fa_bias": (3,), "fb_weight": (3, 3), "fb_bias": (3,)}, {})
    x = mx.sym.var("x")
    f1 = mx.sym.FullyConnected(data, num_hidden=4, name="f1")
    halves = mx.sym.split(f1, num_outputs=2, name="sp")
    result["split_multicast_fp32_output"] = (
        mx.sym.Group([halves[0], halves[1], mx.sym.broadcast_add(f1, mx.sym.tanh(x, name="tx"), name="ba"),
                      mx.sym.sum(x, name="sy")]),
        {"f1_weight": (4, 3), "f1_bias": (4,)}, {})
    return result


# mxtorch's BatchNorm type rule keeps gamma/beta/moving statistics in float32 for float16 data only;
# MXNet 1.9.1 does so for bfloat16 too (ops/nn/batch_norm.py infer_type, outside the AMP files)


def structure(sym):
    return {"internals": sym.get_internals().list_outputs(), "attrs": sym.attr_dict()}


# -- the lists -------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", ["float16", "bfloat16"])
def test_the_operator_lists_are_mxnets(target):
    expected = REFERENCE["lists"][target]
    key = target if target == "float16" else amp.amp.bfloat16
    assert list(amp.list_lp16_ops(key)) == expected["lp16"]
    assert list(amp.list_fp32_ops(key)) == expected["fp32"]
    assert list(amp.list_lp16_fp32_ops(key)) == expected["lp16_fp32"]
    assert [[op, attr, list(values)] for op, attr, values in amp.list_conditional_fp32_ops(key)] == \
        expected["conditional_fp32"]
    assert list(amp.list_widest_type_cast(key)) == expected["widest"]
    assert list(amp.list_loss_output_functions(key)) == expected["loss_output"]
    assert amp.list_lp16_use_fp32_params(key) == expected["use_fp32_params"]


def test_bfloat16_lists_differ_from_float16():
    assert amp.list_lp16_ops(amp.amp.bfloat16) == ["Convolution", "FullyConnected"]
    assert "Deconvolution" in amp.list_fp32_ops(amp.amp.bfloat16)
    assert "Deconvolution" in amp.list_lp16_ops("float16")


# -- the converted graphs ------------------------------------------------------------------------
CASES = [(name, target) for name in ("fc_softmax_add", "conv_bn_softmaxoutput", "widest_and_multi_output",
                                          "split_multicast_fp32_output")
         for target in ("float16", "bfloat16")]


@pytest.mark.parametrize("name,target", CASES)
def test_convert_symbol_inserts_mxnets_casts(name, target):
    expected = REFERENCE["convert"][f"{name}/{target}"]
    sym = nets()[name][0]
    assert structure(amp.convert_symbol(sym, target_dtype=target)) == expected["symbol"]
    excluded = amp.convert_symbol(sym, target_dtype=target, excluded_sym_names=["fc", "conv", "cat", "fb", "x"])
    assert structure(excluded) == expected["excluded"]


MODEL_CASES = list(CASES)


@pytest.mark.parametrize("name,target", MODEL_CASES)
@pytest.mark.parametrize("optional", [False, True])
def test_convert_model_casts_the_parameters_as_mxnet(name, target, optional):
    expected = REFERENCE["convert"][f"{name}/{target}"][f"model_optional_{optional}"]
    sym, arg_shapes, aux_shapes = nets()[name]
    args = {k: mx.nd.ones(s) for k, s in arg_shapes.items()}
    aux = {k: mx.nd.ones(s) for k, s in aux_shapes.items()}
    converted, args, aux = amp.convert_model(sym, args, aux, target_dtype=target, cast_optional_params=optional)
    assert structure(converted) == {"internals": expected["internals"], "attrs": expected["attrs"]}
    assert {k: dtype_name(v.dtype) for k, v in args.items()} == expected["arg_dtypes"]
    assert {k: dtype_name(v.dtype) for k, v in aux.items()} == expected["aux_dtypes"]


def test_converted_graph_computes_in_half_precision_and_saves_without_casts():
    sym = nets()["fc_softmax_add"][0]
    converted = amp.convert_symbol(sym, target_dtype="float16")
    x = np.array([[1, 2, 3, 4], [-1, 0, 1, 2]], np.float32)
    w = np.array([[.1, .2, .3, .4], [-.1, 0, .1, .2], [.5, .5, .5, .5], [0, 0, 0, 1]], np.float32)
    b = np.array([0, 1, 0, 1], np.float32)
    ex = converted.simple_bind(mx.cpu(), data=(2, 4))
    ex.copy_params_from({"fc_weight": mx.nd.array(w), "fc_bias": mx.nd.array(b)})
    out = ex.forward(data=mx.nd.array(x))[0]
    assert out.dtype == np.float32
    hidden = np.maximum(x.astype(np.float16) @ w.astype(np.float16).T + b.astype(np.float16), 0).astype(np.float32)
    np.testing.assert_allclose(out.asnumpy(), np.exp(hidden) / np.exp(hidden).sum(1, keepdims=True) + x, rtol=2e-3)
    assert mx.sym.load_json(converted.tojson()).get_internals().list_outputs() == sym.get_internals().list_outputs()


def test_convert_rejects_what_mxnet_rejects():
    sym = nets()["fc_softmax_add"][0]
    with pytest.raises(AssertionError, match="float16 and bfloat16"):
        amp.convert_symbol(sym, target_dtype="int8")
    with pytest.raises(AssertionError, match="two or more lists"):
        amp.convert_symbol(sym, target_dtype_ops=["FullyConnected"], fp32_ops=["FullyConnected"])
    with pytest.raises(AssertionError, match="not in any of them"):
        amp.convert_symbol(sym, target_dtype_ops=["NoSuchOp"])


# -- Gluon and Module conversions ----------------------------------------------------------------
@pytest.mark.parametrize("optional", [False, True])
def test_convert_hybrid_block_matches_mxnet(optional):
    expected = REFERENCE["hybrid"][f"optional_{optional}"]
    net = mx.gluon.nn.HybridSequential(prefix=f"hybridsequential{int(optional)}_")
    with net.name_scope():
        net.add(mx.gluon.nn.Conv2D(3, kernel_size=3, in_channels=2), mx.gluon.nn.BatchNorm(in_channels=3),
                mx.gluon.nn.Activation("relu"), mx.gluon.nn.Dense(2, in_units=48))
    net.initialize(mx.init.Constant(0.25))
    net.hybridize()
    x = mx.nd.array(np.arange(2 * 2 * 6 * 6).reshape(2, 2, 6, 6) / 72.0)
    np.testing.assert_allclose(net(x).asnumpy(), expected["fp32_out"], rtol=1e-5)
    converted = amp.convert_hybrid_block(net, target_dtype="bfloat16", ctx=mx.cpu(), cast_optional_params=optional)
    assert {k: dtype_name(p.dtype) for k, p in converted.collect_params().items()} == expected["param_dtypes"]
    assert {k: dtype_name(p.data().dtype) for k, p in converted.collect_params().items()} == expected["data_dtypes"]
    out = converted(x)
    assert dtype_name(out.dtype) == expected["out_dtype"]
    np.testing.assert_allclose(out.asnumpy(), expected["out"], rtol=1e-2)
    assert converted._cached_graph[1].get_internals().list_outputs() == expected["internals"] if \
        converted._cached_graph else True
    with pytest.raises(RuntimeError, match="hybridize"):
        amp.convert_hybrid_block(mx.gluon.nn.Dense(2, in_units=2))


@pytest.mark.parametrize("optional", [False, True])
def test_convert_bucketing_module_carries_the_converted_parameters(optional):
    expected = REFERENCE["bucketing"][f"optional_{optional}"]

    def sym_gen(key):
        data = mx.sym.var("data")
        fc = mx.sym.FullyConnected(data, num_hidden=key, name="fc")
        out = mx.sym.FullyConnected(mx.sym.Activation(fc, act_type="relu", name="act"), num_hidden=2, name="out")
        return mx.sym.SoftmaxOutput(out, name="softmax"), ("data",), ("softmax_label",)
    module = mx.mod.BucketingModule(sym_gen, default_bucket_key=5)
    module.bind(data_shapes=[("data", (2, 3))], label_shapes=[("softmax_label", (2,))])
    module.init_params(mx.init.Constant(0.5))
    converted = amp.amp.convert_bucketing_module(module, target_dtype="float16", cast_optional_params=optional)
    assert {str(k): v._symbol.get_internals().list_outputs() for k, v in converted._buckets.items()} == \
        expected["buckets"]
    args = converted._curr_module._arg_params
    assert {k: dtype_name(v.dtype) for k, v in args.items()} == expected["arg_dtypes"]
    assert (converted.params_initialized, converted.binded) == (expected["params_initialized"], expected["binded"])
    np.testing.assert_array_equal(args["fc_weight"].asnumpy(), np.full((5, 3), 0.5))


def test_convert_bucketing_module_is_not_a_star_export():
    # MXNet 1.9.1's amp.__all__ leaves it out: mx.contrib.amp.convert_bucketing_module does not exist
    assert not hasattr(amp, "convert_bucketing_module")
    assert callable(amp.amp.convert_bucketing_module)


# -- amp.init and loss scaling, in child processes -----------------------------------------------
def _child(what):
    env = dict(os.environ, PYTHONPATH=str(HERE.parents[1] / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, str(HERE), what], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def child_training():
    from mxtorch import autograd, gluon
    amp.init(target_dtype="bfloat16")
    result = {}
    for mode in ("step", "allreduce_update", "unscale"):
        net = gluon.nn.Dense(2, in_units=3)
        net.initialize(mx.init.Constant(0.5))
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.5},
                                kvstore=None if mode != "allreduce_update" else "device")
        amp.init_trainer(trainer)
        trainer._amp_loss_scaler._scale_seq_len = 3
        records = []
        for scale in [1.0, 1.0, 1e34, 1.0, 1.0, 1.0, 1.0, 1e34, 1e34, 1.0, 0.5]:
            x = mx.nd.array([[scale, 2 * scale, -scale]])
            with autograd.record():
                out = net(x)
                loss = (out.astype("float32") ** 2).sum()
                with amp.scale_loss(loss, trainer) as scaled:
                    pass
            scaled.backward()
            record = {"out_dtype": dtype_name(out.dtype), "scale_before": trainer._amp_loss_scaler.loss_scale,
                      "trainer_scale": trainer._scale}
            if mode == "step":
                trainer.step(2)
            elif mode == "allreduce_update":
                trainer.allreduce_grads()
                trainer.update(2)
            else:
                amp.unscale(trainer)
                record["unscaled_grad"] = net.weight.grad().asnumpy().tolist()
                record["scale_after_unscale"] = trainer._scale
                trainer.step(2)
            record.update(scale_after=trainer._amp_loss_scaler.loss_scale,
                          weight=net.weight.data().asnumpy().tolist(), bias=net.bias.data().asnumpy().tolist())
            records.append(record)
        result[mode] = records
    other_net = gluon.nn.Dense(1, in_units=1)
    other_net.initialize()
    other = gluon.Trainer(other_net.collect_params(), "sgd")
    amp.init_trainer(other)
    result["second_scaler_is_new"] = other._amp_loss_scaler is not amp.amp._loss_scaler
    return result


def child_init(target):
    amp.init(target_dtype=target)
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=4, name="fc")
    act = mx.sym.Activation(fc, act_type="softrelu", name="act")
    relu = mx.sym.Activation(fc, act_type="relu", name="relu")
    summed = mx.sym.elemwise_add(act, relu, name="add")
    net = mx.sym.SoftmaxOutput(mx.sym.exp(summed, name="ex"), name="softmax")
    result = {"internals": net.get_internals().list_outputs(), "attrs": net.attr_dict()}
    x = mx.nd.array([[1.0, 2.0, 3.0]])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.SoftmaxOutput(x, mx.nd.array([1.0]), grad_scale=0.5)
    y.backward()
    result["softmax_output_grad"] = x.grad.asnumpy().tolist()
    x2 = mx.nd.array([[1.0, -2.0]])
    x2.attach_grad()
    with mx.autograd.record():
        y2 = mx.nd.LinearRegressionOutput(x2, mx.nd.array([[0.0, 0.0]]))
    y2.backward()
    result["linear_output_grad"] = x2.grad.asnumpy().tolist()
    if target == "bfloat16":
        w = mx.nd.ones((2, 3))
        out = mx.nd.FullyConnected(mx.nd.array([[1.0, 2.0, 3.0]]), w, no_bias=True, num_hidden=2)
        added = mx.nd.elemwise_add(out, mx.nd.array([[0.5, 0.5]]))
        result["nd"] = {"fc_dtype": dtype_name(out.dtype), "fc": out.astype("float32").asnumpy().tolist(),
                        "add_dtype": dtype_name(added.dtype), "exp_dtype": dtype_name(mx.nd.exp(out).dtype)}
    return result


def test_dynamic_loss_scaling_skips_overflowing_steps_as_mxnet():
    got = _child("training")
    expected = REFERENCE["training"]
    assert got["second_scaler_is_new"] is expected["second_scaler_is_new"] is True
    for mode in ("step", "allreduce_update", "unscale"):
        for step, (mine, theirs) in enumerate(zip(got[mode], expected[mode])):
            where = f"{mode} step {step}"
            for key in ("out_dtype", "scale_before", "trainer_scale", "scale_after", "scale_after_unscale"):
                assert mine.get(key) == theirs.get(key), (where, key)
            for key in ("weight", "bias", "unscaled_grad"):
                if key in theirs:
                    np.testing.assert_allclose(mine[key], theirs[key], rtol=1e-5, atol=1e-7, err_msg=where)
        assert np.isfinite(got[mode][-1]["weight"]).all()


@pytest.mark.parametrize("target", ["float16", "bfloat16"])
def test_init_wraps_the_operators_as_mxnet(target):
    got = _child(target)
    expected = REFERENCE["init"][target]
    assert got["internals"] == expected["internals"]
    assert got["attrs"] == expected["attrs"]
    np.testing.assert_allclose(got["softmax_output_grad"], expected["softmax_output_grad"], rtol=1e-5)
    np.testing.assert_allclose(got["linear_output_grad"], expected["linear_output_grad"], rtol=1e-6)
    if "nd" in expected:
        assert got["nd"] == expected["nd"]


if __name__ == "__main__":
    what = sys.argv[1]
    print(json.dumps(child_training() if what == "training" else child_init(what)))


def test_bfloat16_model_predicts_through_the_inference_plan():
    # the inference plan fuses only float32 convolutions: an amp_cast output is bfloat16, and
    # oneDNN's fused bf16 convolution needs AVX-512 / AVX-NE-CONVERT, which many CPUs lack
    from mxtorch.contrib import amp
    data = mx.sym.var("data")
    net = mx.sym.Activation(mx.sym.Convolution(data, kernel=(3, 3), num_filter=8, pad=(1, 1), name="c1"),
                            act_type="relu")
    net = mx.sym.FullyConnected(mx.sym.flatten(net), num_hidden=10, name="fc")
    mod = mx.mod.Module(net, label_names=None)
    mod.bind(data_shapes=[("data", (2, 3, 8, 8))], for_training=False)
    mod.init_params(mx.init.Xavier())
    args, aux = mod.get_params()
    x = mx.nd.array(np.random.RandomState(0).rand(2, 3, 8, 8))
    mod.forward(mx.io.DataBatch([x]), is_train=False)
    reference = mod.get_outputs()[0].asnumpy()
    bsym, bargs, baux = amp.convert_model(net, args, aux, target_dtype="bfloat16")
    converted = mx.mod.Module(bsym, label_names=None)
    converted.bind(data_shapes=[("data", (2, 3, 8, 8))], for_training=False)
    converted.set_params(bargs, baux)
    converted.forward(mx.io.DataBatch([x]), is_train=False)
    out = converted.get_outputs()[0].asnumpy().astype(np.float32)
    np.testing.assert_allclose(out, reference, rtol=0.05, atol=0.05 * np.abs(reference).max())
