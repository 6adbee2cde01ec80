"""The parameters of the RecordIO image iterators (``ImageRecordIter`` and relatives,
``ImageDetRecordIter``), declared with the ``Attr`` schema operators use (:mod:`mxtorch.schema`),
with MXNet 1.9.1's names and defaults; :mod:`mxtorch.io.native` reads them."""
from __future__ import annotations

from ..base import MXNetError, parse_tuple
from ..schema import Attr, Bool, DtypeOf, Float, FloatTuple, Int, IntTuple, nonempty, OneOf, optional, Path, Text
from .native import NonNegativeInt, PositiveInt

# ------------------------------------------------------------------------------------------------
# Arguments, declared with the schema operators use (mxtorch.schema)
# ------------------------------------------------------------------------------------------------
def _image_shape(value, name):
    """(channels, height, width) of positive sizes, with 1, 3 or 4 channels."""
    shape = parse_tuple(value, name)
    if len(shape) != 3 or any(dim is None or dim < 1 for dim in shape):
        raise MXNetError(f"expected (channels, height, width) of positive sizes, got {value!r}")
    if shape[0] not in (1, 3, 4):
        raise MXNetError(f"images have 1, 3 or 4 channels, got {shape[0]} in {value!r}")
    return tuple(int(dim) for dim in shape)


class _RecordArguments:
    """The parameters every image record iterator has (MXNet's names and defaults)."""
    path_imglist = Attr(Path, default="")
    path_imgrec = Attr(Path, default="")
    aug_seq = Attr(Text, default="aug_default")
    label_width = Attr(PositiveInt, default=1)
    data_shape = Attr(_image_shape, required=True)
    preprocess_threads = Attr(PositiveInt, default=4)
    verbose = Attr(Bool, default=True)
    num_parts = Attr(PositiveInt, default=1)
    part_index = Attr(NonNegativeInt, default=0)
    shuffle_chunk_size = Attr(NonNegativeInt, default=0)
    shuffle_chunk_seed = Attr(Int, default=0)
    shuffle = Attr(Bool, default=False)
    seed = Attr(Int, default=0)
    batch_size = Attr(PositiveInt, required=True)
    round_batch = Attr(Bool, default=True)
    dtype = Attr(DtypeOf("float32", "uint8", "int8"), default=None)
    resize = Attr(Int, default=-1)
    inter_method = Attr(OneOf(Int, (0, 1, 2, 3, 4, 9, 10)), default=1)


class _AugmentArguments(_RecordArguments):
    """ImageRecordIter's reading and augmentation parameters (also the raw-pixel iterators')."""
    path_imgidx = Attr(Path, default="")
    device_id = Attr(Int, default=0)
    seed_aug = Attr(optional(Int, empty=True), default=None)
    rand_crop = Attr(Bool, default=False)
    random_resized_crop = Attr(Bool, default=False)
    max_rotate_angle = Attr(Int, default=0)
    max_aspect_ratio = Attr(Float, default=0.0)
    min_aspect_ratio = Attr(optional(Float, empty=True), default=None)
    max_shear_ratio = Attr(Float, default=0.0)
    max_crop_size = Attr(Int, default=-1)
    min_crop_size = Attr(Int, default=-1)
    max_random_scale = Attr(Float, default=1.0)
    min_random_scale = Attr(Float, default=1.0)
    max_random_area = Attr(Float, default=1.0)
    min_random_area = Attr(Float, default=1.0)
    max_img_size = Attr(Float, default=1e10)
    min_img_size = Attr(Float, default=0.0)
    brightness = Attr(Float, default=0.0)
    contrast = Attr(Float, default=0.0)
    saturation = Attr(Float, default=0.0)
    pca_noise = Attr(Float, default=0.0)
    random_h = Attr(Int, default=0)
    random_s = Attr(Int, default=0)
    random_l = Attr(Int, default=0)
    rotate = Attr(Int, default=-1)
    fill_value = Attr(Int, default=255)
    pad = Attr(NonNegativeInt, default=0)


