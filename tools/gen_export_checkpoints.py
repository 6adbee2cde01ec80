"""Write tests/data/export/: small MXNet 1.9.1 checkpoints for the ONNX export tests, with MXNet's
inference outputs on a fixed input.

- ``inception_bn``: the BN-Inception of MXNet's example/image-classification/symbols/inception-bn.py
  (ConvFactory = Convolution + BatchNorm + relu, InceptionFactoryA / B with Concat, max and avg
  Pooling, 7x7 global average pooling, Flatten, FullyConnected, SoftmaxOutput) at 224x224 with
  the channel counts divided by 16;
- ``inception_bn_full``: the same with ``pooling_convention='full'`` on the stem and global
  Pooling layers (rounding the output size up, as the 2015 Inception-BN of MXNet's model zoo).

``<name>-io.npz`` holds MXNet's output on ``np.random.RandomState(0).uniform(-1, 1, SHAPE)``
(float32; the tests draw the same input).

Run with the reference interpreter: /root/mxref/bin/python tools/gen_export_checkpoints.py
"""
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "export")
SCALE = 16
SHAPE = (1, 3, 224, 224)


def _channels(count):
    return max(count // SCALE, 2)


def _conv(data, num_filter, kernel, stride=(1, 1), pad=(0, 0), name=None, suffix=""):
    conv = mx.sym.Convolution(data=data, num_filter=_channels(num_filter), kernel=kernel, stride=stride, pad=pad,
                              name="conv_%s%s" % (name, suffix))
    bn = mx.sym.BatchNorm(data=conv, fix_gamma=False, eps=2e-5, momentum=0.9, name="bn_%s%s" % (name, suffix))
    return mx.sym.Activation(data=bn, act_type="relu", name="relu_%s%s" % (name, suffix))


def _inception_a(data, num_1x1, num_3x3red, num_3x3, num_d3x3red, num_d3x3, pool, proj, name, convention):
    c1x1 = _conv(data, num_1x1, (1, 1), name="%s_1x1" % name)
    c3x3r = _conv(data, num_3x3red, (1, 1), name="%s_3x3" % name, suffix="_reduce")
    c3x3 = _conv(c3x3r, num_3x3, (3, 3), pad=(1, 1), name="%s_3x3" % name)
    cd3x3r = _conv(data, num_d3x3red, (1, 1), name="%s_double_3x3" % name, suffix="_reduce")
    cd3x3 = _conv(cd3x3r, num_d3x3, (3, 3), pad=(1, 1), name="%s_double_3x3_0" % name)
    cd3x3 = _conv(cd3x3, num_d3x3, (3, 3), pad=(1, 1), name="%s_double_3x3_1" % name)
    pooling = mx.sym.Pooling(data=data, kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type=pool,
                             pooling_convention=convention, name="%s_pool_%s_pool" % (pool, name))
    cproj = _conv(pooling, proj, (1, 1), name="%s_proj" % name)
    return mx.sym.Concat(*[c1x1, c3x3, cd3x3, cproj], name="ch_concat_%s_chconcat" % name)


def _inception_b(data, num_3x3red, num_3x3, num_d3x3red, num_d3x3, name, convention):
    c3x3r = _conv(data, num_3x3red, (1, 1), name="%s_3x3" % name, suffix="_reduce")
    c3x3 = _conv(c3x3r, num_3x3, (3, 3), pad=(1, 1), stride=(2, 2), name="%s_3x3" % name)
    cd3x3r = _conv(data, num_d3x3red, (1, 1), name="%s_double_3x3" % name, suffix="_reduce")
    cd3x3 = _conv(cd3x3r, num_d3x3, (3, 3), pad=(1, 1), stride=(1, 1), name="%s_double_3x3_0" % name)
    cd3x3 = _conv(cd3x3, num_d3x3, (3, 3), pad=(1, 1), stride=(2, 2), name="%s_double_3x3_1" % name)
    pooling = mx.sym.Pooling(data=data, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max",
                             pooling_convention=convention, name="max_pool_%s_pool" % name)
    return mx.sym.Concat(*[c3x3, cd3x3, pooling], name="ch_concat_%s_chconcat" % name)


def inception_bn(convention, num_classes=10):
    stem_convention = convention
    data = mx.sym.Variable("data")
    conv1 = _conv(data, 64, (7, 7), stride=(2, 2), pad=(3, 3), name="1")
    pool1 = mx.sym.Pooling(conv1, kernel=(3, 3), stride=(2, 2), name="pool_1", pool_type="max",
                           pooling_convention=convention)
    conv2red = _conv(pool1, 64, (1, 1), name="2_red")
    conv2 = _conv(conv2red, 192, (3, 3), pad=(1, 1), name="2")
    pool2 = mx.sym.Pooling(conv2, kernel=(3, 3), stride=(2, 2), name="pool_2", pool_type="max",
                           pooling_convention=convention)
    convention = "valid"      # the inception blocks' concatenations need 'valid' shapes
    net = _inception_a(pool2, 64, 64, 64, 64, 96, "avg", 32, "3a", convention)
    net = _inception_a(net, 64, 64, 96, 64, 96, "avg", 64, "3b", convention)
    net = _inception_b(net, 128, 160, 64, 96, "3c", convention)
    net = _inception_a(net, 224, 64, 96, 96, 128, "avg", 128, "4a", convention)
    net = _inception_a(net, 192, 96, 128, 96, 128, "avg", 128, "4b", convention)
    net = _inception_a(net, 160, 128, 160, 128, 160, "avg", 128, "4c", convention)
    net = _inception_a(net, 96, 128, 192, 160, 192, "avg", 128, "4d", convention)
    net = _inception_b(net, 128, 192, 192, 256, "4e", convention)
    net = _inception_a(net, 352, 192, 320, 160, 224, "avg", 128, "5a", convention)
    net = _inception_a(net, 352, 192, 320, 192, 224, "max", 128, "5b", convention)
    pool = mx.sym.Pooling(net, kernel=(7, 7), stride=(1, 1), name="global_pool", pool_type="avg",
                          pooling_convention=stem_convention)
    fc1 = mx.sym.FullyConnected(mx.sym.Flatten(pool), num_hidden=num_classes, name="fc1")
    return mx.sym.SoftmaxOutput(fc1, name="softmax")


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.RandomState(0)
    data = rng.uniform(-1, 1, SHAPE).astype(np.float32)
    for name, convention in [("inception_bn", "valid"), ("inception_bn_full", "full")]:
        symbol = inception_bn(convention)
        module = mx.mod.Module(symbol, context=mx.cpu())
        module.bind(data_shapes=[("data", SHAPE)], label_shapes=[("softmax_label", (SHAPE[0],))],
                    for_training=False)
        mx.random.seed(3)
        module.init_params(mx.init.Xavier(rnd_type="gaussian", magnitude=2))
        arg_params, aux_params = module.get_params()
        # moving statistics away from 0 / 1 so BatchNorm's inference arithmetic shows
        aux_params = {k: mx.nd.array(rng.uniform(0.5, 1.5, v.shape) if k.endswith("var") else
                                     rng.uniform(-0.2, 0.2, v.shape)) for k, v in aux_params.items()}
        module.set_params(arg_params, aux_params)
        prefix = os.path.join(OUT, name)
        module.save_checkpoint(prefix, 1)
        module.forward(mx.io.DataBatch([mx.nd.array(data)]), is_train=False)
        np.savez(prefix + "-io.npz", output=module.get_outputs()[0].asnumpy())
        print(prefix, module.get_outputs()[0].shape)


if __name__ == "__main__":
    main()
