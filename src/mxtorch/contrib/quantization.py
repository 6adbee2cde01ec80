"""``mxnet.contrib.quantization``: int8 graphs from float32 models, as MXNet 1.9.1 builds them.

``quantize_model(sym, arg_params, aux_params, calib_mode='none' | 'naive', ...)`` rewrites a
float32 Symbol into MXNet's quantized graph and quantizes its parameters:

- every operator that declares an int8 counterpart (``quantized_operator`` in ``mxtorch.ops``:
  FullyConnected, Convolution, relu Activation, Pooling, Flatten, Concat, elemwise_add,
  Embedding) becomes ``quantized_<name>``; float inputs reach it through a ``_contrib_quantize_v2``
  node ``<input>_quantize``, parameters become the variables ``<param>_quantize``,
  ``<param>_quantize_min`` and ``<param>_quantize_max`` (int8 values, float32 range);
- an int32 result (FC, convolution, add) is followed by ``_contrib_requantize`` ``requantize_<name>``;
- a float operator reading an int8 value gets a ``_contrib_dequantize`` ``<name>_dequantize``.

With ``calib_mode='naive'`` the float model runs on ``calib_data`` and the smallest and largest
value reaching each ``quantize_v2`` node become its ``min_calib_range`` / ``max_calib_range``;
with ``'entropy'`` the values are gathered in 8001-bin histograms (``combine_histogram``) and the
range is ``+-`` the threshold ``contrib.calibrate_entropy`` picks (255 levels; ``(0, threshold)``
for non-negative values with uint8 / auto).  ``requantize`` nodes keep finding their range at
run time, as in MXNet 1.9.1's (non-oneDNN) ``quantize_model``.
"""
from __future__ import annotations

import json
import logging
import os
import warnings

import numpy as np

from ..base import (MXNetError, NDArrayHandle, SymbolHandle, c_array, c_str, c_str_array, mx_uint,  # noqa: F401
                    py_str)
from ..context import Context, cpu  # noqa: F401
from ..io import DataBatch, DataDesc, DataIter  # noqa: F401
from ..module import Module
from ..ndarray import NDArray  # noqa: F401
from ..ndarray import load as nd_load, save as nd_save  # noqa: F401
from .. import ndarray as nd
from .. import symbol
from ..gluon import SymbolBlock
from ..ops import registry
from ..symbol import Group
from ..symbol import Symbol, load as sym_load, load_json  # noqa: F401
from ..symbol.subgraph_backends import list_backends

__all__ = ["quantize_graph", "calib_graph", "quantize_model", "quantize_model_mkldnn", "quantize_net",
           "quantize_net_v2", "combine_histogram", "_quantize_symbol", "_quantize_params", "_calibrate_quantized_sym",
           "_get_optimal_threshold", "_get_optimal_thresholds", "_smooth_distribution", "_LayerOutputCollector",
           "_LayerOutputMinMaxCollector", "_LayerHistogramCollector", "_collect_layer_statistics"]


def check_call(ret):
    """MXNet's C-API return check: MXNetError for a non-zero return code (mxtorch calls no C
    library; this keeps the name for code that imported it from here)."""
    if ret != 0:
        raise MXNetError(f"check_call: a call returned {ret!r}")


def _node_operator(node):
    """The operator of a JSON node, with its subgraphs (the fused oneDNN nodes)."""
    attrs = {k: v for k, v in (node.get("attrs") or {}).items() if not k.startswith("__")}
    op = registry.get_operator(node["op"])(attrs)
    if node.get("subgraphs"):
        op.subgraphs = [load_json(json.dumps(dict(graph, attrs=graph.get("attrs", {}))))
                        for graph in node["subgraphs"]]
    return op


