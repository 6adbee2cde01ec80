"""``mxtorch convert PREFIX EPOCH --to torch|onnx|torchscript -o FILE [--data-shapes ...]``."""
from __future__ import annotations

from ..base import MXNetError
from .converters import convert_checkpoint

__all__ = ["configure", "convert_command", "parse_data_shapes"]


def configure(parser):
    parser.add_argument("prefix", metavar="PREFIX", help="checkpoint prefix: PREFIX-symbol.json, PREFIX-EPOCH.params")
    parser.add_argument("epoch", metavar="EPOCH", type=int, help="epoch number of PREFIX-EPOCH.params")
    parser.add_argument("--to", required=True, choices=("torch", "onnx", "torchscript"),
                        help="torch: a torch.fx GraphModule saved with torch.save; torchscript: torch.jit.save; "
                             "onnx: an ONNX model (needs the onnx extra)")
    parser.add_argument("-o", "--output", required=True, metavar="FILE", help="file to write")
    parser.add_argument("--data-shapes", default=None, metavar="NAME:SHAPE,...",
                        help="input names and shapes, e.g. data:1x3x224x224,im_info:1x3 (default: the shapes "
                             "recorded in the symbol's variables)")


def parse_data_shapes(text):
    """``'data:1x3x224x224,im_info:1x3'`` -> ``[('data', (1, 3, 224, 224)), ('im_info', (1, 3))]``.

    Raises MXNetError naming the entry that is not ``NAME:DxDx...``."""
    shapes = []
    for entry in filter(None, (part.strip() for part in text.split(","))):
        name, sep, dims = entry.partition(":")
        name = name.strip()
        try:
            shape = tuple(int(d) for d in dims.lower().split("x"))
        except ValueError:
            shape = ()
        if not sep or not name or not shape:
            raise MXNetError(f"--data-shapes: expected NAME:DxDx... entries (positive integer dimensions "
                             f"joined by 'x') such as data:1x3x224x224, got {entry!r}")
        bad = [(axis, d) for axis, d in enumerate(shape) if d <= 0]
        if bad:
            axis, d = bad[0]
            raise MXNetError(f"--data-shapes: every dimension must be a positive integer, got {d} for "
                             f"dimension {axis} of {name!r} in {entry!r}")
        shapes.append((name, shape))
    if not shapes:
        raise MXNetError(f"--data-shapes: no shapes in {text!r}")
    return shapes


def convert_command(args):
    shapes = parse_data_shapes(args.data_shapes) if args.data_shapes else None
    path = convert_checkpoint(args.prefix, args.epoch, args.to, args.output, shapes)
    print(f"wrote {path}")
