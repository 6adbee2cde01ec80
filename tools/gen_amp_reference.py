"""Record MXNet 1.9.1's automatic mixed precision (``mx.contrib.amp``) for tests/test_contrib_amp.py.

Run with the reference MXNet interpreter (not part of the test suite):

    ~/mxref/bin/python tools/gen_amp_reference.py [OUTPUT_FOLDER]   # default tests/data/amp

Writes reference.json with

- ``lists``: every list function of ``amp`` for float16 and bfloat16,
- ``convert``: for a few symbols (tools/amp_nets.py is not used: the nets are built here and in
  the test the same way), the converted graph's internal outputs, attributes and parameter
  dtypes from ``convert_symbol`` / ``convert_model`` for both targets, with and without
  ``cast_optional_params``,
- ``training``: a Gluon Dense layer trained with dynamic loss scaling under
  ``amp.init('bfloat16')`` (the CPU build has no float16 FullyConnected), a few steps of which
  overflow: the loss scale, the trainer's ``_scale`` and the weights after every step,
- ``init``: graphs built after ``amp.init`` and the loss-output gradient scaling,
- ``hybrid``: ``convert_hybrid_block`` of a small hybridized network (parameter dtypes,
  outputs), ``bucketing``: ``convert_bucketing_module`` (bucket symbols, parameter dtypes).

``amp.init`` changes the process for good, so each ``init`` scenario runs in a child process.
"""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np


def dtype_name(dtype):
    """'float32', 'float16', 'bfloat16' for MXNet's dtypes (its bfloat16 is a structured dtype)."""
    dtype = np.dtype(dtype)
    return "bfloat16" if dtype.names == ("bfloat16",) else dtype.name


def nets(mx):
    """name -> (symbol, {param name: shape}, {aux name: shape}, data shapes) of the test graphs."""
    result = {}
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=4, name="fc")
    act = mx.sym.Activation(fc, act_type="relu", name="act")
    result["fc_softmax_add"] = (mx.sym.elemwise_add(mx.sym.softmax(act, name="sm"), data, name="add"),
                                {"fc_weight": (4, 4), "fc_bias": (4,)}, {}, {"data": (2, 4)})
    conv = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, name="conv")
    bn = mx.sym.BatchNorm(conv, name="bn")
    relu = mx.sym.Activation(bn, act_type="relu", name="relu")
    pool = mx.sym.Pooling(relu, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool")
    flat = mx.sym.Flatten(pool, name="flat")
    fc2 = mx.sym.FullyConnected(flat, num_hidden=3, name="fc2")
    result["conv_bn_softmaxoutput"] = (
        mx.sym.SoftmaxOutput(fc2, name="softmax"),
        {"conv_weight": (4, 2, 3, 3), "conv_bias": (4,), "bn_gamma": (4,), "bn_beta": (4,),
         "fc2_weight": (3, 16), "fc2_bias": (3,)},
        {"bn_moving_mean": (4,), "bn_moving_var": (4,)}, {"data": (1, 2, 10, 10)})
    a = mx.sym.FullyConnected(data, num_hidden=3, name="fa")
    b = mx.sym.FullyConnected(data, num_hidden=3, name="fb")
    cat = mx.sym.Concat(a, b, dim=1, name="cat")
    mixed = mx.sym.elemwise_mul(a, mx.sym.exp(b, name="ex"), name="mixed")
    unknown = mx.sym.elemwise_add(a, data, name="plus")
    sr = mx.sym.Activation(a, act_type="softrelu", name="sr")
    parts = mx.sym.SliceChannel(cat, num_outputs=2, axis=1, name="parts")
    result["widest_and_multi_output"] = (
        mx.sym.Group([cat, mixed, unknown, sr, mx.sym.tanh(parts[1], name="th"), mx.sym.sum(parts[0], name="s")]),
        {"fa_weight": (3, 3), "fa_bias": (3,), "fb_weight": (3, 3), "fb_bias": (3,)}, {}, {"data": (2, 3)})
    x = mx.sym.var("x")
    f1 = mx.sym.FullyConnected(data, num_hidden=4, name="f1")
    halves = mx.sym.split(f1, num_outputs=2, name="sp")
    result["split_multicast_fp32_output"] = (
        mx.sym.Group([halves[0], halves[1], mx.sym.broadcast_add(f1, mx.sym.tanh(x, name="tx"), name="ba"),
                      mx.sym.sum(x, name="sy")]),
        {"f1_weight": (4, 3), "f1_bias": (4,)}, {}, {"data": (2, 3), "x": (2, 4)})
    return result


def record_conversions(mx, amp):
    out = {}
    for name, (sym, arg_shapes, aux_shapes, _) in nets(mx).items():
        for target in ("float16", "bfloat16"):
            plain = amp.convert_symbol(sym, target_dtype=target)
            excluded = amp.convert_symbol(sym, target_dtype=target, excluded_sym_names=["fc", "conv", "cat", "fb", "x"])
            entry = {"symbol": {"internals": plain.get_internals().list_outputs(), "attrs": plain.attr_dict()},
                     "excluded": {"internals": excluded.get_internals().list_outputs(),
                                  "attrs": excluded.attr_dict()}}
            for optional in (False, True):
                args = {k: mx.nd.ones(s) for k, s in arg_shapes.items()}
                aux = {k: mx.nd.ones(s) for k, s in aux_shapes.items()}
                converted, args, aux = amp.convert_model(sym, args, aux, target_dtype=target,
                                                         cast_optional_params=optional)
                entry[f"model_optional_{optional}"] = {
                    "internals": converted.get_internals().list_outputs(), "attrs": converted.attr_dict(),
                    "arg_dtypes": {k: dtype_name(v.dtype) for k, v in args.items()},
                    "aux_dtypes": {k: dtype_name(v.dtype) for k, v in aux.items()}}
            out[f"{name}/{target}"] = entry
    return out


def record_lists(amp):
    out = {}
    for target in ("float16", "bfloat16"):
        key = target if target == "float16" else amp.amp.bfloat16
        out[target] = {
            "lp16": list(amp.list_lp16_ops(key)), "fp32": list(amp.list_fp32_ops(key)),
            "lp16_fp32": list(amp.list_lp16_fp32_ops(key)),
            "conditional_fp32": [list(map(lambda v: v if isinstance(v, str) else list(v), entry))
                                 for entry in amp.list_conditional_fp32_ops(key)],
            "widest": list(amp.list_widest_type_cast(key)), "loss_output": list(amp.list_loss_output_functions(key)),
            "use_fp32_params": amp.list_lp16_use_fp32_params(key)}
    return out


def child_training():
    """Dense(2) trained with loss scaling under amp.init('bfloat16'); steps with 1e34 inputs overflow."""
    import mxnet as mx
    from mxnet import autograd, gluon
    from mxnet.contrib import amp
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
    # a second init_trainer gets its own scaler
    other_net = gluon.nn.Dense(1, in_units=1)
    other_net.initialize()
    other = gluon.Trainer(other_net.collect_params(), "sgd")
    amp.init_trainer(other)
    result["second_scaler_is_new"] = other._amp_loss_scaler is not amp.amp._loss_scaler
    return result


def child_init(target):
    """Graphs and arrays built after amp.init(target): casts, dtypes, loss-output scaling."""
    import mxnet as mx
    from mxnet.contrib import amp
    amp.init(target_dtype=target)
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=4, name="fc")
    act = mx.sym.Activation(fc, act_type="softrelu", name="act")
    relu = mx.sym.Activation(fc, act_type="relu", name="relu")
    summed = mx.sym.elemwise_add(act, relu, name="add")
    net = mx.sym.SoftmaxOutput(mx.sym.exp(summed, name="ex"), name="softmax")
    result = {"internals": net.get_internals().list_outputs(), "attrs": net.attr_dict()}
    # an NDArray loss head: grad_scale times the loss scale
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
                        "add_dtype": dtype_name(added.dtype),
                        "exp_dtype": dtype_name(mx.nd.exp(out).dtype)}
    return result