class ImageRecordArguments(_AugmentArguments):
    """ImageRecordIter's parameters: augmentation plus normalisation."""
    mirror = Attr(Bool, default=False)
    rand_mirror = Attr(Bool, default=False)
    mean_img = Attr(Path, default="")
    mean_r = Attr(Float, default=0.0)
    mean_g = Attr(Float, default=0.0)
    mean_b = Attr(Float, default=0.0)
    mean_a = Attr(Float, default=0.0)
    std_r = Attr(Float, default=1.0)
    std_g = Attr(Float, default=1.0)
    std_b = Attr(Float, default=1.0)
    std_a = Attr(Float, default=1.0)
    scale = Attr(Float, default=1.0)
    max_random_contrast = Attr(Float, default=0.0)
    max_random_illumination = Attr(Float, default=0.0)


class RawImageRecordArguments(_AugmentArguments):
    """ImageRecordUInt8Iter / ImageRecordInt8Iter: no normalisation parameters."""


class DetRecordArguments(_RecordArguments):
    """ImageDetRecordIter's parameters."""
    path_imgrec = Attr(Path, default="./data/imgrec.rec")
    path_imgidx = Attr(Path, default="")
    aug_seq = Attr(Text, default="det_aug_default")
    label_width = Attr(Int, default=-1)
    label_pad_width = Attr(NonNegativeInt, default=0)
    label_pad_value = Attr(Float, default=-1.0)
    rand_crop_prob = Attr(Float, default=0.0)
    min_crop_scales = Attr(nonempty(FloatTuple), default=(0.0,))
    max_crop_scales = Attr(nonempty(FloatTuple), default=(1.0,))
    min_crop_aspect_ratios = Attr(nonempty(FloatTuple), default=(1.0,))
    max_crop_aspect_ratios = Attr(nonempty(FloatTuple), default=(1.0,))
    min_crop_overlaps = Attr(nonempty(FloatTuple), default=(0.0,))
    max_crop_overlaps = Attr(nonempty(FloatTuple), default=(1.0,))
    min_crop_sample_coverages = Attr(nonempty(FloatTuple), default=(0.0,))
    max_crop_sample_coverages = Attr(nonempty(FloatTuple), default=(1.0,))
    min_crop_object_coverages = Attr(nonempty(FloatTuple), default=(0.0,))
    max_crop_object_coverages = Attr(nonempty(FloatTuple), default=(1.0,))
    num_crop_sampler = Attr(PositiveInt, default=1)
    crop_emit_mode = Attr(Text, default="center")
    emit_overlap_thresh = Attr(Float, default=0.3)
    max_crop_trials = Attr(IntTuple, default=(25,))
    rand_pad_prob = Attr(Float, default=0.0)
    max_pad_scale = Attr(Float, default=1.0)
    max_random_hue = Attr(Int, default=0)
    random_hue_prob = Attr(Float, default=0.0)
    max_random_saturation = Attr(Int, default=0)
    random_saturation_prob = Attr(Float, default=0.0)
    max_random_illumination = Attr(Int, default=0)
    random_illumination_prob = Attr(Float, default=0.0)
    max_random_contrast = Attr(Float, default=0.0)
    random_contrast_prob = Attr(Float, default=0.0)
    rand_mirror_prob = Attr(Float, default=0.0)
    fill_value = Attr(Int, default=127)
    resize_mode = Attr(Text, default="force")
    mean_img = Attr(Path, default="")
    mean_r = Attr(Float, default=0.0)
    mean_g = Attr(Float, default=0.0)
    mean_b = Attr(Float, default=0.0)
    mean_a = Attr(Float, default=0.0)
    std_r = Attr(Float, default=0.0)
    std_g = Attr(Float, default=0.0)
    std_b = Attr(Float, default=0.0)
    std_a = Attr(Float, default=0.0)
    scale = Attr(Float, default=1.0)
