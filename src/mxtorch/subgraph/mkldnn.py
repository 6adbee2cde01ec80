"""MXNet 1.9.1's oneDNN subgraph backends ``MKLDNN`` and ``MKLDNN_QUANTIZE``
(``src/operator/subgraph/mkldnn/*_property.h``) on mxtorch graphs.

A backend runs its properties one after the other, each one a full partitioning
(:func:`~mxtorch.subgraph.partition.build_subgraph`):

``MKLDNN``
    the identity pass (a ``_copy`` or training-mode ``Dropout`` after an operator is dropped,
    its readers reading the operator), the convolution pass (``Convolution`` [-> ``BatchNorm``] [-> ``elemwise_add``] [->
    activation], a chain without inner branches, each step read only by the next; activation:
    Activation relu / sigmoid / tanh / softrelu, LeakyReLU leaky / gelu, ``clip`` from 0) into
    ``_sg_mkldnn_conv`` nodes named ``sg_mkldnn_conv[_bn][_add][_act]_<id>`` with ``with_bn``,
    ``with_sum``, ``with_act`` (before a sum) / ``with_postsum_act`` (after it); the sum's other
    operand becomes the last input (``sum``).  Then the FullyConnected pass
    (``FullyConnected`` [-> Activation, LeakyReLU leaky / elu / gelu, ``square``, ``sqrt``, ``exp``,
    ``abs``, ``clip`` from 0]) into ``_sg_mkldnn_fully_connected`` nodes
    ``sg_mkldnn_fully_connected[_eltwise]_<id>`` with ``with_eltwise``.  Last the transformer pass:
    each ``interleaved_matmul_selfatt_qk`` / ``_valatt`` becomes ``_sg_mkldnn_selfatt_qk`` /
    ``_valatt`` (``sg_mkldnn_selfatt_qk_<id>``) holding it.
``MKLDNN_QUANTIZE``
    the same two passes restricted to what MXNet's int8 kernels fuse (relu of Activation; no
    square / sqrt / exp; no relu6 after a sum), the identity and transformer passes again, then
    the post-quantization passes on a graph ``contrib.quantization.quantize_model`` made: a
    quantized ``_sg_mkldnn_selfatt_*`` followed by a calibrated requantize takes its range, or,
    with a dequantize after that, ``enable_float_output`` (as the FullyConnected below); a quantized ``_sg_mkldnn_conv`` or
    ``_contrib_quantized_elemwise_add`` followed by a calibrated ``_contrib_requantize`` takes
    the requantize's ``min_calib_range`` / ``max_calib_range``; a quantized
    ``_sg_mkldnn_fully_connected`` followed by a calibrated requantize takes its range, or, with
    a ``_contrib_dequantize`` after that, ``enable_float_output``; last, the calibrated nodes
    feeding one quantized concat (through quantized concats / poolings) get one common range
    (:class:`AlignScaleProperty`).

MXNet's environment switches are read at each partitioning: ``MXNET_DISABLE_MKLDNN_CONV_OPT``,
``MXNET_DISABLE_MKLDNN_FUSE_CONV_BN``, ``..._FUSE_CONV_RELU``, ``..._FUSE_CONV_SUM``,
``MXNET_DISABLE_MKLDNN_FC_OPT``, ``MXNET_DISABLE_MKLDNN_FUSE_FC_ELTWISE``,
``MXNET_DISABLE_MKLDNN_QFC_FUSE_ALL``, ``MXNET_DISABLE_MKLDNN_QFC_FLOAT_OUTPUT``,
``MXNET_DISABLE_MKLDNN_TRANSFORMER_OPT``, ``MXNET_DISABLE_MKLDNN_QTRANSFORMER_FUSE_ALL``,
``MXNET_DISABLE_MKLDNN_QTRANSFORMER_FLOAT_OUTPUT``.
The nodes made are those of :mod:`mxtorch.ops.quantized_mkldnn`.
"""
from __future__ import annotations

import os

from ..ops import registry
from ..symbol.graph import Node
from ..symbol.subgraph_backends import register_backend
from ..symbol.symbol import Symbol
from .partition import SubgraphProperty, SubgraphSelector, build_subgraph

__all__ = ["MKLDNNBackend", "IdentityProperty", "ConvProperty", "FullyConnectedProperty", "TransformerProperty",
           "PostQuantizeProperty", "FullyConnectedPostQuantizeProperty", "TransformerPostQuantizeProperty"]


