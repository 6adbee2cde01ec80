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

__all__ = ["quantize_graph", "calib_graph", "quantize_model", "quantize_model_mkldnn", "quantize_net",
           "quantize_net_v2", "combine_histogram"]


def check_call(ret):
    """MXNet's C-API return check: MXNetError for a non-zero return code (mxtorch calls no C
    library; this keeps the name for code that imported it from here)."""
    if ret != 0:
        raise MXNetError(f"check_call: a call returned {ret!r}")


def _node_operator(node):
    attrs = {k: v for k, v in (node.get("attrs") or {}).items() if not k.startswith("__")}
    return registry.get_operator(node["op"])(attrs)


class _GraphRewriter:
    """Builds the quantized node list from a float32 graph (MXNet's JSON node layout)."""

    def __init__(self, graph, params, excluded_names, excluded_ops, quantized_dtype):
        self.old = graph["nodes"]
        self.params = params
        self.excluded_names = set(excluded_names or ())
        self.excluded_ops = set(excluded_ops or ())
        self.quantized_dtype = quantized_dtype
        self.nodes = []
        self.float_of = {}      # old (node, output) -> new (node, output) holding the float value
        self.int8_of = {}       # old (node, output) -> new node whose outputs 0..2 are int8, min, max
        self.calibrated = {}    # new node id -> old (node, output) whose range calibrates it

    def add(self, op, name, attrs=None, inputs=()):
        node = {"op": op, "name": name, "inputs": [[n, i, 0] for n, i in inputs]}
        if attrs:
            node["attrs"] = dict(attrs)
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

    def rewrite(self, heads):
        for position, node in enumerate(self.old):
            entry = (position, 0)
            if node["op"] == "null":
                self.float_of[entry] = (self.add("null", node["name"], node.get("attrs")), 0)
                continue
            op = _node_operator(node)
            if not self.quantizable(node, op):
                inputs = [self.float_entry((e[0], e[1])) for e in node["inputs"]]
                new = self.add(node["op"], node["name"], node.get("attrs"), inputs)
                for index in range(op.num_outputs()):
                    self.float_of[(position, index)] = (new, index)
                continue
            self.quantize_node(position, node, op)
        return [self.float_entry((e[0], e[1])) for e in heads]

    def quantize_node(self, position, node, op):
        quantized_inputs = op.quantized_inputs or op.arguments()
        values, ranges = [], []
        for argument, raw in zip(op.arguments(), node["inputs"]):
            entry = (raw[0], raw[1])
            source = self.old[raw[0]]
            if argument not in quantized_inputs:
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
        new = self.add(quantized_name, f"quantized_{node['name']}", node.get("attrs"), values + ranges)
        if registry.get_operator(quantized_name).int32_output:
            # MXNet 1.9.1 leaves requantize uncalibrated (its range is found at run time)
            new = self.add("_contrib_requantize", f"requantize_{node['name']}", {"out_type": "int8"},
                           [(new, 0), (new, 1), (new, 2)])
        self.int8_of[(position, 0)] = new


def _quantize_params(qsym, params):
    """The parameters of ``qsym``: ``<p>_quantize`` (int8), ``_min`` / ``_max`` of each quantized
    parameter ``p`` (over its own largest magnitude), the others as they were."""
    result = {}
    for name in qsym.list_arguments():
        if name.endswith("_quantize") and name[:-len("_quantize")] in params:
            original = params[name[:-len("_quantize")]]
            values, low, high = nd.contrib.quantize(original, nd.min(original).reshape((1,)),
                                                    nd.max(original).reshape((1,)), out_type="int8")
            result[name], result[f"{name}_min"], result[f"{name}_max"] = values, low, high
        elif name in params:
            result[name] = params[name]
    return result


