"""gluon.data: datasets, samplers, DataLoader (batchify, last_batch, workers), vision datasets
read from files, RecordIO datasets.  Expected values are MXNet 1.9.1's (noted) or computed."""
import gzip
import os
import struct

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError
from mxtorch.gluon import data as gdata
from mxtorch.gluon.data import vision


def test_dataset_selection_methods():
    data = gdata.SimpleDataset(list(range(9)))
    # MXNet 1.9.1: shard(4, i) of 9 samples -> [0,1,2], [3,4], [5,6], [7,8]
    assert [list(data.shard(4, i)) for i in range(4)] == [[0, 1, 2], [3, 4], [5, 6], [7, 8]]
    assert list(data.take(3)) == [0, 1, 2] and len(data.take(None)) == 9
    assert list(data.transform(lambda x: x * 10).filter(lambda x: x % 20 == 0)) == [0, 20, 40, 60, 80]
    assert isinstance(data.transform(lambda x: x, lazy=False), gdata.SimpleDataset)
    pairs = gdata.ArrayDataset(np.arange(4), np.arange(4) + 10).transform_first(lambda x: x * 2)
    assert [tuple(int(v) for v in p) for p in pairs] == [(0, 10), (2, 11), (4, 12), (6, 13)]
    with pytest.raises(ValueError, match="same length"):
        gdata.ArrayDataset(np.arange(3), np.arange(4))


def test_array_dataset_converts_1d_ndarrays():
    dataset = gdata.ArrayDataset(mx.nd.arange(5), mx.nd.arange(10).reshape((5, 2)))
    first, second = dataset[1]
    assert isinstance(first, np.float32) and first == 1.0
    assert isinstance(second, mx.nd.NDArray) and second.asnumpy().tolist() == [2, 3]


def test_samplers():
    batches = gdata.BatchSampler(gdata.SequentialSampler(10), 3, "rollover")
    # MXNet 1.9.1: lengths 3, 3, 4 and the leftover 9 starting the second epoch
    assert len(batches) == 3 and list(batches) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert len(batches) == 3 and list(batches) == [[9, 0, 1], [2, 3, 4], [5, 6, 7]]
    assert len(batches) == 4
    assert list(gdata.BatchSampler(gdata.SequentialSampler(10), 3, "discard"))[-1] == [6, 7, 8]
    assert list(gdata.IntervalSampler(10, 3)) == [0, 3, 6, 9, 1, 4, 7, 2, 5, 8]
    assert list(gdata.IntervalSampler(10, 3, rollover=False)) == [0, 3, 6, 9]
    assert sorted(gdata.RandomSampler(7)) == list(range(7))
    assert list(gdata.SequentialSampler(3, 5)) == [5, 6, 7]
    with pytest.raises(ValueError, match="last_batch"):
        gdata.BatchSampler(gdata.SequentialSampler(3), 2, "drop")


def test_default_batchify_dtypes_and_tuples():
    loader = gdata.DataLoader([([1, 2], 0), ([3, 4], 1)], batch_size=2)
    data, label = next(iter(loader))
    assert data.dtype == np.int64 and data.asnumpy().tolist() == [[1, 2], [3, 4]]
    assert label.asnumpy().tolist() == [0, 1]
    x = np.random.RandomState(0).uniform(size=(10, 3))
    batches = [b.asnumpy() for b in gdata.DataLoader(gdata.ArrayDataset(x), 4)]
    assert [b.shape[0] for b in batches] == [4, 4, 2] and batches[0].dtype == np.float64
    np.testing.assert_array_equal(np.concatenate(batches), x)
    assert len(gdata.DataLoader(gdata.ArrayDataset(x), 4, last_batch="discard")) == 2
    with pytest.raises(ValueError, match="shuffle"):
        gdata.DataLoader(x, 4, shuffle=True, sampler=gdata.SequentialSampler(10))
    with pytest.raises(ValueError, match="batch_size"):
        gdata.DataLoader(x)