def _env(name):
    value = os.environ.get(name, "0").strip().lower()
    return value not in ("", "0", "false")


def _op_name(node):
    return None if node.op is None else node.op.name


def _float_attr(text):
    """A float attribute as MXNet's C++ writes it (``std::to_string``: six decimals)."""
    return "%f" % float(text)


class _ChainSelector(SubgraphSelector):
    """The selectors that grow one chain of outputs from a seed (MXNet's conv / FC selectors):
    ``matched`` is the chain, ``status`` 'start' / 'bn' / 'sum' / 'success' / 'fail'."""

    def __init__(self):
        self.matched = []
        self.status = "fail"

    def start(self, node, done=False):
        self.matched = [node]
        self.status = "success" if done else "start"
        return True

    def select_input(self, node, input_node):
        return False

    def _branch(self, node):
        """MXNet's check that ``node`` is the chain's last node; an inner branch cuts the chain
        after ``node`` and ends the search."""
        if self.matched[-1] is not node:
            if any(m is node for m in self.matched):
                while self.matched[-1] is not node:
                    self.matched.pop()
            self.status = "success"
            return True
        return False

    def filter(self, nodes):
        if self.status == "fail":
            return []
        ids = {id(m) for m in self.matched}
        return [n for n in nodes if id(n) in ids]

    def reset(self):
        seed = self.matched[0]
        self.__init__(*self._arguments)
        self.select(seed)


def _act_fusable(op, quantize):
    """MXNet's ``SupportMKLDNNAct`` / ``SupportQuantizedMKLDNNAct`` for an Activation."""
    if quantize:
        return op.act_type == "relu"
    return op.act_type in ("relu", "sigmoid", "softrelu", "tanh")


class _ConvSelector(_ChainSelector):
    def __init__(self, disable_all, disable_bn, disable_act, disable_sum, quantize):
        super().__init__()
        self._arguments = (disable_all, disable_bn, disable_act, disable_sum, quantize)
        self.disable_all, self.disable_bn, self.disable_act, self.disable_sum, self.quantize = self._arguments

    def select(self, node):
        if _op_name(node) == "Convolution" and len(node.op.kernel) in (2, 3):
            return self.start(node, self.disable_all)
        return False

    def select_output(self, node, output_node):
        if self._branch(node):
            return False
        if self.status in ("fail", "success") or output_node.op is None:
            return False
        name = output_node.op.name
        if self.status == "start" and not self.disable_bn and name == "BatchNorm":
            self.matched.append(output_node)
            self.status = "bn"
            return True
        if self.status in ("start", "bn") and not self.disable_sum and name == "elemwise_add":
            self.matched.append(output_node)
            self.status = "sum"
            return True
        if not self.disable_act:
            op = output_node.op
            take = False
            if name == "Activation":
                take = _act_fusable(op, self.quantize)
            elif name == "LeakyReLU":
                take = op.act_type in ("leaky", "gelu")
            elif name == "clip":
                take = not (self.quantize and self.status == "sum") and float(op.a_min) == 0.0
            if take:
                self.matched.append(output_node)
                self.status = "success"
                return True
        self.status = "success"
        return False


class _Property(SubgraphProperty):
    """A property whose fused node is made from the subgraph's first output."""

    def output_index(self, entry, default):
        return 0