class _GraphRewriter:
    """Builds the quantized node list from a float32 graph (MXNet's JSON node layout)."""

    def __init__(self, graph, params, excluded_names, excluded_ops, quantized_dtype, granularity="tensor-wise"):
        self.old = graph["nodes"]
        self.granularity = granularity
        self.params = params
        self.excluded_names = set(excluded_names or ())
        self.excluded_ops = set(excluded_ops or ())
        self.quantized_dtype = quantized_dtype
        self.nodes = []
        self.float_of = {}      # old (node, output) -> new (node, output) holding the float value
        self.int8_of = {}       # old (node, output) -> new node whose outputs 0..2 are int8, min, max
        self.calibrated = {}    # new node id -> old (node, output) whose range calibrates it
        self.requantize_of = {}  # requantize node name -> float output name of the old node

    def add(self, op, name, attrs=None, inputs=(), subgraphs=None):
        node = {"op": op, "name": name, "inputs": [[n, i, 0] for n, i in inputs]}
        if attrs:
            node["attrs"] = dict(attrs)
        if subgraphs:
            node["subgraphs"] = subgraphs
        self.nodes.append(node)
        return len(self.nodes) - 1

    def float_entry(self, entry):
        if entry not in self.float_of:
            source = self.int8_of[entry]
            name = f"{self.old[entry[0]]['name']}_dequantize"
            self.float_of[entry] = (self.add("_contrib_dequantize", name, None,
                                             [(source, 0), (source, 1), (source, 2)]), 0)
        return self.float_of[entry]

    def int8_entry(self, entry):
        if entry not in self.int8_of:
            name = f"{self.old[entry[0]]['name']}_quantize"
            node = self.add("_contrib_quantize_v2", name, {"out_type": self.quantized_dtype},
                            [self.float_of[entry]])
            self.int8_of[entry] = node
            self.calibrated[node] = entry
        return self.int8_of[entry]

    def quantizable(self, node, op):
        return (op.quantized_operator() is not None and node["name"] not in self.excluded_names
                and node["op"] not in self.excluded_ops)

    def requantized(self):
        """``{requantize node name: the float output it stands for}`` (MXNet calibrates a
        requantize with the float output of the operator before it)."""
        return dict(self.requantize_of)

    def rewrite(self, heads):
        for position, node in enumerate(self.old):
            entry = (position, 0)
            if node["op"] == "null":
                self.float_of[entry] = (self.add("null", node["name"], node.get("attrs")), 0)
                continue
            op = _node_operator(node)
            if not self.quantizable(node, op):
                inputs = [self.float_entry((e[0], e[1])) for e in node["inputs"]]
                new = self.add(node["op"], node["name"], node.get("attrs"), inputs, node.get("subgraphs"))
                for index in range(op.num_outputs()):
                    self.float_of[(position, index)] = (new, index)
                continue
            self.quantize_node(position, node, op)
        return [self.float_entry((e[0], e[1])) for e in heads]

    def quantize_node(self, position, node, op):
        quantized = op.quantized_input_positions(self.granularity)
        values, ranges = [], []
        for index, raw in enumerate(node["inputs"]):
            entry = (raw[0], raw[1])
            source = self.old[raw[0]]
            if index not in quantized:
                values.append(self.float_entry(entry))
            elif source["op"] == "null" and source["name"] in self.params:
                name = f"{source['name']}_quantize"
                values.append((self.add("null", name), 0))
                ranges += [(self.add("null", f"{name}_min"), 0), (self.add("null", f"{name}_max"), 0)]
            else:
                int8 = self.int8_entry(entry)
                values.append((int8, 0))
                ranges += [(int8, 1), (int8, 2)]
        quantized_name = op.quantized_operator()
        attrs = op.quantized_attributes(dict(node.get("attrs") or {}), self.granularity)
        new = self.add(quantized_name, f"quantized_{node['name']}", attrs, values + ranges, node.get("subgraphs"))
        if registry.get_operator(quantized_name).int32_output:
            name = f"requantize_{node['name']}"
            new = self.add("_contrib_requantize", name, {"out_type": self.quantized_dtype},
                           [(new, 0), (new, 1), (new, 2)])
            self.requantize_of[name] = _output_name(node, 0)
        self.int8_of[(position, 0)] = new


