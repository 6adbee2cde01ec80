"""The graph pass behind ``amp.convert_symbol``: MXNet 1.9.1's ``ReducePrecision`` (NNVM pass)
followed by the ``__dtype__`` attributes its C API writes on the model parameters.

The pass walks the graph in MXNet's order and keeps two maps of "entries known to hold" the
target dtype / float32 (an entry is ``(node, output index)``):

- float32 operators (and excluded nodes) cast every input not known to be float32 to float32,
  except variables, which are assumed float32;
- target-dtype operators infer their types from a target-dtype first input and cast each input
  not already known to be in the target dtype (except mutable inputs, inputs the inference put
  in another type, and, with ``cast_optional_params``, the parameters);
- widest-type operators cast to float32 when one input is float32, else to the target dtype,
  or, when an input's type is unknown, get one ``amp_multicast`` over all their inputs;
- conditional float32 operators whose attribute matches cast like float32 operators;
- every other operator is copied, its outputs' types inferred from its first input's;
- every graph output not known to be float32 gets a float32 cast.

A cast is named ``<node name><suffix>_amp_cast_<dtype>``, the suffix being empty for a variable,
``_<output name>`` for an operator MXNet lists output names for, ``_<index>`` otherwise; a
multicast ``<first input's node name><suffix>_amp_multicast``.
"""
from __future__ import annotations

import numpy as np

from ...base import BFLOAT16, dtype_flag
from ...ops.registry import get_operator
from ...symbol.symbol import Node, Symbol, topological_order

__all__ = ["reduce_precision"]

# the operators MXNet 1.9.1 registers FListOutputNames for (their own or the legacy
# OperatorProperty one): a cast after one of their outputs is named after the output
OUTPUT_NAMED_OPS = frozenset([
    "Activation", "BatchNorm", "Concat", "Convolution", "CuDNNBatchNorm", "Custom", "Deconvolution", "Dropout",
    "FullyConnected", "GroupNorm", "LRN", "LayerNorm", "LeakyReLU", "Pooling", "RNN", "SoftmaxActivation",
    "SoftmaxOutput", "UpSampling", "CTCLoss", "_contrib_BatchNormWithReLU", "_contrib_ROIAlign",
    "_contrib_RROIAlign", "_contrib_hawkesll", "_contrib_index_array", "_contrib_interleaved_matmul_encdec_qk",
    "_contrib_interleaved_matmul_encdec_valatt", "_contrib_interleaved_matmul_selfatt_qk",
    "_contrib_interleaved_matmul_selfatt_valatt", "_npi_concatenate", "_npi_dstack", "_npi_hstack",
    "_npi_matmul", "_npi_std", "_npi_var", "col2im", "im2col", "elemwise_add", "make_loss", "softmax", "softmin",
    "_rnn_param_concat",
    # legacy OperatorProperty operators
    "BatchNorm_v1", "BilinearSampler", "Convolution_v1", "Correlation", "Crop", "GridGenerator",
    "IdentityAttachKLSparseReg", "InstanceNorm", "L2Normalization", "MakeLoss", "Pad", "Pooling_v1", "ROIPooling",
    "SVMOutput", "SequenceLast", "SequenceMask", "SequenceReverse", "SliceChannel", "SpatialTransformer",
    "SwapAxis", "_CrossDeviceCopy", "_NDArray", "_Native", "_contrib_DeformableConvolution",
    "_contrib_DeformablePSROIPooling", "_contrib_MultiBoxDetection", "_contrib_MultiBoxPrior",
    "_contrib_MultiBoxTarget", "_contrib_MultiProposal", "_contrib_PSROIPooling", "_contrib_Proposal",
    "_contrib_SyncBatchNorm", "_contrib_count_sketch", "_contrib_fft", "_contrib_ifft",
    "LinearRegressionOutput", "LogisticRegressionOutput", "MAERegressionOutput",
])

_FLOAT32 = np.dtype(np.float32)


def numpy_target(name):
    """The numpy dtype of 'float16' / 'bfloat16' (mxtorch's BFLOAT16 stand-in)."""
    return BFLOAT16 if name == "bfloat16" else np.dtype(name)


def _op_name(node):
    return node.op.json_name


def _suffix(node, index):
    if node.op is None:
        return ""
    if _op_name(node) in OUTPUT_NAMED_OPS:
        return "_" + node.op.outputs()[index]
    return f"_{index}"


