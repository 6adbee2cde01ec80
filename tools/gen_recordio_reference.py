"""Generate the MXNet 1.9.1 reference data of tests/test_recordio.py and tests/test_image.py.

Run with the reference MXNet (plus opencv-python-headless 4.8.1 for cv2):
    ~/mxref/bin/python tools/gen_recordio_reference.py [OUTPUT_FOLDER]   # default tests/data/recordio
Writes multipart.rec/.idx + multipart.npz (records holding the RecordIO magic number),
det.rec/.idx, multilabel.rec/.idx (image records with array labels), iterators.json +
iterators.npz (ImageRecordIter / ImageRecordUInt8Iter / ImageRecordInt8Iter /
ImageDetRecordIter batches), mean_img.nd (the mean image MXNet computed) and image.npz
(mx.image functions, augmenters and iterators under seeded random).
It reads the shared cases of index.json (images_png / images_jpg95 / raw_records records and the
imagerecorditer_* batches), which tools/gen_recordio_seed.py rebuilds.
"""
import json
import random
import struct

import cv2
import mxnet as mx
import numpy as np

import os as _os
import sys as _sys

# the output folder: the first argument, else tests/data/recordio of this checkout
_OUT = _sys.argv[1] if len(_sys.argv) > 1 else _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "..",
                                                              "tests", "data", "recordio")
_os.makedirs(_OUT, exist_ok=True)
# inputs: the shared io fixtures of the folder (images_*.npz / .rec / .idx), copied when writing elsewhere
_DEFAULT = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "..", "tests", "data", "recordio")
if _os.path.realpath(_OUT) != _os.path.realpath(_DEFAULT):
    import shutil as _shutil
    for _name in _os.listdir(_DEFAULT):
        if _name.startswith(("images_", "raw_records", "index.json")):
            _shutil.copy(_os.path.join(_DEFAULT, _name), _OUT)
_os.chdir(_OUT)

MAGIC = struct.pack("<I", 0xced7230a)


def multipart_payloads():
    rng = np.random.RandomState(0)
    payloads = [b"", b"a", b"abcd", MAGIC, MAGIC + MAGIC, b"xy" + MAGIC + b"zw", b"wxyz" + MAGIC + b"1234" + MAGIC + b"!",
                MAGIC + b"tail", b"head" + MAGIC, rng.bytes(37), rng.bytes(5) + MAGIC + rng.bytes(3) + MAGIC]
    big = bytearray(rng.bytes(3000))
    big[400:404] = MAGIC
    big[402:406] = MAGIC      # unaligned: not a split point
    big[800:804] = MAGIC
    payloads.append(bytes(big))
    return payloads


def write_multipart():
    writer = mx.recordio.MXIndexedRecordIO("multipart.idx", "multipart.rec", "w")
    payloads = multipart_payloads()
    for key, payload in enumerate(payloads):
        writer.write_idx(key, payload)
    writer.close()
    np.savez_compressed("multipart.npz", **{"payload:%d" % k: np.frombuffer(p, np.uint8) for k, p in enumerate(payloads)})


def write_label_records():
    z = np.load("images_png.npz")
    original = [z["original:%d" % k] for k in range(6)]
    writer = mx.recordio.MXIndexedRecordIO("det.idx", "det.rec", "w")
    for k in range(5):
        objects = [[k % 2, 0.1 * j, 0.1, 0.5 + 0.1 * j, 0.9] for j in range(k % 3 + 1)]
        label = [2, 5] + sum(objects, [])
        writer.write_idx(k, mx.recordio.pack_img(mx.recordio.IRHeader(0, label, k, 0), original[k], quality=3,
                                                 img_fmt=".png"))
    writer.close()
    writer = mx.recordio.MXIndexedRecordIO("multilabel.idx", "multilabel.rec", "w")
    for k in range(3):
        writer.write_idx(k, mx.recordio.pack_img(mx.recordio.IRHeader(0, [k, k + 0.5, k + 0.25], k, 0), original[k],
                                                 quality=3, img_fmt=".png"))
    writer.close()


