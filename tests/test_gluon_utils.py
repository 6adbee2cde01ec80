"""gluon.utils: split_data / split_and_load (MXNet 1.9.1's partition), clip_global_norm,
check_sha1, download (offline error naming URL and path), shape_is_known, HookHandle."""
import hashlib
from collections import OrderedDict
import io
import warnings

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError
from mxtorch.gluon import utils


def test_split_data_partitions_like_mxnet():
    x = mx.nd.arange(10)
    # MXNet 1.9.1: 10 rows in 3 slices -> 4, 3, 3
    parts = utils.split_data(x, 3, even_split=False)
    assert [p.asnumpy().tolist() for p in parts] == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    y = mx.nd.arange(20).reshape((2, 10))
    assert [p.shape for p in utils.split_data(y, 4, batch_axis=1, even_split=False)] == [(2, 3), (2, 3), (2, 2),
                                                                                          (2, 2)]
    np.testing.assert_array_equal(utils.split_data(y, 4, batch_axis=1, even_split=False)[2].asnumpy(),
                                  [[6, 7], [16, 17]])
    with pytest.raises(ValueError, match="evenly split"):
        utils.split_data(x, 3)


def test_split_and_load_places_slices_on_contexts():
    parts = utils.split_and_load(np.arange(6, dtype=np.float64), [mx.cpu(0), mx.cpu(1)])
    assert [p.context for p in parts] == [mx.cpu(0), mx.cpu(1)]
    assert parts[1].dtype == np.float64 and parts[1].asnumpy().tolist() == [3, 4, 5]
    assert utils.split_and_load(mx.nd.ones((3,)), mx.cpu(0))[0].shape == (3,)


def test_clip_global_norm_scales_in_place():
    arrays = [mx.nd.ones((2, 2)) * 3, mx.nd.ones((3,)) * 4]
    norm = utils.clip_global_norm(arrays, 1.0)
    expected_norm = np.sqrt(4 * 9 + 3 * 16)
    assert norm == pytest.approx(expected_norm, rel=1e-6)
    scale = 1.0 / (expected_norm + 1e-8)
    np.testing.assert_allclose(arrays[0].asnumpy(), 3 * scale, rtol=1e-6)   # MXNet: 0.32732683
    np.testing.assert_allclose(arrays[1].asnumpy(), 4 * scale, rtol=1e-6)   # MXNet: 0.43643576
    unchanged = [mx.nd.ones((2, 2)) * 3]
    lazy = utils.clip_global_norm(unchanged, 100.0, check_isfinite=False)
    assert isinstance(lazy, mx.nd.NDArray) and lazy.asnumpy().tolist() == [6.0]
    np.testing.assert_array_equal(unchanged[0].asnumpy(), 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        utils.clip_global_norm([mx.nd.array([np.inf])], 1.0)
    assert any("nan or inf" in str(w.message) for w in caught)


def test_check_sha1_and_shape_is_known(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(b"mxtorch")
    digest = hashlib.sha1(b"mxtorch").hexdigest()
    assert utils.check_sha1(str(path), digest) and utils.check_sha1(str(path), digest[:8])
    assert not utils.check_sha1(str(path), "0" * 40)
    assert utils.shape_is_known((1, 2)) and not utils.shape_is_known((0, 2))
    assert not utils.shape_is_known(None) and not utils.shape_is_known(())


def test_download_offline_error_names_url_and_path(tmp_path, monkeypatch):
    requests = pytest.importorskip("requests")
    monkeypatch.setattr(requests, "get", lambda *a, **k: (_ for _ in ()).throw(requests.exceptions.ConnectionError()))
    target = tmp_path / "sub" / "model.params"
    with pytest.raises(utils.DownloadError) as info:
        utils.download("http://example.invalid/model.params", path=str(target), retries=1)
    assert "http://example.invalid/model.params" in str(info.value) and str(target) in str(info.value)
    assert isinstance(info.value, MXNetError) and info.value.path == str(target)
    assert not list((tmp_path / "sub").iterdir())          # no temporary file left behind


def test_download_writes_atomically_and_reuses_existing(tmp_path, monkeypatch):
    requests = pytest.importorskip("requests")
    calls = []

    class Response(requests.Response):
        def __init__(self):
            super().__init__()
            self.status_code = 200
            self.raw = io.BytesIO(b"payload" * 100)

    def fake_get(url, **kwargs):
        calls.append((url, kwargs.get("verify")))
        return Response()
    monkeypatch.setattr(requests, "get", fake_get)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        path = utils.download("https://host/a/file.txt", path=str(tmp_path), verify_ssl=False)
    assert any(str(w.message).startswith("Unverified HTTPS request") for w in caught)
    assert path == str(tmp_path / "file.txt") and (tmp_path / "file.txt").read_bytes() == b"payload" * 100
    assert [p.name for p in tmp_path.iterdir()] == ["file.txt"]
    utils.download("https://host/a/file.txt", path=str(tmp_path))      # present: no second request
    assert calls == [("https://host/a/file.txt", False)]
    wrong = hashlib.sha1(b"other").hexdigest()
    with pytest.raises(utils.DownloadError, match="SHA-1"):
        utils.download("https://host/a/file.txt", path=str(tmp_path), sha1_hash=wrong, retries=0)


def test_hook_handle_detaches():
    hooks = OrderedDict()
    handle = utils.HookHandle()
    handle.attach(hooks, print)
    assert list(hooks.values()) == [print]
    with handle:
        pass
    assert len(hooks) == 0