def _quantize_params(qsym, params, th_dict=None):
    """The parameters of ``qsym`` (MXNet's ``_quantize_params``): for each argument
    ``<p>_quantize`` of a weight or bias ``p`` in ``params``, its int8 values over its own
    largest magnitude and ``<p>_quantize_min`` / ``_max``; the arguments found in ``params`` as
    they are; an argument ``<layer>_min`` / ``<layer>_max`` whose layer is in ``th_dict``
    (``{layer: (min, max)}``) as that bound, a ``(1,)`` array."""
    th_dict = th_dict or {}
    result = {}
    for name in qsym.list_arguments():
        base = name[:-len("_quantize")] if name.endswith("_quantize") else None
        if base is not None and base in params:
            original = params[base]
            values, low, high = nd.contrib.quantize(original, nd.min(original).reshape((1,)),
                                                    nd.max(original).reshape((1,)), out_type="int8")
            result[name], result[f"{name}_min"], result[f"{name}_max"] = values, low, high
        elif name in params:
            result[name] = params[name]
        elif name.endswith("_min") and name[:-len("_min")] in th_dict:
            result[name] = nd.array([th_dict[name[:-len("_min")]][0]])
        elif name.endswith("_max") and name[:-len("_max")] in th_dict:
            result[name] = nd.array([th_dict[name[:-len("_max")]][1]])
    return result


def _rewrite(sym, offline_params, excluded_symbols, excluded_operators, quantized_dtype, quantize_granularity):
    graph = json.loads(sym.tojson())
    params = {name: None for name in (offline_params or ())}
    rewriter = _GraphRewriter(graph, params, excluded_symbols, excluded_operators, quantized_dtype,
                              quantize_granularity)
    heads = rewriter.rewrite([tuple(h[:2]) for h in graph["heads"]])
    records = {"nodes": rewriter.nodes, "arg_nodes": [i for i, n in enumerate(rewriter.nodes) if n["op"] == "null"],
               "heads": [[n, i, 0] for n, i in heads], "attrs": graph.get("attrs", {})}
    qsym = load_json(json.dumps(records))
    layers = []
    for new, (node, output) in rewriter.calibrated.items():
        old = graph["nodes"][node]
        layers.append(old["name"] if old["op"] == "null" else _output_name(old, output))
    layers += list(rewriter.requantized().values())
    return qsym, list(dict.fromkeys(layers)), rewriter


def _quantize_symbol(sym, ctx, excluded_symbols=None, excluded_operators=None, offline_params=None,
                     quantized_dtype="int8", quantize_mode="smart", quantize_granularity="tensor-wise"):
    """MXNet's ``_quantize_symbol``: the quantized graph of ``sym`` (module docstring; the
    parameters named in ``offline_params`` become ``<p>_quantize`` variables) and the names of
    the float outputs that calibrate it (``calib_layers``: the inputs of its ``quantize_v2`` nodes
    and the outputs its ``requantize`` nodes stand for, as ``'data'``, ``'conv_output'``)."""
    _check_options("none", quantized_dtype, quantize_mode, quantize_granularity)
    qsym, layers, _ = _rewrite(sym, offline_params, excluded_symbols, excluded_operators, quantized_dtype,
                               quantize_granularity)
    return qsym, layers


def _node_output_name(nodes, entry):
    node = nodes[entry[0]]
    if node["op"] == "null":
        return node["name"]
    return _output_name(node, entry[1])


def _calibrate_quantized_sym(qsym, th_dict):
    """``qsym`` with ``min_calib_range`` / ``max_calib_range`` (six decimals, as MXNet's C++
    writes a float) on each ``quantize_v2`` node whose input, and each ``requantize`` node
    whose operator's float output (``quantized_conv`` -> ``conv_output``), is a key of
    ``th_dict`` (``{layer: (min, max)}``)."""
    if not th_dict:
        return qsym
    graph = json.loads(qsym.tojson())
    nodes = graph["nodes"]
    for node in nodes:
        layer = None
        if node["op"] == "_contrib_quantize_v2":
            layer = _node_output_name(nodes, node["inputs"][0])
        elif node["op"] == "_contrib_requantize":
            source = nodes[node["inputs"][0][0]]
            name = source["name"]
            if name.startswith("quantized_"):
                layer = f"{name[len('quantized_'):]}_output"
        if layer is not None and layer in th_dict:
            low, high = th_dict[layer]
            node.setdefault("attrs", {}).update({"min_calib_range": "%f" % float(low),
                                                  "max_calib_range": "%f" % float(high)})
    return load_json(json.dumps(graph))


def _as_numpy(arr):
    """A monitored value (an NDArray, or a handle of one) as a numpy array."""
    if isinstance(arr, NDArray):
        return arr.asnumpy()
    return np.asarray(arr)


