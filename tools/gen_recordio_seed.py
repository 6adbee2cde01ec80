"""Regenerates the shared MXNet 1.9.1 RecordIO cases of tests/data/recordio/ (run with ~/mxref/bin/python).

    ~/mxref/bin/python tools/gen_recordio_seed.py [OUTPUT_FOLDER]   # default tests/data/recordio

The cases of ``index.json`` (a subset of the shared io fixtures, whose original generator
``gen_io.py`` is not in this repository) are rebuilt from what they record, with MXNet 1.9.1
and opencv-python-headless 4.8.1 (the ``cv2`` module ``mx.recordio.pack_img`` needs):

- ``raw_records``: ``mx.recordio.pack(IRHeader(flag, label, id, id2), payload)`` for each
  recorded header and ``payload:k``, written with ``MXRecordIO`` -> ``raw_records.rec``;
  ``record:k`` is what ``read()`` returns;
- ``images_png`` / ``images_jpg95``: ``pack_img`` of ``original:k`` (the BGR image handed to
  OpenCV) with the case's ``img_fmt`` / ``quality`` and header, written with
  ``MXIndexedRecordIO`` under ``keys`` -> ``.rec`` / ``.idx``; ``decoded:k`` is ``unpack_img``'s
  image and ``max_abs_diff_vs_original`` its largest difference from the original;
- ``imagerecorditer_*``: ``mx.io.ImageRecordIter(path_imgrec, path_imgidx, **kwargs)`` over
  the rebuilt ``images_png`` file for one epoch: every batch's data, label, ``pad`` and
  ``index``, ``provide_data`` / ``provide_label`` and ``num_data``.

The record files are rewritten byte for byte.  An ``.npz`` file, or ``index.json``, is
rewritten only when its content differs from what the script computes (``np.savez`` stamps
the current time into the zip, so rewriting equal arrays would change the bytes only); the
script prints, per case, whether the committed content was reproduced, and exits with status 1
when something differed.  ``tools/gen_recordio_reference.py`` builds the other files of the
folder on top of these.
"""
import json
import os
import sys

import numpy as np
import mxnet as mx

from seed_files import same_arrays, write_json_if_changed, write_npz_if_changed

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                         "tests", "data", "recordio")
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "recordio")


def _write_bytes(name, reference):
    """Whether the file just written equals the committed one (``reference`` bytes or None)."""
    with open(os.path.join(OUT, name), "rb") as handle:
        return reference is None or handle.read() == reference


def _committed(name):
    path = os.path.join(SOURCE, name)
    if not os.path.exists(path):
        return None
    with open(path, "rb") as handle:
        return handle.read()


def raw_records(case, source):
    committed = _committed(case["rec"])
    writer = mx.recordio.MXRecordIO(os.path.join(OUT, case["rec"]), "w")
    arrays = {}
    for k, record in enumerate(case["records"]):
        payload = source["payload:%d" % k].tobytes()
        label = record["label"]
        header = mx.recordio.IRHeader(0 if isinstance(label, list) else record["flag"],
                                      np.array(label, np.float32) if isinstance(label, list) else label,
                                      record["id"], record["id2"])
        packed = mx.recordio.pack(header, payload)
        writer.write(packed)
        arrays["payload:%d" % k] = np.frombuffer(payload, np.uint8)
        arrays["record:%d" % k] = np.frombuffer(packed, np.uint8)
        record.update(payload_len=len(payload), record_len=len(packed))
    writer.close()
    reader = mx.recordio.MXRecordIO(os.path.join(OUT, case["rec"]), "r")
    for k, record in enumerate(case["records"]):
        read = reader.read()
        header, payload = mx.recordio.unpack(read)
        assert read == arrays["record:%d" % k].tobytes() and payload == arrays["payload:%d" % k].tobytes()
        record["flag"] = int(header.flag)
    reader.close()
    return arrays, _write_bytes(case["rec"], committed)


