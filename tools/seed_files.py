"""Helpers of the tools that rerun shared MXNet 1.9.1 fixtures (``gen_*_seed.py``): write a
data file only when its content changes, so that a rerun reproducing the committed values
leaves the checkout unchanged (``np.savez`` stamps the current time into the zip)."""
import json
import os

import numpy as np


def same_arrays(path, arrays):
    """Whether the ``.npz`` file at ``path`` holds exactly ``arrays`` (names, dtypes, values)."""
    if not os.path.exists(path):
        return False
    stored = np.load(path)
    return sorted(stored.files) == sorted(arrays) and all(
        stored[key].dtype == arrays[key].dtype and np.array_equal(stored[key], arrays[key]) for key in arrays)


def write_npz_if_changed(path, arrays):
    """``np.savez_compressed(path, **arrays)`` unless the file already holds them."""
    if not same_arrays(path, arrays):
        np.savez_compressed(path, **arrays)


def write_json_if_changed(path, value):
    """``value`` as JSON at ``path`` unless the file already holds an equal value."""
    if os.path.exists(path):
        with open(path) as handle:
            if json.load(handle) == value:
                return
    with open(path, "w") as handle:
        json.dump(value, handle, indent=1)
        handle.write("\n")