class _LayerOutputCollector:
    """MXNet's base of the calibration collectors: ``collect(name, arr)`` is called with each
    monitored float output; outputs not in ``include_layer`` (when given) are skipped."""

    def __init__(self, quantized_dtype="int8", include_layer=None, logger=None):
        self.quantized_dtype = quantized_dtype
        self.include_layer = include_layer
        self.logger = logger
        self.min_max_dict = {}

    def _wanted(self, name):
        return self.include_layer is None or name in self.include_layer

    def _values(self, name, arr):
        """``(name, values as NumPy, min, max)`` of a collected output, or None for a layer
        not in ``include_layer`` (a bytes name is decoded, as MXNet's callback passes it)."""
        name = py_str(name) if isinstance(name, bytes) else name
        if not self._wanted(name):
            return None
        array = _as_numpy(arr)
        return name, array, float(array.min()), float(array.max())

    def collect(self, name, arr):
        raise NotImplementedError

    def post_collect(self):
        return self.min_max_dict


class _LayerOutputMinMaxCollector(_LayerOutputCollector):
    """Naive calibration: ``min_max_dict[name]`` is the smallest and largest value seen."""

    def collect(self, name, arr):
        collected = self._values(name, arr)
        if collected is None:
            return
        name, array, low, high = collected
        if name in self.min_max_dict:
            old = self.min_max_dict[name]
            self.min_max_dict[name] = (min(old[0], low), max(old[1], high))
        else:
            self.min_max_dict[name] = (low, high)
        if self.logger:
            self.logger.debug("Collecting layer %s min_range=%f, max_range=%f", name, low, high)


class _LayerHistogramCollector(_LayerOutputCollector):
    """Entropy calibration: ``hist_dict[name]`` is ``(counts, edges, min, max, threshold)`` of the
    values seen, in ``num_bins`` bins over ``[-threshold, threshold]`` (grown by
    :func:`combine_histogram`)."""

    def __init__(self, quantized_dtype="int8", num_bins=None, include_layer=None, logger=None):
        super().__init__(quantized_dtype, include_layer, logger)
        self.num_bins = num_bins or _HISTOGRAM_BINS
        self.hist_dict = {}

    @staticmethod
    def combine_histogram(old_hist, arr, new_min, new_max, new_th):
        return combine_histogram(old_hist, arr, new_min, new_max, new_th)

    def collect(self, name, arr):
        collected = self._values(name, arr)
        if collected is None:
            return
        name, array, low, high = collected
        limit = max(abs(low), abs(high))
        if name in self.hist_dict:
            self.hist_dict[name] = combine_histogram(self.hist_dict[name], array, low, high, limit)
        else:
            counts, edges = np.histogram(array, bins=self.num_bins, range=(-limit, limit))
            self.hist_dict[name] = (counts, edges, low, high, limit)

    def post_collect(self):
        return _get_optimal_thresholds(self.hist_dict, self.quantized_dtype, logger=self.logger)


def _smooth_distribution(p, eps=0.0001):
    """MXNet's ``_smooth_distribution``: ``eps`` moved onto every zero bin of the histogram ``p``
    from its non-zero bins (each loses ``eps * zeros / non-zeros``), as float32.  ValueError for
    an all-zero ``p``."""
    is_zeros = (p == 0).astype(np.float32)
    is_nonzeros = (p != 0).astype(np.float32)
    n_zeros = is_zeros.sum()
    n_nonzeros = p.size - n_zeros
    if not n_nonzeros:
        raise ValueError("The discrete probability distribution is malformed. All entries are 0.")
    eps1 = eps * float(n_zeros) / float(n_nonzeros)
    if eps1 >= 1.0:
        raise ValueError(f"n_zeros={n_zeros}, n_nonzeros={n_nonzeros}, eps1={eps1}: eps is too large")
    hist = p.astype(np.float32)
    hist += eps * is_zeros + (-eps1) * is_nonzeros
    if (hist <= 0).sum():
        raise ValueError("the smoothed distribution has non-positive entries")
    return hist