class ConvProperty(_Property):
    """MXNet's ``SgMKLDNNConvProperty`` (see the module docstring)."""

    def __init__(self, quantize=False):
        self.quantize = quantize
        self.disable_bn = _env("MXNET_DISABLE_MKLDNN_FUSE_CONV_BN")
        self.disable_act = _env("MXNET_DISABLE_MKLDNN_FUSE_CONV_RELU")
        self.disable_sum = _env("MXNET_DISABLE_MKLDNN_FUSE_CONV_SUM")
        self.disable_all = self.disable_bn and self.disable_act and self.disable_sum
        self.disabled = _env("MXNET_DISABLE_MKLDNN_CONV_OPT")

    def create_selector(self):
        return _ConvSelector(self.disable_all, self.disable_bn, self.disable_act, self.disable_sum, self.quantize)

    def create_subgraph_node(self, symbol, selector, subgraph_id):
        graph = Symbol(symbol._outputs[:1])
        attrs = {}
        name = "sg_mkldnn_"
        with_sum = False
        self._rotate = False
        members = set()
        from ..symbol.graph import topological_order
        for node in topological_order(graph._outputs):
            if node.op is None:
                continue
            members.add(id(node))
            kind = node.op.name
            if kind == "Convolution":
                name += "conv_"
            elif kind == "BatchNorm":
                name += "bn_"
                attrs["with_bn"] = "true"
            elif kind == "elemwise_add":
                name += "add_"
                attrs["with_sum"] = "true"
                with_sum = True
                if id(node.inputs[1][0]) in members:
                    # the chain is the right operand: swap, so that the other operand is the
                    # node's last input
                    node.inputs = [node.inputs[1], node.inputs[0]]
                    self._rotate = True
            elif kind in ("Activation", "LeakyReLU", "clip"):
                name += "act_"
                attrs["with_postsum_act" if with_sum else "with_act"] = "true"
        op = registry.get_operator("_sg_mkldnn_conv")(attrs)
        op.subgraphs = [graph]
        return Node(op, f"{name}{subgraph_id}", dict(attrs), [])

    def connect_inputs(self, node, entries):
        entries = list(entries)
        if self._rotate:
            entries = entries[1:] + entries[:1]
        node.inputs = _node_inputs(node, entries)


def _node_inputs(node, entries):
    """``entries`` given in MXNet's input order, as the node's inputs (arguments then auxiliary
    states)."""
    order = node.op.json_input_order()
    if order is None:
        return entries
    placed = [None] * len(entries)
    for json_position, position in enumerate(order):
        placed[position] = entries[json_position]
    return placed


class _FullyConnectedSelector(_ChainSelector):
    def __init__(self, disable_eltwise, quantize):
        super().__init__()
        self._arguments = (disable_eltwise, quantize)
        self.disable_eltwise, self.quantize = self._arguments

    def select(self, node):
        if _op_name(node) == "FullyConnected":
            return self.start(node, self.disable_eltwise)
        return False

    def select_output(self, node, output_node):
        if self.status in ("fail", "success") or output_node.op is None:
            return False
        if self._branch(node):
            return False
        op = output_node.op
        name = op.name
        take = False
        if name == "Activation":
            take = _act_fusable(op, self.quantize)
        elif name == "LeakyReLU":
            take = op.act_type in ("leaky", "elu", "gelu")
        elif name in ("square", "sqrt", "exp"):
            take = not self.quantize
        elif name == "abs":
            take = True
        elif name == "clip":
            take = float(op.a_min) == 0.0
        self.status = "success"
        if take:
            self.matched.append(output_node)
        return take

    def filter(self, nodes):
        # MXNet's FC selector keeps every candidate it was offered
        return [] if self.status == "fail" else nodes


_ELTWISE = ("Activation", "LeakyReLU", "square", "sqrt", "exp", "abs", "clip")


class FullyConnectedProperty(SubgraphProperty):
    """MXNet's ``SgMKLDNNFCProperty`` (see the module docstring)."""

    def __init__(self, quantize=False):
        self.quantize = quantize
        self.disable_eltwise = _env("MXNET_DISABLE_MKLDNN_FUSE_FC_ELTWISE")
        self.disabled = _env("MXNET_DISABLE_MKLDNN_FC_OPT")

    def create_selector(self):
        return _FullyConnectedSelector(self.disable_eltwise, self.quantize)

    def create_subgraph_node(self, symbol, selector, subgraph_id):
        graph = Symbol(symbol._outputs[:1])
        attrs = {}
        name = "sg_mkldnn_"
        from ..symbol.graph import topological_order
        for node in topological_order(graph._outputs):
            if node.op is None:
                continue
            if node.op.name == "FullyConnected":
                name += "fully_connected_"
            elif node.op.name in _ELTWISE:
                name += "eltwise_"
                attrs["with_eltwise"] = "True"
        op = registry.get_operator("_sg_mkldnn_fully_connected")(attrs)
        op.subgraphs = [graph]
        return Node(op, f"{name}{subgraph_id}", dict(attrs), [])

    def output_index(self, entry, default):
        return entry[1]

    def connect_inputs(self, node, entries):
        node.inputs = _node_inputs(node, list(entries))


