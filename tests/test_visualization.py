"""mx.viz.print_summary / plot_network against MXNet 1.9.1's output (tests/data/viz)."""
import os
import sys
import warnings

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

DATA = os.path.join(os.path.dirname(__file__), "data", "viz")


def expected(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as handle:
        return handle.read()


def mlp():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=128)
    net = mx.sym.Activation(data=net, name="relu1", act_type="relu")
    net = mx.sym.FullyConnected(data=net, name="fc2", num_hidden=64)
    net = mx.sym.Activation(data=net, name="relu2", act_type="relu")
    net = mx.sym.FullyConnected(data=net, name="fc3", num_hidden=10)
    return mx.sym.SoftmaxOutput(data=net, name="softmax")


def convnet():
    data = mx.sym.Variable("data")
    c1 = mx.sym.Convolution(data=data, name="conv1", kernel=(3, 3), num_filter=8, pad=(1, 1))
    b1 = mx.sym.BatchNorm(data=c1, name="bn1")
    a1 = mx.sym.Activation(data=b1, name="relu1", act_type="relu")
    p1 = mx.sym.Pooling(data=a1, name="pool1", kernel=(2, 2), stride=(2, 2), pool_type="max")
    c2 = mx.sym.Convolution(data=p1, name="conv2", kernel=(3, 3), num_filter=4, pad=(1, 1), no_bias=True)
    c3 = mx.sym.Convolution(data=p1, name="conv3", kernel=(1, 1), num_filter=4, num_group=2)
    cat = mx.sym.Concat(c2, c3, name="concat", dim=1)
    leaky = mx.sym.LeakyReLU(data=cat, name="leaky", act_type="leaky")
    pooled = mx.sym.Pooling(data=leaky, name="gpool", global_pool=True, pool_type="avg", kernel=(1, 1))
    flat = mx.sym.Flatten(data=pooled, name="flatten")
    fc = mx.sym.FullyConnected(data=flat, name="fc", num_hidden=10, no_bias=True)
    return mx.sym.SoftmaxOutput(data=fc, name="softmax")


def embed():
    data = mx.sym.Variable("data")
    embedded = mx.sym.Embedding(data=data, name="embed", input_dim=100, output_dim=16)
    halves = mx.sym.SliceChannel(data=embedded, num_outputs=2, axis=1, name="split")
    added = mx.sym.elemwise_add(halves[0], halves[1], name="add")
    flat = mx.sym.Reshape(data=added, shape=(0, -1), name="reshape")
    return mx.sym.LinearRegressionOutput(data=flat, name="out")


SUMMARIES = [
    ("summary_mlp_shape.txt", mlp, dict(shape={"data": (32, 100)})),
    ("summary_mlp_noshape.txt", mlp, dict()),
    ("summary_mlp_narrow.txt", mlp, dict(shape={"data": (32, 100)}, line_length=80, positions=[30, 50, 60, 80])),
    ("summary_convnet_shape.txt", convnet, dict(shape={"data": (2, 3, 16, 16)})),
    ("summary_embed_shape.txt", embed, dict(shape={"data": (4, 6)})),
]


@pytest.mark.parametrize("fname,network,kwargs", SUMMARIES, ids=[s[0] for s in SUMMARIES])
def test_print_summary_matches_mxnet(capsys, fname, network, kwargs):
    assert mx.viz.print_summary(network(), **kwargs) is None
    assert capsys.readouterr().out == expected(fname)


def test_print_summary_parameter_counts_follow_the_formulas(capsys):
    # fc1: 100*128+128, fc2: 128*64+64, fc3: 64*10+10
    mx.viz.print_summary(mlp(), shape={"data": (5, 100)})
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if "(" in line}
    assert rows["fc1(FullyConnected)"] == ["128", str(100 * 128 + 128), "data"]
    assert rows["fc2(FullyConnected)"] == ["64", str(128 * 64 + 64), "relu1"]
    assert rows["softmax(SoftmaxOutput)"] == ["10", "0", "fc3"]
    assert f"Total params: {100 * 128 + 128 + 128 * 64 + 64 + 64 * 10 + 10}\n" in out


def test_print_summary_rejects_bad_input():
    with pytest.raises(MXNetError, match="symbol must be a mx.sym.Symbol"):
        mx.viz.print_summary("not a symbol")
    with pytest.raises(MXNetError, match="shape must be a dict"):
        mx.viz.print_summary(mlp(), shape=(32, 100))
    two_inputs = mx.sym.Concat(mx.sym.Variable("a"), mx.sym.Variable("b"), dim=0)
    with pytest.raises(MXNetError, match="do not determine every layer's shape"):
        mx.viz.print_summary(two_inputs, shape={"a": (2, 3)})      # b's first axis is unknown


PLOTS = [
    ("plot_mlp_plain.gv", mlp, dict()),
    ("plot_mlp_shape_dtype.gv", mlp, dict(shape={"data": (32, 100)}, dtype={"data": np.float32}, title="mlp",
                                          save_format="png")),
    ("plot_convnet_shape.gv", convnet, dict(shape={"data": (2, 3, 16, 16)}, hide_weights=False,
                                            node_attrs={"shape": "oval", "fixedsize": "false"})),
    ("plot_embed_shape.gv", embed, dict(shape={"data": (4, 6)})),
]


@pytest.mark.parametrize("fname,network,kwargs", PLOTS, ids=[p[0] for p in PLOTS])
def test_plot_network_matches_mxnet(fname, network, kwargs):
    graphviz = pytest.importorskip("graphviz")
    dot = mx.viz.plot_network(network(), **kwargs)
    assert isinstance(dot, graphviz.Digraph)
    assert dot.name == kwargs.get("title", "plot")
    assert dot.format == kwargs.get("save_format", "pdf")
    assert dot.source.rstrip("\n") == expected(fname).rstrip("\n")


def test_plot_network_custom_operator_label():
    pytest.importorskip("graphviz")

    class Identity(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0])

    @mx.operator.register("viz_identity")
    class IdentityProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Identity()

    net = mx.sym.Custom(mx.sym.Variable("data"), op_type="viz_identity", name="ident")
    source = mx.viz.plot_network(net).source
    assert '\tident [label=viz_identity fillcolor="#fccde5"' in source
    assert "\tident -> data [label=\"\" arrowtail=open dir=back]" in source


def test_plot_network_warns_on_repeated_names():
    pytest.importorskip("graphviz")
    net = mx.sym.elemwise_add(mx.sym.Variable("x"), mx.sym.Variable("x"), name="sum")
    with pytest.warns(RuntimeWarning, match="Repeated names: x"):
        mx.viz.plot_network(net)


def test_plot_network_without_graphviz_raises_with_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)      # makes `import graphviz` fail
    with pytest.raises(MXNetError, match="pip install graphviz"):
        mx.viz.plot_network(mlp())


def test_plot_network_rejects_bad_input():
    pytest.importorskip("graphviz")
    with pytest.raises(MXNetError, match="symbol must be a mx.sym.Symbol"):
        mx.viz.plot_network(None)
    with pytest.raises(MXNetError, match="dtype must be a dict"):
        mx.viz.plot_network(mlp(), dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mx.viz.plot_network(mlp())        # unique names: no warning