def _infer_outputs(node, first_type):
    """Output dtypes of ``node`` when its first input has ``first_type`` (None where unknown)."""
    arguments = len(node.op.arguments()) if node.op.arguments() is not None else len(node.inputs)
    in_types = [None] * min(arguments, len(node.inputs))
    if not in_types:
        return None, []
    in_types[0] = first_type
    try:
        inferred_in, out_types, _ = node.op.infer_type(in_types)
    except Exception:   # an operator whose inference needs more than the first type
        return None, []
    return list(inferred_in), list(out_types)


class _Pass:
    def __init__(self, policy, data_names, cast_optional_params):
        self.policy = policy
        self.target_name = policy.target
        self.target = numpy_target(policy.target)
        self.data_names = set(data_names)
        self.cast_optional = bool(cast_optional_params)
        self.mirror = {}          # id(original node) -> new node
        self.fp32 = {}            # (id(original node), index) -> new entry known float32
        self.low = {}             # (id(original node), index) -> new entry known in the target dtype

    def mirror_entry(self, entry):
        node, index = entry
        return self.mirror[id(node)], index

    def add_cast(self, entry, dtype, known):
        node, index = entry
        op = get_operator("amp_cast")({"dtype": dtype})
        cast = Node(op, f"{node.name}{_suffix(node, index)}_amp_cast_{dtype}", {"dtype": dtype},
                    [self.mirror_entry(entry)])
        known[(id(node), index)] = (cast, 0)
        return cast, 0

    def record_outputs(self, node, copy, out_types):
        for index, dtype in enumerate(out_types[:node.num_outputs()]):
            if dtype is None:
                continue
            if np.dtype(dtype) == self.target:
                self.low[(id(node), index)] = (copy, index)
            elif np.dtype(dtype) == _FLOAT32:
                self.fp32[(id(node), index)] = (copy, index)

    def mutable(self, node):
        """Input positions the operator writes (its auxiliary states, MXNet's FMutateInputs)."""
        return set(range(len(node.op.arguments()), len(node.inputs))) if node.op.auxiliary_states() else set()

    def visit(self, node):
        if node.op is None:
            copy = Node(None, node.name, node.attrs)
            if node.name in self.policy.excluded:   # an excluded variable is taken as float32
                self.fp32[(id(node), 0)] = (copy, 0)
            return copy
        policy = self.policy
        name = _op_name(node)
        excluded = node.name in policy.excluded
        key = lambda entry: (id(entry[0]), entry[1])
        copy = Node(node.op, node.name, node.attrs)
        inputs = copy.inputs
        if name in policy.fp32_ops or excluded:
            for index in range(node.num_outputs()):
                self.fp32[(id(node), index)] = (copy, index)
            for entry in node.inputs:
                if key(entry) in self.fp32:
                    inputs.append(self.fp32[key(entry)])
                elif entry[0].op is None:
                    inputs.append(self.mirror_entry(entry))
                else:
                    inputs.append(self.add_cast(entry, "float32", self.fp32))
        elif name in policy.low_ops:
            in_types, out_types = _infer_outputs(node, self.target)
            self.record_outputs(node, copy, out_types)
            mutable = self.mutable(node)
            for position, entry in enumerate(node.inputs):
                given = in_types[position] if position < len(in_types) else None
                if key(entry) in self.low:
                    inputs.append(self.low[key(entry)])
                elif (self.cast_optional and entry[0].op is None and entry[0].name not in self.data_names) or \
                        position in mutable or not (given is None or np.dtype(given) == self.target):
                    inputs.append(self.mirror_entry(entry))
                    if self.cast_optional and entry[0].op is None:
                        self.low[key(entry)] = self.mirror_entry(entry)
                else:
                    inputs.append(self.add_cast(entry, self.target_name, self.low))
        elif name in policy.widest_ops:
            out_fp32 = False
            unknown = False
            for entry in node.inputs:
                if key(entry) not in self.low and key(entry) not in self.fp32:
                    unknown = True
                    break
                if key(entry) in self.fp32:
                    out_fp32 = True
            if unknown:
                first = node.inputs[0]
                op = get_operator("amp_multicast")({"num_outputs": str(len(node.inputs))})
                multicast = Node(op, f"{first[0].name}{_suffix(*first)}_amp_multicast",
                                 {"num_outputs": str(len(node.inputs))},
                                 [self.mirror_entry(entry) for entry in node.inputs])
                inputs.extend((multicast, index) for index in range(len(node.inputs)))
            else:
                known, dtype = (self.fp32, "float32") if out_fp32 else (self.low, self.target_name)
                for index in range(node.num_outputs()):
                    known[(id(node), index)] = (copy, index)
                for entry in node.inputs:
                    if key(entry) in known:
                        inputs.append(known[key(entry)])
                    else:
                        inputs.append(self.add_cast(entry, dtype, known))
        elif policy.conditional_match(name, node):
            for index in range(node.num_outputs()):
                self.fp32[(id(node), index)] = (copy, index)
            mutable = self.mutable(node)
            for position, entry in enumerate(node.inputs):
                if key(entry) in self.fp32:
                    inputs.append(self.fp32[key(entry)])
                elif position in mutable:
                    inputs.append(self.mirror_entry(entry))
                else:
                    inputs.append(self.add_cast(entry, "float32", self.fp32))
        else:
            if node.inputs and (key(node.inputs[0]) in self.fp32 or key(node.inputs[0]) in self.low):
                first_type = self.target if key(node.inputs[0]) in self.low else _FLOAT32
                self.record_outputs(node, copy, _infer_outputs(node, first_type)[1])
            inputs.extend(self.mirror_entry(entry) for entry in node.inputs)
        return copy

    def run(self, outputs):
        for node in topological_order(outputs):
            self.mirror[id(node)] = self.visit(node)
        result = []
        for node, index in outputs:
            if (id(node), index) in self.fp32:
                result.append(self.fp32[(id(node), index)])
            else:
                result.append(self.add_cast((node, index), "float32", self.fp32))
        return result