def quantize_graph(sym, arg_params, aux_params, ctx=cpu(), excluded_sym_names=None, excluded_op_names=None,
                   calib_mode="entropy", quantized_dtype="int8", quantize_mode="full",
                   quantize_granularity="tensor-wise", LayerOutputCollector=None, logger=None):
    """The quantized graph of ``sym`` (see the module docstring) and its parameters.

    Returns ``(qsym, qarg_params, aux_params, collector)``; ``collector`` is the list of the
    float outputs whose ranges calibrate the graph (``calib_graph`` takes it back with their
    ``(min, max)``), None for ``calib_mode='none'``."""
    _check_options(calib_mode, quantized_dtype, quantize_mode, quantize_granularity, LayerOutputCollector)
    graph = json.loads(sym.tojson())
    rewriter = _GraphRewriter(graph, arg_params, excluded_sym_names, excluded_op_names, quantized_dtype)
    heads = rewriter.rewrite([tuple(h[:2]) for h in graph["heads"]])
    records = {"nodes": rewriter.nodes, "arg_nodes": [i for i, n in enumerate(rewriter.nodes) if n["op"] == "null"],
               "heads": [[n, i, 0] for n, i in heads], "attrs": graph.get("attrs", {})}
    qsym = load_json(json.dumps(records))
    collector = None
    if calib_mode != "none":
        names = {}
        for new, (node, output) in rewriter.calibrated.items():
            old = graph["nodes"][node]
            names[rewriter.nodes[new]["name"]] = old["name"] if old["op"] == "null" else \
                _output_name(old, output)
        collector = names
    if logger:
        logger.info("Quantized %d of %d operators", sum(1 for n in rewriter.nodes if n["name"].startswith("quantized_")),
                    sum(1 for n in graph["nodes"] if n["op"] != "null"))
    return qsym, _quantize_params(qsym, arg_params), aux_params, collector


def _output_name(node, output):
    outputs = _node_operator(node).outputs()
    return f"{node['name']}_{outputs[output]}"


def calib_graph(qsym, arg_params, aux_params, collector, calib_mode="entropy", quantized_dtype="int8",
                logger=logging):
    """``qsym`` with the calibration ranges of ``collector`` (``{node name: (min, max)}``, as
    ``quantize_model`` gathers them) written as ``min_calib_range`` / ``max_calib_range`` of its
    ``quantize_v2`` and ``requantize`` nodes.  Returns ``(qsym, arg_params, aux_params)``."""
    graph = json.loads(qsym.tojson())
    for node in graph["nodes"]:
        if node["name"] in collector:
            low, high = collector[node["name"]]
            # written as MXNet's C++ writes a float attribute (six decimals)
            node.setdefault("attrs", {}).update({"min_calib_range": "%f" % float(low),
                                                  "max_calib_range": "%f" % float(high)})
    return load_json(json.dumps(graph)), arg_params, aux_params


def _check_options(calib_mode, quantized_dtype, quantize_mode, quantize_granularity, collector=None):
    if calib_mode not in ("none", "naive", "entropy", "customize"):
        raise MXNetError(f"quantization: calib_mode must be 'none', 'naive', 'entropy' or 'customize', "
                         f"got {calib_mode!r}")
    if calib_mode == "customize" and collector is None:
        raise MXNetError("quantization: calib_mode='customize' needs a LayerOutputCollector")
    if calib_mode == "customize":
        raise MXNetError("quantization: calib_mode='customize' (a LayerOutputCollector) is not available in "
                         "mxtorch; use calib_mode='naive'")
    if quantized_dtype not in ("int8", "uint8", "auto"):
        raise MXNetError(f"quantization: quantized_dtype must be 'int8', 'uint8' or 'auto', got {quantized_dtype!r}")
    if quantize_mode not in ("full", "smart"):
        raise MXNetError(f"quantization: quantize_mode must be 'full' or 'smart', got {quantize_mode!r}")
    if quantize_granularity != "tensor-wise":
        raise MXNetError(f"quantization: only quantize_granularity='tensor-wise' is available, got "
                         f"{quantize_granularity!r}")


_HISTOGRAM_BINS = 8001
_QUANTIZED_BINS = 255


