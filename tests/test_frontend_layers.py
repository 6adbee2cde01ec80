"""The front-end files split by family (``mx.rnn`` cells, Gluon blocks) keep MXNet's import
paths, the pieces they now share behave as each copy did, and the front-end packages import
only down the layer order (docs/architecture.md)."""
import ast
import os
import warnings

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

SRC = os.path.dirname(mx.__file__)


def _imported_modules(path, package):
    """Every ``mxtorch.*`` module a file imports (module level and inside functions)."""
    tree = ast.parse(open(path).read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return {name for name in names if name and name.startswith("mxtorch.")}


def _files_of(package_dir):
    for folder, _, files in os.walk(os.path.join(SRC, package_dir)):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, os.path.dirname(SRC))[:-3].replace(os.sep, ".")
                package = rel[:-len(".__init__")] if rel.endswith(".__init__") else rel.rsplit(".", 1)[0]
                yield path, package


@pytest.mark.parametrize("package_dir, forbidden", [
    ("gluon", ("mxtorch.contrib", "mxtorch.rnn", "mxtorch.visualization", "mxtorch.cli")),
    ("image", ("mxtorch.gluon", "mxtorch.module", "mxtorch.model", "mxtorch.callback", "mxtorch.contrib",
               "mxtorch.rnn")),
])
def test_front_end_imports_point_down(package_dir, forbidden):
    upward = []
    for path, package in _files_of(package_dir):
        for module in _imported_modules(path, package):
            if any(module == name or module.startswith(name + ".") for name in forbidden):
                upward.append((os.path.relpath(path, SRC), module))
    assert upward == []


def test_rnn_cell_module_keeps_mxnet_names():
    from mxtorch.rnn import rnn_cell
    families = {"base_cell", "dense_cells", "fused_cell", "container_cells", "modifier_cells", "conv_cells"}
    for name in rnn_cell.__all__:
        cls = getattr(rnn_cell, name)
        assert cls is getattr(mx.rnn, name)
        assert cls.__module__.rsplit(".", 1)[1] in families, name


def test_dense_cells_share_parameters_and_states():
    rnn, gru, lstm = mx.rnn.RNNCell(4, prefix="r_"), mx.rnn.GRUCell(5, prefix="g_"), mx.rnn.LSTMCell(6, prefix="l_")
    assert list(rnn.params._params) == ["r_i2h_weight", "r_i2h_bias", "r_h2h_weight", "r_h2h_bias"]
    assert list(gru.params._params) == ["g_i2h_weight", "g_i2h_bias", "g_h2h_weight", "g_h2h_bias"]
    assert list(lstm.params._params) == ["l_i2h_weight", "l_h2h_weight", "l_i2h_bias", "l_h2h_bias"]
    assert rnn.state_info == [{"shape": (0, 4), "__layout__": "NC"}]
    assert gru.state_info == [{"shape": (0, 5), "__layout__": "NC"}]
    assert lstm.state_info == [{"shape": (0, 6), "__layout__": "NC"}] * 2
    outputs, states = gru.unroll(3, mx.sym.var("data"), merge_outputs=True)
    _, out_shapes, _ = outputs.infer_shape(data=(2, 3, 7))
    assert out_shapes == [(2, 3, 5)] and len(states) == 1


def test_fused_cell_unfuses_into_the_container_cells():
    stack = mx.rnn.FusedRNNCell(3, num_layers=2, mode="gru", bidirectional=True, dropout=0.5, prefix="f_").unfuse()
    kinds = [type(cell).__name__ for cell in stack._cells]
    assert kinds == ["BidirectionalCell", "DropoutCell", "BidirectionalCell"]
    with pytest.raises(MXNetError):
        mx.rnn.ZoneoutCell(mx.rnn.FusedRNNCell(3))


def test_gluon_block_module_keeps_mxnet_names():
    from mxtorch.gluon import block
    assert block.Block is mx.gluon.Block and block.HybridBlock is mx.gluon.HybridBlock
    assert block.SymbolBlock is mx.gluon.SymbolBlock and block.Parameter is mx.gluon.Parameter
    flat, fmt = block._flatten([mx.nd.ones((1,)), [mx.nd.zeros((2,)), None]], "input")
    assert fmt == [0, [0, -1]] and len(flat) == 3
    assert block._regroup(flat, fmt)[0][1][1] is None


