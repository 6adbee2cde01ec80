"""Write mxtorch's bundled copy of the UCI handwritten digits.

Run once, from the repository root, in an environment with scikit-learn:

    python tools/make_digits.py

It reads the copy of the data set that scikit-learn ships
(``sklearn.datasets.load_digits``: 1,797 images of 8x8 pixels, each pixel a
count 0..16, and their digit labels 0..9) and writes

- ``src/mxtorch/datasets/digits.npz`` (``numpy.savez_compressed``; ``images``
  uint8 of shape (1797, 8, 8), ``labels`` uint8 of shape (1797,)), in
  scikit-learn's order, and
- ``src/mxtorch/datasets/DIGITS_LICENSE.txt`` with the source and licence.

mxtorch itself never imports scikit-learn; the split into training and
validation samples happens at load time (``mxtorch.datasets.load_digits``).
"""
from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits

DATASET_FOLDER = Path(__file__).resolve().parent.parent / "src" / "mxtorch" / "datasets"

LICENSE_TEXT = """\
UCI ML hand-written digits (the 8x8 "Optical Recognition of Handwritten Digits" test set)

Source: E. Alpaydin and C. Kaynak (1998). Optical Recognition of Handwritten Digits.
UCI Machine Learning Repository. https://doi.org/10.24432/C50P49
Licence: Creative Commons Attribution 4.0 International (CC BY 4.0),
https://creativecommons.org/licenses/by/4.0/

The file digits.npz holds the 1,797 samples that scikit-learn ships as
sklearn.datasets.load_digits, unchanged: images uint8 (1797, 8, 8) with pixel
counts 0..16, labels uint8 (1797,) with digits 0..9. It was written by
tools/make_digits.py in the mxtorch repository.
"""


def main():
    bunch = load_digits()
    images = bunch.images
    labels = bunch.target
    if images.shape != (1797, 8, 8) or labels.shape != (1797,):
        raise SystemExit(f"unexpected digits shapes: images {images.shape}, labels {labels.shape}")
    if images.min() < 0 or images.max() > 16 or not np.array_equal(images, np.round(images)):
        raise SystemExit("unexpected digits pixel values: expected whole numbers 0..16")
    np.savez_compressed(DATASET_FOLDER / "digits.npz",
                        images=images.astype(np.uint8), labels=labels.astype(np.uint8))
    (DATASET_FOLDER / "DIGITS_LICENSE.txt").write_text(LICENSE_TEXT)
    print(f"wrote {DATASET_FOLDER / 'digits.npz'}: {images.shape[0]} samples")


if __name__ == "__main__":
    main()
