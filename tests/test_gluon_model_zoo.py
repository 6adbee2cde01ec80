"""gluon.model_zoo.vision: every model's parameter names (in order) are MXNet 1.9.1's, shapes
too for a few after one forward pass (tests/data/model_zoo_params.json, written by
tools/gen_model_zoo_names.py), and pretrained=True without the file names where to put it."""
import json
import os

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.gluon.model_zoo import vision, model_store
from mxtorch.gluon.utils import DownloadError

REF = json.load(open(os.path.join(os.path.dirname(__file__), "data", "model_zoo_params.json")))


def _names(net):
    return [name[len(net.prefix):] for name in net.collect_params().keys()]


@pytest.mark.parametrize("name", sorted(REF))
def test_parameter_names_match_mxnet(name):
    net = vision.get_model(name, classes=10)
    expected = [key[len(REF[name]["prefix"]):] for key, _ in REF[name]["params"]]
    assert _names(net) == expected


@pytest.mark.parametrize("name", ["resnet18_v1", "mobilenet0.25"])
def test_parameter_shapes_and_output_match_mxnet(name):
    entry = REF[name]
    net = vision.get_model(name, classes=10)
    net.initialize()
    out = net(mx.nd.zeros((1, 3, entry["input"], entry["input"])))
    assert list(out.shape) == entry["output"]
    shapes = [[key[len(net.prefix):], list(p.shape)] for key, p in net.collect_params().items()]
    assert shapes == [[key[len(entry["prefix"]):], shape] for key, shape in entry["params"]]


def test_pretrained_without_file_names_the_path(tmp_path):
    with pytest.raises(DownloadError) as info:
        vision.resnet18_v1(pretrained=True, root=str(tmp_path))
    expected = os.path.join(str(tmp_path), "resnet18_v1-a0666292.params")   # MXNet's cache layout
    assert expected in str(info.value) and info.value.path == expected
    assert model_store.short_hash("squeezenet1.1") == "33ba0f93"
    with pytest.raises(ValueError, match="not available"):
        model_store.short_hash("resnet19_v1")
    with pytest.raises(ValueError, match="resnet18_v1"):
        vision.get_model("resnet19_v1")


def test_pretrained_loads_a_params_file_with_mxnet_names(tmp_path, monkeypatch):
    source = vision.get_model("squeezenet1.1", classes=10)
    source.initialize(mx.init.Uniform(0.1))
    x = mx.nd.array(np.random.RandomState(0).uniform(size=(1, 3, 224, 224)))
    expected = source(x).asnumpy()
    path = tmp_path / "weights.params"
    source.save_parameters(str(path))
    digest = __import__("hashlib").sha1(path.read_bytes()).hexdigest()
    monkeypatch.setitem(model_store._model_sha1, "squeezenet1.1", digest)
    path.rename(tmp_path / f"squeezenet1.1-{digest[:8]}.params")
    loaded = vision.squeezenet1_1(pretrained=True, root=str(tmp_path), classes=10)
    np.testing.assert_allclose(loaded(x).asnumpy(), expected, rtol=1e-5, atol=1e-6)