class _Squares(gdata.Dataset):
    def __len__(self):
        return 23

    def __getitem__(self, idx):
        return mx.nd.full((2,), idx * idx), idx


@pytest.mark.parametrize("thread_pool", [False, True])
def test_workers_deliver_batches_in_order(thread_pool):
    loader = gdata.DataLoader(_Squares(), batch_size=4, num_workers=2, thread_pool=thread_pool,
                              batchify_fn=lambda samples: (mx.nd.stack(*[s[0] for s in samples]),
                                                           [s[1] for s in samples]))
    for epoch in range(2):
        seen = []
        for data, indices in loader:
            np.testing.assert_array_equal(data.asnumpy()[:, 0], np.array(indices) ** 2)
            seen += indices
        assert seen == list(range(23))


def test_worker_errors_reach_the_caller():
    class Broken(gdata.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, idx):
            raise KeyError(f"sample {idx} is broken")
    with pytest.raises(KeyError, match="broken"):
        list(gdata.DataLoader(Broken(), batch_size=2, num_workers=1))


def test_pin_memory_context():
    loader = gdata.DataLoader(gdata.ArrayDataset(np.ones((4, 2))), 2, pin_memory=True)
    assert all(batch.context == mx.cpu_pinned(0) for batch in loader)


def _write_idx(path, array, magic):
    header = struct.pack(">II", magic, array.shape[0]) + b"".join(struct.pack(">I", d) for d in array.shape[1:])
    with gzip.open(path, "wb") as out:
        out.write(header + array.tobytes())


def test_mnist_reads_idx_files_and_names_missing_ones(tmp_path):
    rng = np.random.RandomState(1)
    images = rng.randint(0, 256, (5, 28, 28)).astype(np.uint8)
    labels = rng.randint(0, 10, 5).astype(np.uint8)
    _write_idx(tmp_path / "t10k-images-idx3-ubyte.gz", images, 2051)
    _write_idx(tmp_path / "t10k-labels-idx1-ubyte.gz", labels, 2049)
    test = vision.MNIST(root=str(tmp_path), train=False)
    assert len(test) == 5
    image, label = test[3]
    assert image.shape == (28, 28, 1) and image.dtype == np.uint8 and label.dtype == np.int32
    np.testing.assert_array_equal(image.asnumpy()[:, :, 0], images[3])
    assert label == labels[3]
    scaled = vision.FashionMNIST(root=str(tmp_path), train=False,
                                 transform=lambda d, l: (d.astype("float32") / 255, l))
    np.testing.assert_allclose(scaled[0][0].asnumpy()[:, :, 0], images[0] / 255.0, rtol=1e-6)
    with pytest.raises(MXNetError) as info:
        vision.MNIST(root=str(tmp_path), train=True)
    assert "train-images-idx3-ubyte.gz" in str(info.value) and str(tmp_path) in str(info.value)


def test_cifar_reads_binary_batches(tmp_path):
    rng = np.random.RandomState(2)
    images = rng.randint(0, 256, (3, 3, 32, 32)).astype(np.uint8)      # (N, C, H, W) as stored
    folder = tmp_path / "cifar-10-batches-bin"
    folder.mkdir()
    records = np.concatenate([np.array([[7], [1], [4]], np.uint8), images.reshape(3, -1)], axis=1)
    (folder / "test_batch.bin").write_bytes(records.tobytes())
    test = vision.CIFAR10(root=str(tmp_path), train=False)
    image, label = test[1]
    assert len(test) == 3 and image.shape == (32, 32, 3) and label == 1
    np.testing.assert_array_equal(image.asnumpy(), images[1].transpose(1, 2, 0))
    fine = np.concatenate([np.array([[2, 55]], np.uint8), images[:1].reshape(1, -1)], axis=1)
    (tmp_path / "test.bin").write_bytes(fine.tobytes())
    assert vision.CIFAR100(root=str(tmp_path), train=False, fine_label=True)[0][1] == 55
    assert vision.CIFAR100(root=str(tmp_path), train=False)[0][1] == 2
    with pytest.raises(MXNetError, match="data_batch_1.bin"):
        vision.CIFAR10(root=str(tmp_path), train=True)