def _variable_dtypes(sym, data_names, target, cast_optional_params):
    """Each input variable's dtype after the pass: MXNet's type inference with the data inputs
    float32 (unknown: float32); with ``cast_optional_params`` a parameter of unknown type that
    only feeds casts to one dtype takes that dtype (MXNet's AMPInferUnknown)."""
    known = {name: "float32" for name in data_names}
    arg_types, _, aux_types = sym.infer_type_partial(**known)
    names = sym.list_arguments() + sym.list_auxiliary_states()
    types = dict(zip(names, list(arg_types) + list(aux_types)))
    if cast_optional_params:
        fed = {}
        for node in topological_order(sym._outputs):
            if node.op is None:
                continue
            if node.op.is_amp_cast and node.op.name == "amp_cast":
                for child, _ in node.inputs:
                    if child.op is None:
                        fed.setdefault(child.name, set()).add(node.attrs["dtype"])
            elif node.op.is_amp_cast and all(child.op is None for child, _ in node.inputs):
                for child, _ in node.inputs:
                    fed.setdefault(child.name, set()).add(target)
        for name, dtypes in fed.items():
            if types.get(name) is None and len(dtypes) == 1:
                types[name] = numpy_target(next(iter(dtypes)))
    return {name: (dtype if dtype is not None else _FLOAT32) for name, dtype in types.items()}


def reduce_precision(sym, policy, data_names, model_param_names, cast_optional_params):
    """``sym`` rewritten by the pass (see the module docstring); the variables named in
    ``model_param_names`` get a ``__dtype__`` attribute (MXNet's type flag) with their
    inferred dtype, a variable that already had one gets it updated."""
    converted = Symbol(_Pass(policy, data_names, cast_optional_params).run(sym._outputs))
    variables = [node for node in topological_order(converted._outputs) if node.op is None]
    params = set(model_param_names)
    declared = {node.name for node in variables if "__dtype__" in node.attrs}
    # MXNet infers the types from the data inputs alone (declared dtypes are not read); a graph
    # whose types conflict after the pass raises here, as there
    saved = {id(node): node.attrs.pop("__dtype__") for node in variables if "__dtype__" in node.attrs}
    dtypes = _variable_dtypes(converted, data_names, policy.target, cast_optional_params)
    for node in variables:
        if node.name in params or (not params and node.name in declared):
            node.attrs["__dtype__"] = str(dtype_flag(dtypes.get(node.name, _FLOAT32)))
        elif id(node) in saved:
            node.attrs["__dtype__"] = saved[id(node)]
    return converted