class _IdentitySelector(SubgraphSelector):
    """A ``_copy`` or training-mode ``Dropout`` (an identity in inference) and the operator
    node it reads."""

    def __init__(self):
        self.matched = []
        self.found = False

    def select(self, node):
        name = _op_name(node)
        if name == "_copy" or (name == "Dropout" and node.op.mode == "training"):
            self.matched = [node]
            return True
        return False

    def select_input(self, node, input_node):
        if self.found or input_node.op is None:
            return False
        self.matched.append(input_node)
        self.found = True
        return True

    def filter(self, nodes):
        return nodes if self.found and len(nodes) == len(self.matched) == 2 else []

    def reset(self):
        seed = self.matched[0]
        self.__init__()
        self.select(seed)


class _TransformerSelector(SubgraphSelector):
    """One ``interleaved_matmul_selfatt_qk`` / ``_valatt`` node alone."""

    def select(self, node):
        return _op_name(node) in _SELFATT


_SELFATT = {"_contrib_interleaved_matmul_selfatt_qk": "selfatt_qk",
            "_contrib_interleaved_matmul_selfatt_valatt": "selfatt_valatt"}


class TransformerProperty(SubgraphProperty):
    """MXNet's ``SgMKLDNNTransformerProperty``: each self-attention product becomes
    ``_sg_mkldnn_selfatt_qk`` / ``_valatt`` named ``sg_mkldnn_selfatt_qk_<id>`` (attributes
    ``heads``, ``quantized`` and ``enable_float_output`` False)."""

    def __init__(self):
        self.disabled = _env("MXNET_DISABLE_MKLDNN_TRANSFORMER_OPT")

    def create_selector(self):
        return _TransformerSelector()

    def create_subgraph_node(self, symbol, selector, subgraph_id):
        graph = Symbol(symbol._outputs[:1])
        node = graph._outputs[0][0]
        kind = _SELFATT[node.op.name]
        attrs = {"heads": str(node.op.heads), "quantized": "False", "enable_float_output": "False"}
        op = registry.get_operator(f"_sg_mkldnn_{kind}")(attrs)
        op.subgraphs = [graph]
        return Node(op, f"sg_mkldnn_{kind}_{subgraph_id}", dict(attrs), [])

    def output_index(self, entry, default):
        return entry[1]


def _is_identity(node):
    return _op_name(node) in ("_copy", "Dropout")


class IdentityProperty(SubgraphProperty):
    """MXNet's ``SgMKLDNNIdentityProperty``: an identity after an operator is removed (its
    readers read the operator)."""

    def create_selector(self):
        return _IdentitySelector()

    def create_subgraph_node(self, symbol, selector, subgraph_id):
        from ..symbol.graph import topological_order
        nodes = [n for n in topological_order(symbol._outputs) if n.op is not None]
        original = next(n for n in nodes if not _is_identity(n))
        return _copy_with(original, {})

    def output_index(self, entry, default):
        node, index = entry
        return node.inputs[0][1] if _is_identity(node) else index


# -- after quantization -------------------------------------------------------------------------------
def _calibrated(node):
    return node.op.min_calib_range is not None and node.op.max_calib_range is not None


class _PostQuantizeSelector(_ChainSelector):
    """A quantized ``_sg_mkldnn_conv`` / ``_contrib_quantized_elemwise_add`` and the calibrated
    requantize reading it."""

    def __init__(self):
        super().__init__()
        self._arguments = ()

    def select(self, node):
        name = _op_name(node)
        if name == "_sg_mkldnn_conv" and node.op.quantized:
            return self.start(node)
        if name == "_contrib_quantized_elemwise_add":
            return self.start(node)
        return False

    def select_output(self, node, output_node):
        if self.status in ("fail", "success") or output_node.op is None:
            return False
        if self.matched[-1] is not node:
            self.status = "fail"
            return False
        if output_node.op.name == "_contrib_requantize":
            if _calibrated(output_node):
                self.matched.append(output_node)
                self.status = "success"
                return True
            self.status = "fail"
        return False

    def filter(self, nodes):
        return nodes if self.status == "success" else []


def _copy_with(node, updates, remove=()):
    """A new node running ``node``'s operator with its attributes updated (its subgraphs kept)."""
    attrs = {k: v for k, v in node.op.attrs.items() if k not in remove}
    attrs.update(updates)
    op = type(node.op)(attrs)
    if getattr(node.op, "subgraphs", None):
        op.subgraphs = list(node.op.subgraphs)
    node_attrs = {k: v for k, v in node.attrs.items() if k not in remove}
    node_attrs.update(updates)
    return Node(op, node.name, node_attrs, [])