def _png(image):
    import cv2
    ok, encoded = cv2.imencode(".png", image[:, :, ::-1])
    assert ok
    return encoded.tobytes()


def test_record_and_folder_image_datasets(tmp_path):
    rng = np.random.RandomState(3)
    images = [rng.randint(0, 256, (4 + i, 5, 3)).astype(np.uint8) for i in range(3)]
    writer = mx.recordio.MXIndexedRecordIO(str(tmp_path / "d.idx"), str(tmp_path / "d.rec"), "w")
    for i, image in enumerate(images):
        writer.write_idx(i, mx.recordio.pack(mx.recordio.IRHeader(0, float(i * 2), i, 0), _png(image)))
    writer.close()
    raw = gdata.RecordFileDataset(str(tmp_path / "d.rec"))
    assert len(raw) == 3 and isinstance(raw[0], bytes)
    records = vision.ImageRecordDataset(str(tmp_path / "d.rec"))
    image, label = records[2]
    np.testing.assert_array_equal(image.asnumpy(), images[2])
    assert label == 4.0
    loader = gdata.DataLoader(records.transform_first(lambda x: x.astype("float32").mean()), 1, num_workers=2)
    means = [float(x.asnumpy().ravel()[0]) for x, _ in loader]
    np.testing.assert_allclose(means, [im.mean() for im in images], rtol=1e-5)
    for name, image in zip(["b/1.png", "b/2.png", "a/1.png"], images):
        os.makedirs(tmp_path / "folder" / os.path.dirname(name), exist_ok=True)
        (tmp_path / "folder" / name).write_bytes(_png(image))
    (tmp_path / "folder" / "a" / "notes.txt").write_text("not an image")
    with pytest.warns(UserWarning, match="notes.txt"):
        folder = vision.ImageFolderDataset(str(tmp_path / "folder"))
    assert folder.synsets == ["a", "b"] and len(folder) == 3
    image, label = folder[0]
    assert label == 0
    np.testing.assert_array_equal(image.asnumpy(), images[2])
    with pytest.raises(MXNetError, match="idx"):
        gdata.RecordFileDataset(str(tmp_path / "missing.rec"))


def test_wikitext2_reads_placed_tokens_like_mxnet(tmp_path):
    # MXNet 1.9.1 on the same file (its SHA-1 check bypassed): vocabulary order and shifted rows
    import zipfile
    from mxtorch.gluon.contrib.data.text import WikiText2
    tokens = " = Title = \n\n the cat sat on the mat . \n the dog sat . \n"
    with zipfile.ZipFile(tmp_path / "wikitext-2-v1.zip", "w") as bundle:      # placed as the archive
        bundle.writestr("wikitext-2/wiki.train.tokens", tokens)
    with pytest.warns(UserWarning, match="differs from the published"):
        data = WikiText2(root=str(tmp_path), segment="train", seq_len=3)
    assert data.vocabulary.idx_to_token == ["<unk>", "<eos>", "the", ".", "=", "sat", "Title", "cat", "dog", "mat",
                                            "on"]
    assert data.frequencies["the"] == 3 and len(data) == 5
    rows = [(d.asnumpy().tolist(), l.asnumpy().tolist()) for d, l in (data[i] for i in range(len(data)))]
    assert rows == [([4, 6, 4], [6, 4, 1]), ([1, 2, 7], [2, 7, 5]), ([5, 10, 2], [10, 2, 9]),
                    ([9, 3, 1], [3, 1, 2]), ([2, 8, 5], [8, 5, 3])]
    assert data[0][0].dtype == np.int32
    with pytest.raises(MXNetError, match="wiki.valid.tokens"):
        WikiText2(root=str(tmp_path), segment="validation")