def _get_optimal_threshold(hist_data, quantized_dtype="auto", num_quantized_bins=255):
    """MXNet's ``_get_optimal_threshold``: ``(min, max, threshold, divergence)`` of one layer's
    histogram ``(counts, edges, min, max, threshold)`` by ``contrib.calibrate_entropy``; a
    non-negative layer quantized to uint8 / auto uses ``2 * num_quantized_bins + 1`` bins."""
    counts, edges, low, high, _ = hist_data
    if len(counts) % 2 != 1:
        raise MXNetError(f"_get_optimal_threshold: the histogram needs an odd number of bins, got {len(counts)}")
    if low >= 0 and quantized_dtype in ("auto", "uint8"):
        num_quantized_bins = num_quantized_bins * 2 + 1
    threshold, divergence = nd.contrib.calibrate_entropy(nd.array(np.asarray(counts, dtype=np.float32)),
                                                         nd.array(np.asarray(edges, dtype=np.float32)),
                                                         num_quantized_bins=num_quantized_bins)
    return low, high, threshold.asnumpy(), divergence.asnumpy()


def _get_optimal_thresholds(hist_dict, quantized_dtype, num_quantized_bins=255, logger=None):
    """``{layer: (min, max)}`` from ``hist_dict`` (MXNet's ``_get_optimal_thresholds``):
    ``(0, threshold)`` for a non-negative layer quantized to uint8 / auto, else ``(-threshold,
    threshold)``.  The entries of ``hist_dict`` are removed as they are used."""
    if not isinstance(hist_dict, dict):
        raise MXNetError(f"_get_optimal_thresholds: hist_dict must be a dict, got {type(hist_dict).__name__}")
    th_dict = {}
    for name in list(hist_dict):
        low, high, threshold, _ = _get_optimal_threshold(hist_dict[name], quantized_dtype,
                                                         num_quantized_bins=num_quantized_bins)
        threshold = float(np.asarray(threshold).reshape(-1)[0])
        th_dict[name] = (0.0, threshold) if low >= 0 and quantized_dtype in ("auto", "uint8") \
            else (-threshold, threshold)
        del hist_dict[name]
        if logger:
            logger.debug("layer=%s, min_val=%f, max_val=%f, th=%f", name, low, high, threshold)
    return th_dict


def _make_collector(calib_mode, quantized_dtype, layers, custom, logger):
    if calib_mode == "entropy":
        return _LayerHistogramCollector(quantized_dtype=quantized_dtype, include_layer=layers, logger=logger)
    if calib_mode == "naive":
        return _LayerOutputMinMaxCollector(quantized_dtype=quantized_dtype, include_layer=layers, logger=logger)
    if calib_mode == "customize":
        return custom
    return None


def quantize_graph(sym, arg_params, aux_params, ctx=cpu(), excluded_sym_names=None, excluded_op_names=None,
                   calib_mode="entropy", quantized_dtype="int8", quantize_mode="full",
                   quantize_granularity="tensor-wise", LayerOutputCollector=None, logger=None):
    """The quantized graph of ``sym`` (see the module docstring) and its parameters.

    Returns ``(qsym, qarg_params, aux_params, collector)``: ``collector`` gathers the float
    outputs that calibrate the graph (``collect(name, arr)``; a ``_LayerHistogramCollector``
    for 'entropy', a ``_LayerOutputMinMaxCollector`` for 'naive', ``LayerOutputCollector`` for
    'customize', None for 'none'); :func:`calib_graph` takes it back."""
    _check_options(calib_mode, quantized_dtype, quantize_mode, quantize_granularity, LayerOutputCollector)
    qsym, layers, rewriter = _rewrite(sym, list(arg_params), excluded_sym_names, excluded_op_names,
                                      quantized_dtype, quantize_granularity)
    collector = _make_collector(calib_mode, quantized_dtype, layers, LayerOutputCollector, logger)
    if logger:
        logger.info("Quantized %d operators", sum(1 for n in rewriter.nodes if n["name"].startswith("quantized_")))
    return qsym, _quantize_params(qsym, arg_params, {}), aux_params, collector


def _output_name(node, output):
    outputs = _node_operator(node).outputs()
    return f"{node['name']}_{outputs[output]}"