def _fused_inputs(symbol, fused_op_names):
    from ..symbol.graph import topological_order
    nodes = [n for n in topological_order(symbol._outputs) if n.op is not None]
    fused = next(n for n in nodes if n.op.name in fused_op_names)
    return nodes, fused


class PostQuantizeProperty(SubgraphProperty):
    """MXNet's ``SgMKLDNNPostQuantizeProperty``: requantize folded into the node before it."""

    def create_selector(self):
        return _PostQuantizeSelector()

    def create_subgraph_node(self, symbol, selector, subgraph_id):
        nodes, fused = _fused_inputs(symbol, ("_sg_mkldnn_conv", "_contrib_quantized_elemwise_add"))
        requantize = next(n for n in nodes if n.op.name == "_contrib_requantize")
        return _copy_with(fused, {"min_calib_range": _float_attr(requantize.op.min_calib_range),
                                  "max_calib_range": _float_attr(requantize.op.max_calib_range)})

    def output_index(self, entry, default):
        return entry[1]

    # every input of the subgraph is an input of the fused node, and the graph's entry order
    # lists them in the node's input order: the default connect_inputs keeps them as they were


class _FloatOutputPostQuantizeSelector(_ChainSelector):
    """A quantized node of ``op_names``, the calibrated requantize reading it and the dequantize
    after that (or a dequantize right after the node)."""

    def __init__(self, op_names, disable_all, disable_float_output):
        super().__init__()
        self._arguments = (op_names, disable_all, disable_float_output)
        self.op_names, self.disable_all, self.disable_float_output = self._arguments

    def select(self, node):
        if not self.disable_all and _op_name(node) in self.op_names:
            return self.start(node)
        return False

    def select_output(self, node, output_node):
        if self.status in ("fail", "success") or output_node.op is None:
            return False
        if self._branch(node):
            return False
        name = output_node.op.name
        if self.status == "start" and name == "_contrib_requantize" and _calibrated(output_node):
            self.matched.append(output_node)
            self.status = "requantize"
            return True
        if self.status in ("start", "requantize") and not self.disable_float_output \
                and name == "_contrib_dequantize":
            self.matched.append(output_node)
            self.status = "success"
            return True
        self.status = "success"
        return False

    def filter(self, nodes):
        if self.status != "success" or len(self.matched) <= 1:
            return []
        return super().filter(nodes)


class FullyConnectedPostQuantizeProperty(SubgraphProperty):
    """MXNet's ``SgMKLDNNFCPostQuantizeProperty``: requantize (and dequantize) folded into a
    quantized FullyConnected (``enable_float_output``, else the requantize's range)."""

    OP_NAMES = ("_sg_mkldnn_fully_connected",)
    SWITCHES = ("MXNET_DISABLE_MKLDNN_QFC_FUSE_ALL", "MXNET_DISABLE_MKLDNN_QFC_FLOAT_OUTPUT")

    def __init__(self):
        self.disable_all = _env(self.SWITCHES[0])
        self.disable_float_output = _env(self.SWITCHES[1])

    def create_selector(self):
        return _FloatOutputPostQuantizeSelector(self.OP_NAMES, self.disable_all, self.disable_float_output)

    def create_subgraph_node(self, symbol, selector, subgraph_id):
        nodes, fused = _fused_inputs(symbol, self.OP_NAMES)
        requantize = next((n for n in nodes if n.op.name == "_contrib_requantize"), None)
        dequantize = next((n for n in nodes if n.op.name == "_contrib_dequantize"), None)
        if requantize is None:
            return None
        if dequantize is not None:
            return _copy_with(fused, {"enable_float_output": "True"})
        return _copy_with(fused, {"min_calib_range": _float_attr(requantize.op.min_calib_range),
                                  "max_calib_range": _float_attr(requantize.op.max_calib_range)})

    def output_index(self, entry, default):
        return entry[1]


