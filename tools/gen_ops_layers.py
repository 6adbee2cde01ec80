"""Reference cases for tests/test_ops_layers.py, made with real MXNet 1.9.1.

Run with the reference interpreter: ``~/mxref/bin/python tools/gen_ops_layers.py``.
Each case builds ``op(*variables, name='op', **attrs)``, binds it on the CPU with the
given inputs, runs ``forward(is_train=True)`` and ``backward(head gradients)`` and
stores inputs, outputs and input gradients in ``tests/data/ops_layers/<case>.npz``;
``index.json`` lists op, attributes, input names and gradient requests.
"""
import json
import os
import subprocess
import sys

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "ops_layers")
RANDOM = np.random.RandomState(20240601)


def normal(*shape, scale=1.0):
    return (RANDOM.randn(*shape) * scale).astype(np.float32)


def uniform(low, high, *shape):
    return RANDOM.uniform(low, high, shape).astype(np.float32)


def resolve(op):
    if op.startswith("_contrib_"):
        return getattr(mx.sym.contrib, op[len("_contrib_"):])
    return getattr(mx.sym, op)


CASES = []


def case(name, op, attrs, inputs, no_grad=(), backward=True, onednn=True):
    """``onednn=False``: MXNet's oneDNN kernel cannot run this case; it is computed in a
    child process with ``MXNET_MKLDNN_ENABLED=0`` (MXNet's own kernels)."""
    CASES.append(dict(name=name, op=op, attrs=attrs, inputs=inputs, no_grad=list(no_grad), backward=backward,
                      onednn=onednn))


def rois(count, batch, width, height, scale=1.0):
    boxes = []
    for _ in range(count):
        x1, x2 = sorted(RANDOM.uniform(-2, width / scale + 2, 2))
        y1, y2 = sorted(RANDOM.uniform(-2, height / scale + 2, 2))
        boxes.append([RANDOM.randint(batch), x1, y1, x2, y2])
    return np.array(boxes, np.float32)


