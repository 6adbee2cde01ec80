"""Write tests/data/gluon_image_refs.npz: MXNet 1.9.1's outputs of mx.nd.image operators and
gluon.data.vision.transforms on a fixed small image.  Run with the reference venv from outside
the repository root:

    cd /tmp && /root/mxref/bin/python /path/to/tools/gen_gluon_image_refs.py /path/to/tests/data/gluon_image_refs.npz
"""
import sys

import numpy as np
import mxnet as mx
from mxnet.gluon.data.vision import transforms as T

image = np.random.RandomState(0).uniform(0, 255, (6, 7, 3)).astype(np.uint8)
x = mx.nd.array(image, dtype="uint8")
xf = x.astype("float32")
chw = mx.nd.image.to_tensor(x)
refs = {
    "image": image,
    "to_tensor": chw.asnumpy(),
    "normalize": mx.nd.image.normalize(chw, mean=(0.1, 0.2, 0.3), std=(0.5, 0.25, 2.0)).asnumpy(),
    "resize_4x5": mx.nd.image.resize(x, (4, 5)).asnumpy(),
    "resize_keep_4": mx.nd.image.resize(x, 4, keep_ratio=True).asnumpy(),
    "resize_bicubic": mx.nd.image.resize(xf, (9, 8), interp=2).asnumpy(),
    "crop": mx.nd.image.crop(x, 1, 2, 3, 4).asnumpy(),
    "flip_lr": mx.nd.image.flip_left_right(x).asnumpy(),
    "flip_tb": mx.nd.image.flip_top_bottom(x).asnumpy(),
    "lighting_u8": mx.nd.image.adjust_lighting(x, alpha=(0.1, 0.2, 0.3)).asnumpy(),
    "lighting_f32": mx.nd.image.adjust_lighting(xf, alpha=(-0.2, 0.05, 0.3)).asnumpy(),
    "brightness_u8": mx.nd.image.random_brightness(x, min_factor=1.7, max_factor=1.7).asnumpy(),
    "contrast_f32": mx.nd.image.random_contrast(xf, min_factor=0.4, max_factor=0.4).asnumpy(),
    "t_resize_center": T.Compose([T.Resize(10), T.CenterCrop((5, 4))])(x).asnumpy(),
    "t_cropresize": T.CropResize(1, 1, 4, 4, size=(3, 3), interpolation=1)(x).asnumpy(),
    "t_totensor_norm": T.Compose([T.ToTensor(), T.Normalize(0.5, 0.25)])(x).asnumpy(),
}
np.savez_compressed(sys.argv[1], **refs)
print(sorted(refs))