def test_sequential_passes_tuple_outputs_on():
    class Split(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x * 2, x + 1

    class Join(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x, y):
            return x * y

    for net in (mx.gluon.nn.Sequential(), mx.gluon.nn.HybridSequential()):
        net.add(Split(), Join())
        np.testing.assert_allclose(net(mx.nd.array([1.0, 3.0])).asnumpy(), [4.0, 24.0])
        only = type(net)()
        only.add(Split())
        doubled, plus_one = only(mx.nd.array([2.0]))
        assert doubled.asscalar() == 4.0 and plus_one.asscalar() == 3.0
    assert repr(net).startswith("HybridSequential(\n  (0): Split(\n")


@pytest.mark.parametrize("hybrid", [False, True])
def test_random_apply_probability(hybrid):
    from mxtorch.gluon.data.vision import transforms
    cls = transforms.HybridRandomApply if hybrid else transforms.RandomApply
    x = mx.nd.array([[[1.0, 2.0, 3.0]]])
    never, always = cls(transforms.Cast("float16"), p=0.0), cls(transforms.Cast("float16"), p=1.0)
    assert never(x).dtype == np.float32 and always(x).dtype == np.float16
    assert never(x, mx.nd.ones((1,)))[1].asscalar() == 1.0


def test_wrapped_queues_carry_ndarrays():
    from mxtorch.gluon.data.dataloader import ConnectionWrapper, Queue, SimpleQueue
    for queue in (Queue(), SimpleQueue()):
        assert isinstance(queue._reader, ConnectionWrapper) and isinstance(queue._writer, ConnectionWrapper)
        queue.put(mx.nd.array([1.5, 2.5]))
        np.testing.assert_allclose(queue.get().asnumpy(), [1.5, 2.5])


def test_text_vocabulary_lives_below_contrib():
    from mxtorch.contrib.text import _constants, utils, vocab
    from mxtorch.gluon.contrib.data import vocab as base
    assert vocab.Vocabulary is base.Vocabulary and utils.count_tokens_from_str is base.count_tokens_from_str
    assert _constants.UNKNOWN_IDX == base.UNKNOWN_IDX == 0
    counter = utils.count_tokens_from_str("a b b\nc a b\n")
    assert counter == {"b": 3, "a": 2, "c": 1}
    words = vocab.Vocabulary(counter, reserved_tokens=["<eos>"])
    assert words.idx_to_token == ["<unk>", "<eos>", "b", "a", "c"]
    assert words.to_indices(["a", "zz"]) == [3, 0]


def test_detection_augmenters_disable_on_invalid_ranges():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        crop = mx.image.DetRandomCropAug(area_range=(0.5, 0.1))
        pad = mx.image.DetRandomPadAug(area_range=(1.0, 0.9))
        pad_ratio = mx.image.DetRandomPadAug(aspect_ratio_range=(0.0, 1.0))
    assert not crop.enabled and not pad.enabled and not pad_ratio.enabled
    assert [str(w.message) for w in caught] == [
        "Skip DetRandomCropAug due to invalid area_range: (0.5, 0.1)",
        "Skip DetRandomPadAug due to invalid parameters: (1.0, 0.9)",
        "Skip DetRandomPadAug due to invalid aspect_ratio_range: (0.0, 1.0)"]
    assert mx.image.DetRandomCropAug().enabled and mx.image.DetRandomPadAug().enabled


def test_det_label_rows_are_padded_and_checked():
    iterator = mx.image.ImageDetIter.__new__(mx.image.ImageDetIter)
    batch_label = np.zeros((2, 3, 5), dtype=np.float32)
    iterator._store_label(batch_label, 1, np.array([[1, 0.25, 0.5, 0.75, 1.0]], dtype=np.float32))
    np.testing.assert_array_equal(batch_label[1], [[1, 0.25, 0.5, 0.75, 1.0], [-1] * 5, [-1] * 5])
    with pytest.raises(MXNetError, match="4 objects of width 5"):
        iterator._store_label(batch_label, 0, np.zeros((4, 5), dtype=np.float32))


def test_image_readers_report_unreadable_files(tmp_path):
    for name in (str(tmp_path / "missing.jpg"), "bad\x00name.jpg"):
        with pytest.raises(MXNetError, match="image.imread: cannot read image file"):
            mx.image.imread(name)
    iterator = mx.image.ImageIter.__new__(mx.image.ImageIter)
    iterator.path_root = str(tmp_path)
    (tmp_path / "x.bin").write_bytes(b"\x01\x02")
    assert iterator.read_image("x.bin") == b"\x01\x02"
    with pytest.raises(MXNetError, match="ImageIter: cannot read image file"):
        iterator.read_image("nope.bin")


def test_visualization_inference_errors():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    from mxtorch import visualization
    assert visualization._internal_shapes(net, {"data": (2, 4)}, "f")["fc_output"] == (2, 3)
    assert visualization._internal_dtypes(net, {"data": np.float16}, "f")["fc_output"] == np.float16
    with pytest.raises(MXNetError, match="f: shape must be a dict of input name -> shape tuple, got list"):
        visualization._internal_shapes(net, [(2, 4)], "f")
    with pytest.raises(MXNetError, match="f: dtype must be a dict of input name -> numpy type, got str"):
        visualization._internal_dtypes(net, "float32", "f")
    with pytest.raises(MXNetError, match="do not determine every layer's shape; give the shape"):
        visualization._internal_shapes(net, {}, "f")