ITERATOR_CASES = [
    ("plain_b4", "ImageRecordIter", dict(path_imgrec="images_png.rec", data_shape=(3, 12, 16), batch_size=4), 3),
    ("plain_b5", "ImageRecordIter", dict(path_imgrec="images_png.rec", data_shape=(3, 12, 16), batch_size=5), 3),
    ("jpg_b3", "ImageRecordIter", dict(path_imgrec="images_jpg95.rec", data_shape=(3, 12, 16), batch_size=3), 1),
    ("uint8", "ImageRecordUInt8Iter", dict(path_imgrec="images_png.rec", data_shape=(3, 12, 16), batch_size=3), 1),
    ("int8", "ImageRecordInt8Iter", dict(path_imgrec="images_png.rec", data_shape=(3, 12, 16), batch_size=3), 1),
    ("gray", "ImageRecordIter", dict(path_imgrec="images_png.rec", data_shape=(1, 12, 16), batch_size=3), 1),
    ("normalise_mirror", "ImageRecordIter", dict(path_imgrec="images_png.rec", data_shape=(3, 7, 9), batch_size=3,
                                                 mean_r=10, mean_g=20, mean_b=30, std_r=2, std_g=4, std_b=8,
                                                 scale=0.5, mirror=True), 1),
    ("enlarge_height", "ImageRecordIter", dict(path_imgrec="images_png.rec", data_shape=(3, 14, 16), batch_size=3), 1),
    ("enlarge_both", "ImageRecordIter", dict(path_imgrec="images_png.rec", data_shape=(3, 14, 20), batch_size=3), 1),
    ("enlarge_width_nearest", "ImageRecordIter", dict(path_imgrec="images_png.rec", data_shape=(3, 8, 40),
                                                      batch_size=3, inter_method=0), 1),
    ("enlarge_area", "ImageRecordIter", dict(path_imgrec="images_png.rec", data_shape=(3, 13, 13), batch_size=3,
                                             inter_method=3), 1),
    ("resize_nearest", "ImageRecordIter", dict(path_imgrec="images_png.rec", data_shape=(3, 8, 8), batch_size=3,
                                               resize=13, inter_method=0), 1),
    ("multilabel", "ImageRecordIter", dict(path_imgrec="multilabel.rec", data_shape=(3, 12, 16), batch_size=2,
                                           label_width=3), 1),
    ("mean_img", "ImageRecordIter", dict(path_imgrec="images_png.rec", data_shape=(3, 12, 16), batch_size=3,
                                         mean_img="mean_img.nd", scale=0.5, std_r=2), 1),
    ("det_force", "ImageDetRecordIter", dict(path_imgrec="det.rec", data_shape=(3, 8, 8), batch_size=2), 2),
    ("det_fit", "ImageDetRecordIter", dict(path_imgrec="det.rec", data_shape=(3, 8, 10), batch_size=2,
                                           resize_mode="fit", label_pad_width=20, label_pad_value=-2), 1),
    ("det_shrink", "ImageDetRecordIter", dict(path_imgrec="det.rec", data_shape=(3, 20, 30), batch_size=2,
                                              resize_mode="shrink", mean_r=1, std_r=2), 1),
]


def write_iterators():
    cases, arrays = [], {}
    for name, kind, kwargs, epochs in ITERATOR_CASES:
        iterator = getattr(mx.io, kind)(preprocess_threads=1, **kwargs)
        case = dict(name=name, kind=kind, kwargs={k: list(v) if isinstance(v, tuple) else v for k, v in kwargs.items()},
                    provide_data=[[d.name, list(d.shape), np.dtype(d.dtype).name] for d in iterator.provide_data],
                    provide_label=[[d.name, list(d.shape), np.dtype(d.dtype).name] for d in iterator.provide_label],
                    batches=[])
        for epoch in range(epochs):
            for number, batch in enumerate(iterator):
                key = "%s:e%d:b%d" % (name, epoch, number)
                arrays[key + ":data"] = batch.data[0].asnumpy()
                arrays[key + ":label"] = batch.label[0].asnumpy()
                case["batches"].append(dict(epoch=epoch, batch=number, pad=int(batch.pad), key=key))
            iterator.reset()
        cases.append(case)
    json.dump(dict(mxnet_version=mx.__version__, cases=cases), open("iterators.json", "w"), indent=1)
    np.savez_compressed("iterators.npz", **arrays)


def seed(value):
    random.seed(value)
    np.random.seed(value)