def packed_images(case, source):
    committed = [_committed(case["rec"]), _committed(case["idx"])]
    writer = mx.recordio.MXIndexedRecordIO(os.path.join(OUT, case["idx"]), os.path.join(OUT, case["rec"]), "w")
    arrays = {}
    for key, record in zip(case["keys"], case["records"]):
        original = source["original:%d" % key]
        header = mx.recordio.IRHeader(record["flag"], record["label"], record["id"], record["id2"])
        writer.write_idx(key, mx.recordio.pack_img(header, original, quality=case["quality"], img_fmt=case["img_fmt"]))
        arrays["original:%d" % key] = original
    writer.close()
    reader = mx.recordio.MXIndexedRecordIO(os.path.join(OUT, case["idx"]), os.path.join(OUT, case["rec"]), "r")
    for key, record in zip(case["keys"], case["records"]):
        header, image = mx.recordio.unpack_img(reader.read_idx(key))
        arrays["decoded:%d" % key] = image
        label = header.label
        record.update(flag=int(header.flag), label=float(label) if np.ndim(label) == 0 else [float(v) for v in label],
                      id=int(header.id), id2=int(header.id2), decoded_shape=list(image.shape),
                      max_abs_diff_vs_original=int(np.abs(image.astype(np.int32)
                                                          - arrays["original:%d" % key].astype(np.int32)).max()))
    reader.close()
    return arrays, _write_bytes(case["rec"], committed[0]) and _write_bytes(case["idx"], committed[1])


def _description(desc):
    return {"name": desc.name, "shape": list(desc.shape), "dtype": np.dtype(desc.dtype).name, "layout": desc.layout}


def image_record_iter(case, source):
    kwargs = dict(case["kwargs"])
    kwargs["data_shape"] = tuple(kwargs["data_shape"])
    iterator = mx.io.ImageRecordIter(path_imgrec=os.path.join(OUT, case["rec"]),
                                     path_imgidx=os.path.join(OUT, case["idx"]), **kwargs)
    case["provide_data"] = [_description(d) for d in iterator.provide_data]
    case["provide_label"] = [_description(d) for d in iterator.provide_label]
    arrays, batches = {}, []
    for number, batch in enumerate(iterator):
        entry = {"epoch": 0, "batch": number, "pad": int(batch.pad), "data": [], "label": [],
                 "index": None if batch.index is None else [int(i) for i in batch.index]}
        for kind, values in (("data", batch.data), ("label", batch.label)):
            for position, value in enumerate(values):
                key = "e0:b%d:%s%d" % (number, kind, position)
                arrays[key] = value.asnumpy()
                entry[kind].append(key)
        batches.append(entry)
    case["batches"] = batches
    return arrays, True


KINDS = {"MXRecordIO": raw_records, "MXIndexedRecordIO+pack_img": packed_images, "ImageRecordIter": image_record_iter}


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(SOURCE, "index.json")) as handle:
        committed_index = json.load(handle)
    index = json.loads(json.dumps(committed_index))
    # the image files first: the iterator cases read the rebuilt images_png files
    order = sorted(index["cases"], key=lambda case: case["kind"] == "ImageRecordIter")
    differences = 0
    for case in order:
        source = np.load(os.path.join(SOURCE, case["file"]))
        arrays, same_bytes = KINDS[case["kind"]](case, source)
        reproduced = same_arrays(os.path.join(SOURCE, case["file"]), arrays)
        write_npz_if_changed(os.path.join(OUT, case["file"]), arrays)
        differences += not (same_bytes and reproduced)
        print("%-28s files %s, arrays %s" % (case["name"], "reproduced" if same_bytes else "DIFFER",
                                             "reproduced" if reproduced else "DIFFER"))
    write_json_if_changed(os.path.join(OUT, "index.json"), index)
    print("index.json", "reproduced" if index == committed_index else "DIFFERS")
    differences += index != committed_index
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