def calib_graph(qsym, arg_params, aux_params, collector, calib_mode="entropy", quantized_dtype="int8",
                logger=logging):
    """``qsym`` calibrated with what ``collector`` gathered (MXNet's ``calib_graph``): the
    thresholds of its histograms ('entropy') or its ``min_max_dict`` ('naive', 'customize')
    become the ``min_calib_range`` / ``max_calib_range`` of the nodes they calibrate.  Returns
    ``(qsym, qarg_params, aux_params)``."""
    th_dict = {}
    if calib_mode is not None and calib_mode != "none":
        if collector is None:
            raise MXNetError(f"calib_graph: calib_mode={calib_mode!r} needs the collector quantize_graph returned")
        if calib_mode == "entropy":
            th_dict = _get_optimal_thresholds(collector.hist_dict, quantized_dtype, logger=logger)
        elif calib_mode in ("naive", "customize"):
            th_dict = collector.min_max_dict
        else:
            raise MXNetError(f"calib_graph: unknown calib_mode {calib_mode!r}")
        qsym = _calibrate_quantized_sym(qsym, th_dict)
    return qsym, _quantize_params(qsym, arg_params, th_dict), aux_params


def _check_options(calib_mode, quantized_dtype, quantize_mode, quantize_granularity, collector=None):
    if calib_mode not in ("none", "naive", "entropy", "customize"):
        raise MXNetError(f"quantization: calib_mode must be 'none', 'naive', 'entropy' or 'customize', "
                         f"got {calib_mode!r}")
    if calib_mode == "customize" and collector is None:
        raise MXNetError("quantization: calib_mode='customize' needs a LayerOutputCollector")
    if quantized_dtype not in ("int8", "uint8", "auto"):
        raise MXNetError(f"quantization: quantized_dtype must be 'int8', 'uint8' or 'auto', got {quantized_dtype!r}")
    if quantize_mode not in ("full", "smart"):
        raise MXNetError(f"quantization: quantize_mode must be 'full' or 'smart', got {quantize_mode!r}")
    if quantize_granularity not in ("tensor-wise", "channel-wise"):
        raise MXNetError(f"quantization: quantize_granularity must be 'tensor-wise' or 'channel-wise', got "
                         f"{quantize_granularity!r}")


_HISTOGRAM_BINS = 8001
_QUANTIZED_BINS = 255


def _observed_layers(sym):
    """The float outputs MXNet 1.9.1's calibration could see: its CPU executor ran the graph
    partitioned by the backend ``MXNET_SUBGRAPH_BACKEND`` names (``MKLDNN`` when unset,
    none for ``NONE``), so the outputs of the operators fused there (a Convolution, a
    FullyConnected) were never reported."""
    backend = os.environ.get("MXNET_SUBGRAPH_BACKEND", "MKLDNN")
    if backend.strip().upper() == "NONE" or backend not in list_backends():
        fused = sym
    else:
        fused = sym.get_backend_symbol(backend)
    return set(fused.get_internals().list_outputs()) | set(fused.list_inputs())


def _collect_layer_statistics(sym, arg_params, aux_params, collector, data_names, calib_data, num_calib_examples,
                              ctx, logger=None):
    """Run the float ``sym`` over ``calib_data`` (at most ``num_calib_examples`` examples) and give
    ``collector.collect(name, NDArray)`` each observed layer it includes.  Returns the number
    of examples seen."""
    include = getattr(collector, "include_layer", None)
    observed = _observed_layers(sym)
    internals = sym.get_internals()
    names = [n for n in internals.list_outputs() if n in observed and (include is None or n in include)]
    wanted = [n for n in names if n not in data_names]
    module = None
    if wanted:
        module = Module(Group([internals[name] for name in wanted]), data_names=data_names, label_names=[],
                        context=ctx)
        module.bind(data_shapes=calib_data.provide_data, for_training=False)
        module.set_params(arg_params, aux_params, allow_missing=False, allow_extra=True)
    calib_data.reset()
    seen = 0
    for batch in calib_data:
        for name, value in zip(data_names, batch.data):
            if include is None or name in include:
                collector.collect(name, value)
        if module is not None:
            module.forward(DataBatch(data=batch.data), is_train=False)
            for name, value in zip(wanted, module.get_outputs()):
                collector.collect(name, value)
        seen += batch.data[0].shape[0] - (batch.pad or 0)
        if num_calib_examples is not None and seen >= num_calib_examples:
            break
    if logger:
        logger.info("Collected statistics from %d examples", seen)
    return seen


