"""mx.viz.print_summary / plot_network against MXNet 1.9.1's output (tests/data/viz)."""
import os
import sys
import warnings

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

import viz_networks

DATA = os.path.join(os.path.dirname(__file__), "data", "viz")


def expected(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as handle:
        return handle.read()


NETWORKS = viz_networks.networks(mx)
mlp, convnet, embed = NETWORKS["mlp"], NETWORKS["convnet"], NETWORKS["embed"]
SUMMARIES = viz_networks.summaries(NETWORKS)


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


PLOTS = viz_networks.plots(NETWORKS, np)


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
