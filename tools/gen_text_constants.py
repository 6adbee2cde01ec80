"""Writes src/mxtorch/contrib/text/pretrained_files.json: the names and SHA-1 digests of the GloVe and
fastText pre-trained embedding files (and their archives) that MXNet 1.9.1's ``mxnet.contrib.text``
knows, so mxtorch checks a file placed by hand the same way.

Run with the reference MXNet: ``~/mxref/bin/python tools/gen_text_constants.py``.
"""
import json
import os

from mxnet.contrib.text import _constants as constants

NAMES = ("GLOVE_PRETRAINED_FILE_SHA1", "GLOVE_PRETRAINED_ARCHIVE_SHA1", "FAST_TEXT_ARCHIVE_SHA1",
         "FAST_TEXT_FILE_SHA1")
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "mxtorch", "contrib", "text",
                   "pretrained_files.json")
with open(out, "w") as handle:
    json.dump({name: getattr(constants, name) for name in NAMES}, handle, indent=0)
    handle.write("\n")
print("wrote", out)