def quantize_model(sym, arg_params, aux_params, data_names=("data",), label_names=("softmax_label",), ctx=cpu(),
                   excluded_sym_names=None, excluded_op_names=None, calib_mode="entropy", calib_data=None,
                   num_calib_examples=None, quantized_dtype="int8", quantize_mode="smart",
                   quantize_granularity="tensor-wise", logger=None):
    """The int8 form of a float32 model: ``(qsym, qarg_params, aux_params)`` (module docstring).

    ``calib_mode``: 'none' (ranges computed at run time), 'naive' or 'entropy' (ranges from
    ``calib_data``, a DataIter, over at most ``num_calib_examples`` examples).
    ``quantize_mode='smart'`` quantizes what 'full' does (a warning says so)."""
    if isinstance(ctx, (list, tuple)):
        raise MXNetError("quantize_model: ctx must be one Context, got a list")
    if quantize_mode == "smart":
        warnings.warn("quantize_model: quantize_mode='smart' quantizes every operator with an int8 form, as "
                      "'full' does", stacklevel=2)
    if calib_mode in ("naive", "entropy") and not isinstance(calib_data, DataIter):
        raise MXNetError(f"quantize_model: calib_mode={calib_mode!r} needs calib_data, a DataIter, got "
                         f"{type(calib_data).__name__}")
    if calib_mode == "customize":
        raise MXNetError("quantize_model: calib_mode='customize' is for quantize_graph / quantize_net_v2 "
                         "(with a LayerOutputCollector)")
    qsym, qarg_params, aux, collector = quantize_graph(
        sym, arg_params, aux_params, ctx=ctx, excluded_sym_names=excluded_sym_names,
        excluded_op_names=excluded_op_names, calib_mode=calib_mode, quantized_dtype=quantized_dtype,
        quantize_mode="full", quantize_granularity=quantize_granularity, logger=logger)
    if calib_mode == "none":
        return qsym, qarg_params, aux
    _collect_layer_statistics(sym, arg_params, aux_params, collector, list(data_names), calib_data,
                              num_calib_examples, ctx, logger)
    return calib_graph(qsym, arg_params, aux, collector, calib_mode=calib_mode, quantized_dtype=quantized_dtype,
                       logger=logger)


def quantize_model_mkldnn(sym, arg_params, aux_params, data_names=("data",), label_names=("softmax_label",),
                          ctx=cpu(), excluded_sym_names=None, excluded_op_names=None, calib_mode="entropy",
                          calib_data=None, num_calib_examples=None, quantized_dtype="int8", quantize_mode="smart",
                          quantize_granularity="tensor-wise", logger=None):
    """``quantize_model`` for MXNet's oneDNN backend: ``sym`` is first fused by the
    ``MKLDNN_QUANTIZE`` backend (``_sg_mkldnn_conv`` / ``_sg_mkldnn_fully_connected`` nodes), then
    quantized, and the quantized graph fused again (requantize / dequantize folded into the
    fused nodes), as MXNet 1.9.1 does."""
    if not isinstance(ctx, Context) or ctx.device_type != "cpu":
        raise MXNetError("quantize_model_mkldnn only support Intel cpu platform with MKL-DNN Backend")
    sym = sym.get_backend_symbol("MKLDNN_QUANTIZE")
    qsym, qarg_params, aux = quantize_model(sym, arg_params, aux_params, data_names, label_names, ctx,
                                            excluded_sym_names, excluded_op_names, calib_mode, calib_data,
                                            num_calib_examples, quantized_dtype, quantize_mode,
                                            quantize_granularity, logger)
    return qsym.get_backend_symbol("MKLDNN_QUANTIZE"), qarg_params, aux