def build():
    # normalisation
    case("GroupNorm_groups2", "GroupNorm", {"num_groups": "2", "output_mean_var": "True"},
         [("data", normal(2, 4, 3, 3)), ("gamma", normal(2)), ("beta", normal(2))])
    case("GroupNorm_default", "GroupNorm", {}, [("data", normal(3, 2, 5)), ("gamma", normal(1)), ("beta", normal(1))])
    case("InstanceNorm_5d", "InstanceNorm", {"eps": "0.1"},
         [("data", normal(2, 3, 2, 3, 2)), ("gamma", normal(3)), ("beta", normal(3))])
    case("LayerNorm_axis0", "LayerNorm", {"axis": "0"},
         [("data", normal(4, 3)), ("gamma", normal(4)), ("beta", normal(4))])
    case("L2Normalization_eps", "L2Normalization", {"mode": "instance", "eps": "0.5"}, [("data", normal(2, 3, 4))])
    case("LRN_wide", "LRN", {"nsize": "5", "alpha": "0.01", "beta": "0.6", "knorm": "1.5"},
         [("data", normal(2, 7, 3, 2))])
    # transposed convolution
    case("Deconvolution_3d", "Deconvolution",
         {"kernel": "(2, 3, 2)", "num_filter": "4", "num_group": "2", "stride": "(2, 1, 2)", "pad": "(1, 0, 0)",
          "no_bias": "False"},
         [("data", normal(1, 2, 3, 3, 2)), ("weight", normal(2, 2, 2, 3, 2)), ("bias", normal(4))])
    case("Deconvolution_dilate_adj", "Deconvolution",
         {"kernel": "(3, 3)", "num_filter": "3", "stride": "(3, 2)", "dilate": "(2, 1)", "pad": "(2, 1)",
          "adj": "(2, 1)"},
         [("data", normal(2, 2, 3, 4)), ("weight", normal(2, 3, 3, 3))])
    case("Deconvolution_target_1d", "Deconvolution",
         {"kernel": "(4,)", "num_filter": "2", "stride": "(3,)", "target_shape": "(12,)"},
         [("data", normal(1, 2, 5)), ("weight", normal(2, 2, 4))], onednn=False)
    # pooling with the 'full' convention (checks the data gradient rule)
    case("Pooling_full_pad_native", "Pooling",
         {"kernel": "(3, 3)", "pool_type": "avg", "stride": "(2, 2)", "pad": "(1, 1)", "pooling_convention": "full"},
         [("data", normal(1, 2, 6, 6))])
    case("Pooling_full_pad_onednn", "Pooling",
         {"kernel": "(3, 3)", "pool_type": "avg", "stride": "(2, 2)", "pad": "(1, 1)", "pooling_convention": "full"},
         [("data", normal(1, 2, 4, 5))])
    case("Pooling_full_exclude", "Pooling",
         {"kernel": "(3,)", "pool_type": "avg", "stride": "(2,)", "pad": "(1,)", "pooling_convention": "full",
          "count_include_pad": "False"},
         [("data", normal(2, 2, 4))])
    # activations / embedding
    case("LeakyReLU_prelu_shared", "LeakyReLU", {"act_type": "prelu"}, [("data", normal(2, 3, 4)), ("gamma", normal(1))])
    case("LeakyReLU_gelu", "LeakyReLU", {"act_type": "gelu"}, [("data", normal(3, 4, scale=2.0))])
    case("LeakyReLU_elu", "LeakyReLU", {"act_type": "elu", "slope": "0.7"}, [("data", normal(3, 4, scale=2.0))])
    case("Embedding_fp16", "Embedding", {"input_dim": "6", "output_dim": "3", "dtype": "float16"},
         [("data", np.array([[0, 5, 5], [2, 0, 1]], np.float32)), ("weight", normal(6, 3).astype(np.float16))],
         no_grad=["data"])
    case("SoftmaxActivation_3d", "SoftmaxActivation", {}, [("data", normal(2, 3, 4))])
    # vision
    case("UpSampling_nearest_concat", "UpSampling",
         {"scale": "2", "sample_type": "nearest", "num_args": "2"},
         [("a", normal(1, 2, 4, 2)), ("b", normal(1, 1, 2, 1))])
    case("UpSampling_bilinear_3", "UpSampling", {"scale": "3", "sample_type": "bilinear", "num_filter": "2",
                                                 "num_args": "1"},
         [("data", normal(1, 2, 2, 3)), ("weight", normal(2, 1, 5, 5))])
    case("UpSampling_bilinear_4", "UpSampling", {"scale": "4", "sample_type": "bilinear", "num_filter": "1",
                                                 "num_args": "1"},
         [("data", normal(2, 1, 2, 2)), ("weight", normal(1, 1, 8, 8))])
    case("Crop_center_hw", "Crop", {"num_args": "1", "h_w": "(2, 3)", "center_crop": "True"},
         [("data", normal(1, 2, 5, 6))])
    case("Pad_5d_edge", "Pad", {"mode": "edge", "pad_width": "(0, 0, 0, 0, 1, 0, 0, 2, 1, 1)"},
         [("data", normal(1, 2, 2, 3, 2))])
    case("Pad_5d_reflect", "Pad", {"mode": "reflect", "pad_width": "(0, 0, 0, 0, 1, 1, 2, 0, 0, 1)"},
         [("data", normal(1, 1, 3, 3, 2))])
    case("BilinearSampler_random", "BilinearSampler", {},
         [("data", normal(2, 3, 4, 5)), ("grid", uniform(-1.3, 1.3, 2, 2, 3, 4))])
    case("GridGenerator_affine", "GridGenerator", {"transform_type": "affine", "target_shape": "(3, 4)"},
         [("data", normal(2, 6))])
    case("GridGenerator_warp", "GridGenerator", {"transform_type": "warp"}, [("data", normal(2, 2, 3, 4))])
    case("SpatialTransformer_affine", "SpatialTransformer",
         {"target_shape": "(3, 4)", "transform_type": "affine", "sampler_type": "bilinear"},
         [("data", normal(2, 2, 5, 6)),
          ("loc", (np.array([[0.9, 0.1, 0.05, -0.1, 1.1, 0.0]] * 2) + normal(2, 6, scale=0.1)).astype(np.float32))])
    case("ROIPooling_scaled", "ROIPooling", {"pooled_size": "(2, 3)", "spatial_scale": "0.5"},
         [("data", normal(2, 3, 6, 7)), ("rois", rois(5, 2, 7, 6, 0.5))])
    case("ROIAlign_adaptive", "_contrib_ROIAlign", {"pooled_size": "(2, 2)", "spatial_scale": "0.5"},
         [("data", normal(2, 3, 6, 7)), ("rois", rois(4, 2, 7, 6, 0.5))])
    case("ROIAlign_ratio2", "_contrib_ROIAlign", {"pooled_size": "(3, 2)", "spatial_scale": "1.0",
                                                  "sample_ratio": "2"},
         [("data", normal(1, 2, 5, 5)), ("rois", rois(3, 1, 5, 5))])
    case("ROIAlign_aligned", "_contrib_ROIAlign", {"pooled_size": "(2, 2)", "spatial_scale": "1.0",
                                                   "aligned": "True"},
         [("data", normal(1, 2, 5, 5)), ("rois", rois(3, 1, 5, 5))])
    case("ROIAlign_position_sensitive", "_contrib_ROIAlign",
         {"pooled_size": "(2, 2)", "spatial_scale": "1.0", "sample_ratio": "2", "position_sensitive": "True"},
         [("data", normal(1, 8, 5, 5)), ("rois", rois(3, 1, 5, 5))])
    case("MultiBoxPrior_sizes_ratios", "_contrib_MultiBoxPrior",
         {"sizes": "(0.5, 0.25)", "ratios": "(1, 2, 0.5)", "clip": "True"}, [("data", normal(1, 2, 3, 4))],
         backward=False)
    case("MultiBoxPrior_steps", "_contrib_MultiBoxPrior",
         {"sizes": "(0.3,)", "steps": "(0.2, 0.25)", "offsets": "(0.25, 0.75)"}, [("data", normal(2, 1, 2, 3))],
         backward=False)
    anchors = mx.nd.contrib.MultiBoxPrior(mx.nd.zeros((1, 1, 4, 4)), sizes=(0.4, 0.2), ratios=(1, 2)).asnumpy()
    count = anchors.shape[1]
    labels = np.full((2, 4, 5), -1, np.float32)
    labels[0, 0] = [1, 0.1, 0.1, 0.45, 0.5]
    labels[0, 1] = [0, 0.5, 0.55, 0.95, 0.9]
    labels[1, 0] = [2, 0.3, 0.2, 0.7, 0.6]
    cls_pred = normal(2, 4, count)
    case("MultiBoxTarget_all_negatives", "_contrib_MultiBoxTarget", {"overlap_threshold": "0.4"},
         [("anchor", anchors), ("label", labels), ("cls_pred", cls_pred)], backward=False)
    case("MultiBoxTarget_mining", "_contrib_MultiBoxTarget",
         {"negative_mining_ratio": "3", "negative_mining_thresh": "0.5", "variances": "(0.1, 0.1, 0.2, 0.2)"},
         [("anchor", anchors), ("label", labels), ("cls_pred", cls_pred)], backward=False)
    scores = RANDOM.rand(2, 4, count).astype(np.float32)
    probabilities = scores / scores.sum(axis=1, keepdims=True)
    offsets = normal(2, count * 4, scale=0.3)
    case("MultiBoxDetection_default", "_contrib_MultiBoxDetection", {},
         [("cls_prob", probabilities), ("loc_pred", offsets), ("anchor", anchors)], backward=False)
    case("MultiBoxDetection_topk_force", "_contrib_MultiBoxDetection",
         {"nms_topk": "10", "force_suppress": "True", "threshold": "0.2", "nms_threshold": "0.3", "clip": "False"},
         [("cls_prob", probabilities), ("loc_pred", offsets), ("anchor", anchors)], backward=False)
    # recurrent
    for mode, gates in (("gru", 3), ("lstm", 4)):
        inputs = [("data", normal(3, 2, 3))]
        size = 0
        directions, hidden, layers = 2, 2, 2
        for layer in range(layers):
            width = 3 if layer == 0 else directions * hidden
            size += directions * (gates * hidden * (width + hidden) + 2 * gates * hidden)
        inputs.append(("parameters", normal(size, scale=0.5)))
        inputs.append(("state", normal(layers * directions, 2, hidden)))
        if mode == "lstm":
            inputs.append(("state_cell", normal(layers * directions, 2, hidden)))
        case(f"RNN_{mode}_stack", "RNN",
             {"state_size": str(hidden), "num_layers": str(layers), "mode": mode, "bidirectional": "True",
              "state_outputs": "True"}, inputs)


