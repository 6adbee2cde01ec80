"""Small data sets bundled with mxtorch, so examples and tests run offline.

``load_digits`` returns the UCI handwritten digits (1,797 grey images of
8x8 pixels, digits 0..9; E. Alpaydin and C. Kaynak, 1998, CC BY 4.0, see
``DIGITS_LICENSE.txt``), the copy scikit-learn ships, stored in
``digits.npz`` by ``tools/make_digits.py``.

The split is fixed: the 1,797 indices are shuffled once with
``numpy.random.RandomState(0).permutation`` (NumPy guarantees this stream
stays the same across versions); the first 1,408 shuffled samples (78%) are
the training split and the remaining 389 the validation split.  1,408 is
11 * 128, so batch sizes 16, 32, 64 and 128 need no padded last training
batch.
"""
from __future__ import annotations

import functools
from importlib import resources

import numpy as np

from ..base import MXNetError

__all__ = ["load_digits", "digits_iterators", "DIGITS_TRAIN_SIZE", "DIGITS_VALIDATION_SIZE"]

DIGITS_TRAIN_SIZE = 1408
DIGITS_VALIDATION_SIZE = 389
_DIGITS_SPLIT_SEED = 0
_DIGITS_MAX_PIXEL = 16.0
_SPLITS = ("train", "val", "all")
_IMAGE_SIZES = (8, 28)


@functools.lru_cache(maxsize=1)
def _digits_raw():
    """The stored arrays: images uint8 (1797, 8, 8) in 0..16, labels uint8 (1797,)."""
    with resources.files(__name__).joinpath("digits.npz").open("rb") as handle:
        with np.load(handle) as archive:
            images = archive["images"]
            labels = archive["labels"]
    images.setflags(write=False)
    labels.setflags(write=False)
    return images, labels


def _split_indices(split):
    order = np.random.RandomState(_DIGITS_SPLIT_SEED).permutation(
        DIGITS_TRAIN_SIZE + DIGITS_VALIDATION_SIZE)
    if split == "train":
        return order[:DIGITS_TRAIN_SIZE]
    if split == "val":
        return order[DIGITS_TRAIN_SIZE:]
    return np.arange(order.size)


def load_digits(split="train", image_size=8, flat=False):
    """Load the bundled UCI handwritten digits as float32 arrays.

    Parameters
    ----------
    split : {'train', 'val', 'all'}
        'train': 1,408 samples, 'val': the other 389 (fixed split, see the
        module docstring), 'all': all 1,797 in the stored order.
    image_size : {8, 28}
        8 gives the images as stored.  28 resizes them to 28x28 with
        ``torch.nn.functional.interpolate(mode='bilinear',
        align_corners=False)``, so networks written for MNIST (LeNet with
        unpadded 5x5 convolutions) run unchanged.  Bilinear interpolation
        keeps the values in [0, 1].
    flat : bool
        False: data shaped (N, 1, image_size, image_size), the layout of
        ``mx.sym.Convolution``.  True: (N, image_size * image_size), for
        fully connected networks.

    Returns
    -------
    (data, labels) : tuple of numpy.ndarray
        ``data`` float32, pixel counts divided by 16 so values lie in [0, 1];
        ``labels`` float32 of shape (N,) holding the digit 0..9, the label
        form ``SoftmaxOutput`` and ``mx.metric.Accuracy`` expect.  Fresh
        arrays on every call.

    Raises
    ------
    MXNetError
        If ``split`` or ``image_size`` is not one of the values above.
    """
    if split not in _SPLITS:
        raise MXNetError(f"load_digits: split must be one of {_SPLITS}, got {split!r}")
    if image_size not in _IMAGE_SIZES:
        raise MXNetError(f"load_digits: image_size must be one of {_IMAGE_SIZES}, got {image_size!r}")
    images, labels = _digits_raw()
    indices = _split_indices(split)
    data = images[indices].astype(np.float32)[:, None, :, :] / np.float32(_DIGITS_MAX_PIXEL)
    if image_size != images.shape[-1]:
        import torch  # only for resizing
        resized = torch.nn.functional.interpolate(
            torch.from_numpy(data), size=(image_size, image_size), mode="bilinear", align_corners=False)
        data = resized.numpy()
    if flat:
        data = data.reshape(data.shape[0], image_size * image_size)
    return np.ascontiguousarray(data), labels[indices].astype(np.float32)


def digits_iterators(batch_size, image_size=8, flat=False):
    """Training and validation iterators over the bundled digits.

    Parameters
    ----------
    batch_size : int
        Samples per batch, both iterators.
    image_size, flat
        As in :func:`load_digits`.

    Returns
    -------
    (train_iter, val_iter) : tuple of mxtorch.io.NDArrayIter
        ``train_iter`` shuffles every epoch (``shuffle=True``) and
        ``val_iter`` keeps the stored order; both pad the last batch
        (MXNet's default ``last_batch_handle='pad'``).  Data is named
        'data' and labels 'softmax_label', as MXNet's examples expect.

    Raises
    ------
    MXNetError
        If ``batch_size`` is not a positive whole number, or as
        :func:`load_digits`.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise MXNetError(f"digits_iterators: batch_size must be a positive integer, got {batch_size!r}")
    from ..io import NDArrayIter  # imported here: the io package imports far more than this one needs

    train_data, train_labels = load_digits("train", image_size, flat)
    val_data, val_labels = load_digits("val", image_size, flat)
    train_iter = NDArrayIter(train_data, train_labels, batch_size, shuffle=True,
                             last_batch_handle="pad", data_name="data", label_name="softmax_label")
    val_iter = NDArrayIter(val_data, val_labels, batch_size, shuffle=False,
                           last_batch_handle="pad", data_name="data", label_name="softmax_label")
    return train_iter, val_iter
