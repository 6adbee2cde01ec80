"""mxtorch.datasets.load_digits: the bundled UCI digits, split, scaling and resizing."""
import numpy as np
import pytest

from mxtorch.base import MXNetError
from mxtorch.datasets import load_digits

# Published facts of the UCI digits copy scikit-learn ships (its load_digits):
# samples per digit 0..9, the sum of all pixel counts, and the first image (a 0).
CLASS_COUNTS = [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]
PIXEL_COUNT_SUM = 561718
FIRST_IMAGE = [[0, 0, 5, 13, 9, 1, 0, 0], [0, 0, 13, 15, 10, 15, 5, 0], [0, 3, 15, 2, 0, 11, 8, 0],
               [0, 4, 12, 0, 0, 8, 8, 0], [0, 5, 8, 0, 0, 9, 8, 0], [0, 4, 11, 0, 1, 12, 7, 0],
               [0, 2, 14, 5, 10, 12, 0, 0], [0, 0, 6, 13, 10, 0, 0, 0]]


def test_all_samples_match_the_published_data():
    data, labels = load_digits("all")
    assert data.shape == (1797, 1, 8, 8) and data.dtype == np.float32
    assert labels.shape == (1797,) and labels.dtype == np.float32
    assert np.bincount(labels.astype(np.int64)).tolist() == CLASS_COUNTS
    assert labels[:10].tolist() == list(range(10))
    np.testing.assert_array_equal(data[0, 0] * 16, np.array(FIRST_IMAGE, dtype=np.float32))
    assert round(float(data.astype(np.float64).sum()) * 16) == PIXEL_COUNT_SUM
    assert data.min() == 0.0 and data.max() == 1.0


def test_split_is_fixed_disjoint_and_complete():
    all_data, all_labels = load_digits("all", flat=True)
    train_data, train_labels = load_digits("train", flat=True)
    val_data, val_labels = load_digits("val", flat=True)
    assert train_data.shape == (1408, 64) and val_data.shape == (389, 64)
    order = np.random.RandomState(0).permutation(1797)
    np.testing.assert_array_equal(train_data, all_data[order[:1408]])
    np.testing.assert_array_equal(val_labels, all_labels[order[1408:]])
    np.testing.assert_array_equal(train_labels, all_labels[order[:1408]])
    # every digit is in both splits
    assert set(np.unique(train_labels)) == set(np.unique(val_labels)) == set(range(10))
    # a second call gives the same, fresh arrays
    again, _ = load_digits("train", flat=True)
    np.testing.assert_array_equal(again, train_data)
    again[0, 0] = 5.0
    assert load_digits("train", flat=True)[0][0, 0] == train_data[0, 0]


def _bilinear_half_pixel(image, size):
    """Resize a 2-D image with bilinear interpolation on pixel centres (align_corners=False)."""
    source = image.shape[0]
    scale = source / size
    coordinates = np.maximum((np.arange(size) + 0.5) * scale - 0.5, 0.0)
    low = np.floor(coordinates).astype(int)
    high = np.minimum(low + 1, source - 1)
    weight = coordinates - low
    rows = image[low] * (1 - weight)[:, None] + image[high] * weight[:, None]
    return rows[:, low] * (1 - weight)[None, :] + rows[:, high] * weight[None, :]


def test_image_size_28_is_bilinear_resize():
    small, labels_small = load_digits("val")
    large, labels_large = load_digits("val", image_size=28)
    assert large.shape == (389, 1, 28, 28) and large.dtype == np.float32
    np.testing.assert_array_equal(labels_small, labels_large)
    for index in (0, 17, 388):
        expected = _bilinear_half_pixel(small[index, 0].astype(np.float64), 28)
        np.testing.assert_allclose(large[index, 0], expected, rtol=0, atol=1e-6)
    assert large.min() >= 0.0 and large.max() <= 1.0
    flat, _ = load_digits("val", image_size=28, flat=True)
    np.testing.assert_array_equal(flat, large.reshape(389, 784))


@pytest.mark.parametrize("arguments, message", [
    ({"split": "test"}, "split"),
    ({"image_size": 32}, "image_size"),
])
def test_bad_arguments_raise(arguments, message):
    with pytest.raises(MXNetError, match=message):
        load_digits(**arguments)


def test_digits_iterators_batches():
    from mxtorch.datasets import digits_iterators
    train_iter, val_iter = digits_iterators(64, image_size=8, flat=False)
    assert [(desc.name, tuple(desc.shape)) for desc in train_iter.provide_data] == [("data", (64, 1, 8, 8))]
    assert [(desc.name, tuple(desc.shape)) for desc in train_iter.provide_label] == [("softmax_label", (64,))]
    train_batches = list(train_iter)
    assert len(train_batches) == 1408 // 64 and all(batch.pad == 0 for batch in train_batches)
    seen_labels = np.concatenate([batch.label[0].asnumpy() for batch in train_batches])
    np.testing.assert_array_equal(np.sort(seen_labels), np.sort(load_digits("train")[1]))
    val_batches = list(val_iter)
    assert len(val_batches) == 7 and val_batches[-1].pad == 7 * 64 - 389
    val_data = np.concatenate([batch.data[0].asnumpy() for batch in val_batches])[:389]
    np.testing.assert_array_equal(val_data, load_digits("val")[0])
    with pytest.raises(MXNetError, match="batch_size"):
        digits_iterators(0)