def write_image():
    out = {}
    rng = np.random.RandomState(1)
    base = cv2.GaussianBlur(rng.randint(0, 256, (40, 56, 3)).astype(np.uint8), (5, 5), 0)
    png = cv2.imencode(".png", base)[1]
    out["png"] = png.ravel()
    image = mx.image.imdecode(png.tobytes())
    out["imdecode"] = image.asnumpy()
    out["imdecode_bgr"] = mx.image.imdecode(png.tobytes(), to_rgb=0).asnumpy()
    out["imdecode_gray"] = mx.image.imdecode(png.tobytes(), flag=0).asnumpy()
    for interp in range(5):
        out["imresize_down%d" % interp] = mx.image.imresize(image, 23, 17, interp=interp).asnumpy()
        out["imresize_up%d" % interp] = mx.image.imresize(image, 70, 61, interp=interp).asnumpy()
    out["imresize_float"] = mx.image.imresize(image.astype("float32"), 23, 17).asnumpy()
    out["resize_short"] = mx.image.resize_short(image, 20).asnumpy()
    out["resize_short_auto"] = mx.image.resize_short(image, 60, interp=9).asnumpy()
    crop, rect = mx.image.center_crop(image, (30, 20), interp=1)
    out["center_crop"], out["center_crop_rect"] = crop.asnumpy(), np.array(rect)
    crop, rect = mx.image.center_crop(image, (80, 20), interp=1)
    out["center_crop_up"], out["center_crop_up_rect"] = crop.asnumpy(), np.array(rect)
    seed(3)
    crop, rect = mx.image.random_crop(image, (30, 20))
    out["random_crop"], out["random_crop_rect"] = crop.asnumpy(), np.array(rect)
    seed(4)
    crop, rect = mx.image.random_size_crop(image, (24, 24), 0.3, (0.75, 1.33), interp=1)
    out["random_size_crop"], out["random_size_crop_rect"] = crop.asnumpy(), np.array(rect)
    out["fixed_crop"] = mx.image.fixed_crop(image, 3, 4, 20, 10, (10, 5), 1).asnumpy()
    out["border"] = mx.image.copyMakeBorder(image, 1, 2, 3, 4, values=(1, 2, 3)).asnumpy()
    out["border_reflect"] = mx.image.copyMakeBorder(image, 2, 2, 2, 2, type=1).asnumpy()
    out["color_normalize"] = mx.image.color_normalize(image.astype("float32"), mx.nd.array([1, 2, 3]),
                                                      mx.nd.array([2, 4, 8])).asnumpy()
    configs = [dict(), dict(resize=30, rand_crop=True, rand_mirror=True, inter_method=1),
               dict(rand_crop=True, rand_resize=True, mean=True, std=True, inter_method=1),
               dict(brightness=0.3, contrast=0.3, saturation=0.3, hue=0.2, pca_noise=0.1, rand_gray=0.5,
                    rand_mirror=True)]
    for number, config in enumerate(configs):
        augmenters = mx.image.CreateAugmenter((3, 16, 20), **config)
        out["augmenter%d_dumps" % number] = np.array([str(aug.dumps()) for aug in augmenters])
        for repeat in range(3):
            seed(10 * number + repeat)
            result = image.copy()
            for aug in augmenters:
                result = aug(result)
            out["augmenter%d_%d" % (number, repeat)] = result.asnumpy()

    def collect(prefix, iterator, epochs=2):
        for epoch in range(epochs):
            count = 0
            for batch in iterator:
                key = "%s_e%d_b%d" % (prefix, epoch, count)
                out[key + "_data"] = batch.data[0].asnumpy()
                out[key + "_label"] = batch.label[0].asnumpy()
                out[key + "_pad"] = np.array(batch.pad)
                count += 1
            out["%s_e%d_batches" % (prefix, epoch)] = np.array(count)
            iterator.reset()

    seed(5)
    collect("imageiter_sequential", mx.image.ImageIter(4, (3, 10, 12), path_imgrec="images_png.rec"))
    seed(6)
    collect("imageiter_shuffle", mx.image.ImageIter(4, (3, 10, 12), path_imgrec="images_png.rec",
                                                    path_imgidx="images_png.idx", shuffle=True, rand_crop=True,
                                                    rand_mirror=True))
    for handle in ("pad", "discard", "roll_over"):
        seed(7)
        collect("imageiter_" + handle, mx.image.ImageIter(4, (3, 12, 16), path_imgrec="images_png.rec",
                                                          path_imgidx="images_png.idx", last_batch_handle=handle),
                epochs=3)
    seed(8)
    collect("imageiter_part", mx.image.ImageIter(2, (3, 12, 16), path_imgrec="images_png.rec",
                                                 path_imgidx="images_png.idx", num_parts=2, part_index=1))
    seed(9)
    iterator = mx.image.ImageDetIter(2, (3, 12, 16), path_imgrec="det.rec", path_imgidx="det.idx")
    out["imagedetiter_label_shape"] = np.array(iterator.provide_label[0][1])
    collect("imagedetiter_plain", iterator)
    seed(20)
    collect("imagedetiter_augmented", mx.image.ImageDetIter(2, (3, 20, 20), path_imgrec="det.rec",
                                                            path_imgidx="det.idx", shuffle=True, rand_crop=1,
                                                            rand_pad=0.5, rand_mirror=True, mean=True, std=True,
                                                            brightness=0.2, inter_method=1))
    chw = mx.nd.array(out["augmenter0_0"].transpose(2, 0, 1))
    out["imrotate"] = mx.image.imrotate(chw, 30).asnumpy()
    out["imrotate_zoom_in"] = mx.image.imrotate(chw, 20, zoom_in=True).asnumpy()
    out["imrotate_zoom_out"] = mx.image.imrotate(chw, 20, zoom_out=True).asnumpy()
    seed(30)
    out["random_rotate_batch"] = mx.image.random_rotate(mx.nd.stack(chw, chw), (-40, 40)).asnumpy()
    np.savez_compressed("image.npz", **out)


if __name__ == "__main__":
    write_multipart()
    write_label_records()
    write_iterators()
    write_image()
    print("written")