def _collect_ranges(sym, arg_params, aux_params, collector, data_names, calib_data, num_calib_examples, ctx,
                    calib_mode="naive", quantized_dtype="int8"):
    """``{node name: (min, max)}`` of the float outputs named in ``collector`` over ``calib_data``:
    their extremes ('naive') or the entropy thresholds of their histograms ('entropy')."""
    internals = sym.get_internals()
    wanted = sorted(set(collector.values()) - set(data_names))
    outputs = [internals[name] for name in wanted]
    ranges = {}
    module = None
    if outputs:
        module = Module(Group(outputs), data_names=data_names, label_names=[], context=ctx)
        module.bind(data_shapes=calib_data.provide_data, for_training=False)
        module.set_params(arg_params, aux_params, allow_missing=False, allow_extra=True)
    calib_data.reset()
    seen = 0
    for batch in calib_data:
        values = dict(zip(data_names, batch.data))
        if module is not None:
            module.forward(DataBatch(data=batch.data), is_train=False)
            values.update(zip(wanted, module.get_outputs()))
        for name, value in values.items():
            array = value.asnumpy()
            low, high = float(array.min()), float(array.max())
            old = ranges.get(name)
            if calib_mode == "naive":
                ranges[name] = (low, high) if old is None else (min(old[0], low), max(old[1], high))
                continue
            limit = max(abs(low), abs(high))
            if old is None:
                counts, edges = np.histogram(array, bins=_HISTOGRAM_BINS, range=(-limit, limit))
                ranges[name] = (counts, edges, low, high, limit)
            else:
                ranges[name] = combine_histogram(old, array, low, high, limit)
        seen += batch.data[0].shape[0] - (batch.pad or 0)
        if num_calib_examples is not None and seen >= num_calib_examples:
            break
    if calib_mode == "entropy":
        for name, (counts, edges, low, high, _) in list(ranges.items()):
            threshold = float(nd.contrib.calibrate_entropy(nd.array(counts.astype(np.float32)),
                                                           nd.array(edges.astype(np.float32)),
                                                           num_quantized_bins=_QUANTIZED_BINS)[0].asscalar())
            unsigned = low >= 0 and quantized_dtype in ("uint8", "auto")
            ranges[name] = (0.0 if unsigned else -threshold, threshold)
    return {node: ranges[name] for node, name in collector.items() if name in ranges}


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
    qsym, qarg_params, aux, collector = quantize_graph(
        sym, arg_params, aux_params, ctx=ctx, excluded_sym_names=excluded_sym_names,
        excluded_op_names=excluded_op_names, calib_mode=calib_mode, quantized_dtype=quantized_dtype,
        quantize_mode="full", quantize_granularity=quantize_granularity, logger=logger)
    if calib_mode == "none":
        return qsym, qarg_params, aux
    ranges = _collect_ranges(sym, arg_params, aux_params, collector, list(data_names), calib_data,
                             num_calib_examples, ctx, calib_mode, quantized_dtype)
    qsym, qarg_params, aux = calib_graph(qsym, qarg_params, aux, ranges, calib_mode=calib_mode,
                                         quantized_dtype=quantized_dtype)
    return qsym, qarg_params, aux


def quantize_model_mkldnn(sym, arg_params, aux_params, data_names=("data",), label_names=("softmax_label",),
                          ctx=cpu(), excluded_sym_names=None, excluded_op_names=None, calib_mode="entropy",
                          calib_data=None, num_calib_examples=None, quantized_dtype="int8", quantize_mode="smart",
                          quantize_granularity="tensor-wise", logger=None):
    """``quantize_model`` for MXNet's oneDNN backend.  MXNet then fused the int8 nodes into
    oneDNN subgraphs, a rewrite for speed with no counterpart here: the graph returned is
    ``quantize_model``'s, which computes the same int8 numbers."""
    return quantize_model(sym, arg_params, aux_params, data_names, label_names, ctx, excluded_sym_names,
                          excluded_op_names, calib_mode, calib_data, num_calib_examples, quantized_dtype,
                          quantize_mode, quantize_granularity, logger)


def quantize_net_v2(network, quantized_dtype="auto", quantize_mode="full", quantize_granularity="tensor-wise",
                    exclude_layers=None, exclude_layers_match=None, exclude_operators=None, calib_data=None,
                    data_shapes=None, calib_mode="none", num_calib_examples=None, ctx=cpu(),
                    LayerOutputCollector=None, logger=None):
    """A Gluon HybridBlock as an int8 ``SymbolBlock`` (MXNet's Gluon quantization): the block is
    traced on ``data_shapes`` (a list of DataDesc or shapes), quantized as ``quantize_model``
    does and returned with its int8 parameters."""
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
    qsym, qarg, qaux = quantize_model(out, arg_params, aux_params, data_names=[d.name for d in descs],
                                      label_names=[], ctx=ctx, excluded_sym_names=excluded,
                                      excluded_op_names=exclude_operators, calib_mode=calib_mode,
                                      calib_data=calib_data, num_calib_examples=num_calib_examples,
                                      quantized_dtype=quantized_dtype, quantize_mode=quantize_mode,
                                      quantize_granularity=quantize_granularity, logger=logger)
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