def run(spec):
    symbol = resolve(spec["op"])(*[mx.sym.Variable(n) for n, _ in spec["inputs"]], name="op", **spec["attrs"])
    names = symbol.list_arguments()
    values = dict(spec["inputs"])
    assert names == [n for n, _ in spec["inputs"]], (names, spec["name"])
    grad_req = {n: ("null" if (n in spec["no_grad"] or not spec["backward"]) else "write") for n in names}
    executor = symbol.simple_bind(mx.cpu(), grad_req=grad_req, type_dict={n: values[n].dtype for n in names},
                                  **{n: values[n].shape for n in names})
    for n in names:
        executor.arg_dict[n][:] = values[n]
    arrays = {f"arg:{n}": values[n] for n in names}
    outputs = executor.forward(is_train=spec["backward"])
    for i, output in enumerate(outputs):
        arrays[f"out:{i}"] = output.asnumpy()
    if spec["backward"]:
        heads = [normal(*o.shape).astype(o.dtype) for o in outputs]
        executor.backward([mx.nd.array(h, dtype=h.dtype) for h in heads])
        for i, head in enumerate(heads):
            arrays[f"head:{i}"] = head
        for n in names:
            if grad_req[n] == "write":
                arrays[f"grad:{n}"] = executor.grad_dict[n].asnumpy()
    np.savez(os.path.join(OUT, spec["name"] + ".npz"), **arrays)
    return dict(name=spec["name"], op=spec["op"], attrs=spec["attrs"], inputs=names, grad_req=grad_req,
                backward=spec["backward"], outputs=symbol.list_outputs(), onednn=spec["onednn"])


def main():
    os.makedirs(OUT, exist_ok=True)
    build()
    if "--native" in sys.argv:
        index = [run(spec) for spec in CASES if not spec["onednn"]]
        print(json.dumps(index))
        return
    index = [run(spec) for spec in CASES if spec["onednn"]]
    child = subprocess.run([sys.executable, __file__, "--native"], env=dict(os.environ, MXNET_MKLDNN_ENABLED="0"),
                           check=True, capture_output=True, text=True)
    native = {entry["name"]: entry for entry in json.loads(child.stdout.strip().splitlines()[-1])}
    index = [native.get(spec["name"]) or next(e for e in index if e["name"] == spec["name"]) for spec in CASES]
    with open(os.path.join(OUT, "index.json"), "w") as handle:
        json.dump({"mxnet_version": mx.__version__, "generator": "tools/gen_ops_layers.py", "cases": index},
                  handle, indent=1)
    print(f"wrote {len(index)} cases to {OUT}")


if __name__ == "__main__":
    main()