class TransformerPostQuantizeProperty(FullyConnectedPostQuantizeProperty):
    """MXNet's ``SgMKLDNNTransformerPostQuantizeProperty``: the same folding into a quantized
    ``_sg_mkldnn_selfatt_qk`` / ``_valatt``."""

    OP_NAMES = ("_sg_mkldnn_selfatt_qk", "_sg_mkldnn_selfatt_valatt")
    SWITCHES = ("MXNET_DISABLE_MKLDNN_QTRANSFORMER_FUSE_ALL", "MXNET_DISABLE_MKLDNN_QTRANSFORMER_FLOAT_OUTPUT")


class AlignScaleProperty:
    """MXNet's ``SgMKLDNNPostQuantizeAlignScaleProperty`` (an adjusting pass: no node is
    replaced).  From each ``_contrib_quantized_concat``, the search walks through the quantized
    concats and poolings feeding it (and reading it, when it has one reader) and collects the
    calibrated nodes feeding them, each read only by the nodes walked; when two or more are
    found, all of them get the widest range (``min(0, mins)``, ``max(0, maxes)``), so that the
    concat needs no rescaling."""

    WALKED = ("_contrib_quantized_concat", "_contrib_quantized_pooling")

    def adjust(self, symbol):
        from ..symbol.graph import topological_order
        from .partition import _copy_graph
        heads = _copy_graph(symbol._outputs)
        nodes = topological_order(heads)
        readers = {id(n): [] for n in nodes}
        for node in nodes:
            for child, _ in node.inputs:
                if all(r is not node for r in readers[id(child)]):
                    readers[id(child)].append(node)
        done = set()
        for seed in nodes:
            if _op_name(seed) != "_contrib_quantized_concat" or id(seed) in done:
                continue
            matched = self._search(seed, readers)
            done.add(id(seed))
            if len(matched) < 2:
                continue
            low = min([0.0] + [float(n.attrs["min_calib_range"]) for n in matched])
            high = max([0.0] + [float(n.attrs["max_calib_range"]) for n in matched])
            for node in matched:
                updated = _copy_with(node, {"min_calib_range": _float_attr(low), "max_calib_range": _float_attr(high)})
                node.op, node.attrs = updated.op, updated.attrs
                done.add(id(node))
        return Symbol(heads)

    def _search(self, seed, readers):
        visited = {id(seed)}
        select_output = len(readers[id(seed)]) <= 1
        matched, queue, seen = [], [seed], {id(seed)}
        while queue:
            node = queue.pop(0)
            for child, _ in node.inputs:
                if child.op is None or id(child) in seen or id(node) not in visited:
                    continue
                if any(id(r) not in visited for r in readers[id(child)]):
                    continue
                if "min_calib_range" in child.attrs and "max_calib_range" in child.attrs:
                    matched.append(child)
                    seen.add(id(child))
                elif child.op.name in self.WALKED:
                    visited.add(id(child))
                    seen.add(id(child))
                    queue.append(child)
            if select_output and id(node) in visited:
                for reader in readers[id(node)]:
                    if reader.op is not None and id(reader) not in seen and reader.op.name in self.WALKED:
                        visited.add(id(reader))
                        seen.add(id(reader))
                        queue.append(reader)
        return matched


class MKLDNNBackend:
    """The backend ``optimize_for`` / ``get_backend_symbol`` reach as ``MKLDNN`` or
    ``MKLDNN_QUANTIZE`` (``quantize``): the properties of the module docstring, in MXNet's order."""

    def __init__(self, quantize):
        self.quantize = quantize

    def properties(self):
        found = [IdentityProperty(), ConvProperty(self.quantize), FullyConnectedProperty(self.quantize)]
        if self.quantize:
            found += [IdentityProperty(), TransformerProperty(), TransformerPostQuantizeProperty(),
                      PostQuantizeProperty(), FullyConnectedPostQuantizeProperty()]
        else:
            found.append(TransformerProperty())
        return [p for p in found if not getattr(p, "disabled", False)]

    def partition(self, symbol, args, aux, options):
        """``symbol`` with every property applied in turn; ``args`` / ``aux`` stay as they are
        (the fused nodes read the same parameters)."""
        for prop in self.properties():
            symbol = build_subgraph(symbol, prop)
        if self.quantize:
            symbol = AlignScaleProperty().adjust(symbol)
        return symbol


register_backend("MKLDNN", MKLDNNBackend(quantize=False))
register_backend("MKLDNN_QUANTIZE", MKLDNNBackend(quantize=True))