def quantize_net_v2(network, quantized_dtype="auto", quantize_mode="full", quantize_granularity="tensor-wise",
                    exclude_layers=None, exclude_layers_match=None, exclude_operators=None, calib_data=None,
                    data_shapes=None, calib_mode="none", num_calib_examples=None, ctx=cpu(),
                    LayerOutputCollector=None, logger=None):
    """A Gluon HybridBlock as an int8 ``SymbolBlock`` (MXNet's Gluon quantization): the block is
    traced on ``data_shapes`` (a list of DataDesc or shapes; by default those of ``calib_data``),
    on CPU fused by the ``MKLDNN_QUANTIZE`` backend, quantized by :func:`quantize_graph`,
    calibrated on ``calib_data`` (a DataIter) for 'naive' / 'entropy' / 'customize' (with
    ``LayerOutputCollector``), fused again on CPU, and returned with its int8 parameters."""
    if not data_shapes and isinstance(calib_data, DataIter):
        data_shapes = calib_data.provide_data
    if not data_shapes:
        raise MXNetError("quantize_net: data_shapes is required (the shapes of the network's inputs)")
    descs = [d if isinstance(d, DataDesc) else DataDesc(f"data{i}" if len(data_shapes) > 1 else "data", tuple(d))
             for i, d in enumerate(data_shapes)]
    inputs = [symbol.var(d.name) for d in descs]
    network.hybridize()
    out = network(*inputs)
    params = {p.name: p.data(ctx) for p in network.collect_params().values()}
    arg_names, aux_names = set(out.list_arguments()), set(out.list_auxiliary_states())
    arg_params = {k: v for k, v in params.items() if k in arg_names}
    aux_params = {k: v for k, v in params.items() if k in aux_names}
    excluded = list(exclude_layers or [])
    if exclude_layers_match:
        graph = json.loads(out.tojson())
        excluded += [n["name"] for n in graph["nodes"] if any(m in n["name"] for m in exclude_layers_match)]
    on_cpu = isinstance(ctx, Context) and ctx.device_type == "cpu"
    if on_cpu:
        out = out.get_backend_symbol("MKLDNN_QUANTIZE")
    qsym, qarg, qaux, collector = quantize_graph(
        out, arg_params, aux_params, ctx=ctx, excluded_sym_names=excluded, excluded_op_names=exclude_operators,
        calib_mode=calib_mode, quantized_dtype=quantized_dtype, quantize_mode=quantize_mode,
        quantize_granularity=quantize_granularity, LayerOutputCollector=LayerOutputCollector, logger=logger)
    if calib_mode != "none":
        if not isinstance(calib_data, DataIter):
            raise MXNetError(f"quantize_net: calib_mode={calib_mode!r} needs calib_data, a DataIter, got "
                             f"{type(calib_data).__name__}")
        _collect_layer_statistics(out, arg_params, aux_params, collector, [d.name for d in descs], calib_data,
                                  num_calib_examples, ctx, logger)
        qsym, qarg, qaux = calib_graph(qsym, arg_params, aux_params, collector, calib_mode=calib_mode,
                                       quantized_dtype=quantized_dtype, logger=logger)
    if on_cpu:
        qsym = qsym.get_backend_symbol("MKLDNN_QUANTIZE")
    block = SymbolBlock(qsym, [symbol.var(d.name) for d in descs])
    for name, parameter in block.collect_params().items():
        value = qarg.get(name, qaux.get(name))
        if value is not None:
            parameter.cast(value.dtype)         # int8 weights, float32 ranges
            parameter._load_init(value, ctx)
    return block


def quantize_net(network, quantized_dtype="auto", quantize_mode="full", exclude_layers=None,
                 exclude_layers_match=None, exclude_operators=None, calib_data=None, data_shapes=None,
                 calib_mode="none", num_calib_examples=None, ctx=cpu(), logger=None):
    """``quantize_net_v2`` with tensor-wise granularity (MXNet's older entry point)."""
    return quantize_net_v2(network, quantized_dtype, quantize_mode, "tensor-wise", exclude_layers,
                           exclude_layers_match, exclude_operators, calib_data, data_shapes, calib_mode,
                           num_calib_examples, ctx, None, logger)


def combine_histogram(old_hist, arr, new_min, new_max, new_th):
    """Add the values of ``arr`` to a histogram ``(counts, edges, min, max, threshold)`` over
    ``[-threshold, threshold]``.  When ``new_th`` exceeds the threshold the range grows by whole
    bins of the old width on both sides (the old counts keep their bins in the middle).
    Returns the new ``(counts, edges, min, max, threshold)``, as MXNet's entropy calibration."""
    counts, edges, old_min, old_max, old_th = old_hist
    low, high = min(old_min, new_min), max(old_max, new_max)
    if new_th <= old_th:
        added, _ = np.histogram(arr, bins=len(counts), range=(-old_th, old_th))
        return counts + added, edges, low, high, old_th
    width = 2 * old_th / len(counts)
    extra = int((new_th - old_th) // width + 1)
    threshold = old_th + extra * width
    added, new_edges = np.histogram(arr, bins=len(counts) + 2 * extra, range=(-threshold, threshold))
    added[extra:extra + len(counts)] += counts
    return added, new_edges, low, high, threshold