def record_hybrid(mx, amp):
    from mxnet import gluon
    result = {}
    for optional in (False, True):
        net = gluon.nn.HybridSequential()
        with net.name_scope():
            net.add(gluon.nn.Conv2D(3, kernel_size=3, in_channels=2), gluon.nn.BatchNorm(in_channels=3),
                    gluon.nn.Activation("relu"), gluon.nn.Dense(2, in_units=48))
        net.initialize(mx.init.Constant(0.25))
        net.hybridize()
        x = mx.nd.array(np.arange(2 * 2 * 6 * 6).reshape(2, 2, 6, 6) / 72.0)
        reference = net(x)
        converted = amp.convert_hybrid_block(net, target_dtype="bfloat16", ctx=mx.cpu(),
                                             cast_optional_params=optional)
        out = converted(x)
        result[f"optional_{optional}"] = {
            "param_dtypes": {k: dtype_name(p.dtype) for k, p in converted.collect_params().items()},
            "data_dtypes": {k: dtype_name(p.data().dtype) for k, p in converted.collect_params().items()},
            "fp32_out": reference.asnumpy().tolist(), "out_dtype": dtype_name(out.dtype),
            "out": out.astype("float32").asnumpy().tolist()}
        converted.hybridize()
        cached = converted._cached_graph
        result[f"optional_{optional}"]["internals"] = converted(x) is not None and \
            cached[1].get_internals().list_outputs() if cached else None
    return result


def record_bucketing(mx, amp):
    def sym_gen(key):
        data = mx.sym.var("data")
        fc = mx.sym.FullyConnected(data, num_hidden=key, name="fc")
        out = mx.sym.FullyConnected(mx.sym.Activation(fc, act_type="relu", name="act"), num_hidden=2, name="out")
        return mx.sym.SoftmaxOutput(out, name="softmax"), ("data",), ("softmax_label",)
    result = {}
    for optional in (False, True):
        module = mx.mod.BucketingModule(sym_gen, default_bucket_key=5)
        module.bind(data_shapes=[("data", (2, 3))], label_shapes=[("softmax_label", (2,))])
        module.init_params(mx.init.Constant(0.5))
        converted = amp.amp.convert_bucketing_module(module, target_dtype="float16", cast_optional_params=optional)
        arg_params, aux_params = converted._curr_module._arg_params, converted._curr_module._aux_params
        result[f"optional_{optional}"] = {
            "buckets": {str(k): v._symbol.get_internals().list_outputs() for k, v in converted._buckets.items()},
            "arg_dtypes": {k: dtype_name(v.dtype) for k, v in arg_params.items()},
            "params_initialized": converted.params_initialized, "binded": converted.binded}
    return result


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        result = child_training() if sys.argv[2] == "training" else child_init(sys.argv[2])
        print(json.dumps(result))
        return
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "tests/data/amp"
    import mxnet as mx
    from mxnet.contrib import amp
    reference = {"lists": record_lists(amp), "convert": record_conversions(mx, amp),
                 "hybrid": record_hybrid(mx, amp), "bucketing": record_bucketing(mx, amp)}

    def child(what):
        done = subprocess.run([sys.executable, __file__, "--child", what], check=True, capture_output=True, text=True)
        return json.loads(done.stdout.strip().splitlines()[-1])
    reference["training"] = child("training")
    reference["init"] = {target: child(target) for target in ("float16", "bfloat16")}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "reference.json").write_text(json.dumps(reference, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
