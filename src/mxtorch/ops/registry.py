"""The operator registry: every MXNet operator is declared here once.

An operator is a subclass of :class:`Operator` decorated with
:func:`register`.  Its class body declares the attribute schema with
:class:`Attr` (types and MXNet's defaults); its methods give the argument
and auxiliary-state names, shape and dtype inference, and the computation in
PyTorch.  ``mx.sym.<Name>``, ``mx.nd.<Name>``, the JSON reader and the
executor are all generated from, or driven by, this registry.

Shapes during inference are tuples in which ``0`` marks an unknown
dimension (MXNet 1.x's convention) or ``None`` when nothing is known.
"""
from __future__ import annotations

import math
import re
import threading

import numpy as np
import torch

from ..recording import attach_carrier, carrier_dtype, differentiate, gradient_carrier, is_recording  # noqa: F401
from ..base import MXNetAssertionError, MXNetError, _Null, dtype_name, format_value, numpy_dtype
from ..schema import (REQUIRED, ArrayShape, Attr, Bool, Choice, Dtype, DtypeChoice, Float, FloatTuple, Int,
                      OptionalShape, SchemaError, Shape, Str, collect, optional, parse_params)

__all__ = ["Attr", "Operator", "register", "add_aliases", "get_operator", "list_operators", "REQUIRED",
           "Int", "Float", "Bool", "Str", "Shape", "ArrayShape", "OptionalShape", "FloatTuple", "Dtype", "DtypeChoice", "optional",
           "Choice",
           "known", "merge_shape", "uniform_dtype", "OperatorSchemaError", "fluent_operators"]


class OperatorSchemaError(SchemaError):
    """An attribute is unknown, missing or malformed."""


_REGISTRY = {}


def register(name, *aliases, fluent=False):
    """Class decorator: register an Operator under ``name`` and its ``aliases``.

    ``fluent``: the operator is also a method of NDArray and Symbol (``x.sum(axis=1)``) under
    ``name`` (True) or under the alias given."""
    def decorate(cls):
        cls.name = name
        cls.aliases = tuple(aliases)
        cls.fluent = (name if fluent is True else fluent) or None
        cls.schema = collect(cls)
        if "num_outputs" in cls.schema:
            # the attribute's class field hides the method: give the method its name back (the
            # parsed value lives in ``output_count``, see Operator.__init__)
            cls.num_outputs = Operator.num_outputs
        for key in (name,) + tuple(aliases):
            if key in _REGISTRY and _REGISTRY[key] is not cls:
                raise MXNetError(f"operator {key!r} is registered twice")
            _REGISTRY[key] = cls
        return cls
    return decorate


def add_aliases(name, *aliases, distinct=False):
    """Register more names for the operator already registered as ``name`` (MXNet's
    ``add_alias``: ``relu`` is also ``_npx_relu``, the name the NumPy front end's
    ``npx.relu`` calls).  ``distinct``: a node made under an alias is written to symbol JSON
    under it (``Operator.distinct_names``), as MXNet 1.9.1 wrote ``_npx_relu``."""
    cls = get_operator(name)
    if distinct:
        cls.distinct_names = tuple(cls.distinct_names) + tuple(a for a in aliases if a not in cls.distinct_names)
    for key in aliases:
        if key in _REGISTRY and _REGISTRY[key] is not cls:
            raise MXNetError(f"operator {key!r} is registered twice")
        _REGISTRY[key] = cls
    cls.aliases = tuple(cls.aliases) + tuple(a for a in aliases if a not in cls.aliases)
    return cls


def get_operator(name):
    """The Operator class registered under ``name``; MXNetError naming it if unknown."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise MXNetError(f"Operator {name!r} is not implemented in mxtorch") from None


def list_operators():
    """All registered names, aliases included."""
    return sorted(_REGISTRY)


def fluent_operators():
    """The names under which operators declared ``fluent`` are NDArray / Symbol methods."""
    return sorted({cls.fluent for cls in _REGISTRY.values() if cls.fluent})


def known(shape):
    """True when ``shape`` is fully known (no None, no 0 dimension)."""
    return shape is not None and all(d > 0 for d in shape)


def merge_shape(first, second, where=""):
    """Unify two partial shapes (0 = unknown dim); MXNetError naming ``where`` on conflict."""
    if first is None:
        return second
    if second is None:
        return first
    if len(first) != len(second):
        if not first:
            return second
        if not second:
            return first
        raise MXNetError(f"{where}: shape mismatch, {tuple(first)} vs {tuple(second)}")
    merged = []
    for a, b in zip(first, second):
        if a and b and a != b:
            raise MXNetError(f"{where}: shape mismatch, {tuple(first)} vs {tuple(second)}")
        merged.append(a or b)
    return tuple(merged)


def uniform_dtype(op, names, dtypes):
    """The one dtype of inputs that must all share it (the default rule of
    :meth:`Operator.infer_type`; ``dot``'s and ``FullyConnected``'s imperative checks), from
    ``dtypes`` (numpy or torch dtypes, None where unknown) of the inputs ``names``; None while none
    is known.  As MXNet 1.9.1 refused such inputs ("Incompatible attr ... expected int32, got
    float32"), two known dtypes that differ raise MXNetError naming the operator, both inputs and
    both dtypes (the symbolic and the imperative front end share this rule)."""
    known_dtypes = [dtype for dtype in dtypes if dtype is not None]
    if all(dtype == known_dtypes[0] for dtype in known_dtypes[1:]):
        return known_dtypes[0] if known_dtypes else None
    first = None
    for name, dtype in zip(names, dtypes):
        if dtype is None:
            continue
        if first is None:
            first = (name, dtype)
        elif dtype_name(dtype) != dtype_name(first[1]):
            raise op.error(f"inputs of different dtypes: {first[0]!r} is {dtype_name(first[1])}, "
                           f"{name!r} is {dtype_name(dtype)}; {op.name} needs one dtype for all "
                           f"its inputs (cast one with astype() or Cast)")
    return None if first is None else first[1]


class Operator:
    """Base of every operator declaration.

    Subclasses declare :class:`Attr` class attributes and override:

    - ``arguments()``: argument names (without the node-name prefix),
    - ``auxiliary_states()``: aux-state names (BatchNorm's moving statistics),
    - ``outputs()``: output names (``['output']`` by default),
    - ``infer_shape(in_shapes, out_shapes)``: refined ``(in_shapes, out_shapes,
      aux_shapes)`` from partial shapes,
    - ``infer_type(in_types)``: ``(in_types, out_types, aux_types)`` as numpy dtypes (default:
      one dtype for all; ``free_dtype_inputs`` names the arguments exempt from it),
    - ``forward(is_train, inputs, aux)``: output tensors from input tensors;
      aux tensors are updated in place,
    - ``backward(out_grads, inputs, outputs, aux)`` (optional): the gradient MXNet defines for
      this operator, one tensor (or None: no gradient) per input.  When it is declared, the
      registry runs ``forward`` inside one ``torch.autograd.Function`` whose backward calls it
      (see :meth:`apply`); otherwise autograd differentiates ``forward``.
      ``declares_backward(inputs)`` may restrict it to some attribute values or inputs.

    Callers run an operator with :meth:`apply`, never ``forward`` directly.

    ``is_loss`` marks the ``*Output`` heads whose backward ignores head gradients;
    ``is_amp_cast`` the casts MXNet's AMP pass inserts (``tojson(remove_amp_cast=True)`` drops them).
    ``variadic`` operators take any number of inputs, counted by ``num_args``.  An attribute
    declared as ``num_outputs`` is read as ``self.output_count`` (the method ``num_outputs()``
    keeps its name and counts ``outputs()``).
    ``distinct_names``: aliases that are separate operators in MXNet (``Convolution_v1``);
    a node created under one is written back to JSON under that name (``json_name``).
    """

    name = None
    aliases = ()
    schema = {}
    is_loss = False
    is_amp_cast = False
    fluent = None
    variadic = False
    hint = None
    distinct_names = ()
    # False for operators whose computation cannot be traced into TorchScript / ONNX
    # (mxtorch.export refuses them, quoting export_note)
    exportable = True
    export_note = ""
    # how the operator treats sparse (row_sparse / csr) inputs, MXNet's storage-type inference;
    # see :func:`output_storage_types`.  Operators that declare one form ``mx.nd.sparse`` and
    # ``mx.sym.sparse``.
    sparse_storage = None
    # whether the storage rule can give a sparse output (or refuse) when every input is dense
    # (cast_storage, _sparse_retain, dot's forward_stype, the csr graph operators); for every
    # other operator an imperative call on dense inputs skips the rule: its outputs are dense
    sparse_from_dense = False
    # the int8 operator that takes this one's place in a graph quantized by
    # mxnet.contrib.quantization (see quantized_operator), the inputs it takes as int8 (None:
    # all), and, on an int8 operator, whether its result is int32 and is requantized after it
    quantized_name = None
    quantized_inputs = None
    int32_output = False
    # the storage types of the inputs of an imperative call (None in a bound graph, which holds
    # dense arrays), for the few operators whose numbers depend on them (the lazy row-sparse
    # optimizer updates) or that need a sparse input (contrib.getnnz)
    input_storage = None
    # the stored structure of each input of an imperative call, for the operators that declare
    # ``uses_stored_parts``: a tuple of tensors (aux arrays then data, see ndarray.sparse) for a
    # sparse input whose stored entries were given explicitly (explicit zeros included), else
    # None.  Such an operator's forward may set ``output_parts`` (one tuple or None per visible
    # output), which the imperative call keeps as its sparse results' stored structure, as
    # MXNet's sparse kernels carried stored entries through.  Both stay None in a bound graph.
    uses_stored_parts = False
    # attribute names of older MXNet versions' symbol JSON: old name -> the name this version
    # reads it as, or None where MXNet ignores it (the JSON reader applies it)
    legacy_attributes = {}
    # True where MXNet's backward of the operator run in integer arithmetic gives zero
    # gradients (mod, lcm, the bitwise operators on integer arrays): integer variables then get
    # zeros instead of the derivative of the computation run again on their float values
    integer_gradient_zero = False
    input_parts = None
    output_parts = None
    # True where equal inputs and attributes always give equal outputs and the operator changes
    # nothing else (no randomness, no state, no aux update): the executor then computes one node
    # for several equal ones, as MXNet's common-subexpression elimination did.  Declared by the
    # operator families that qualify; the default keeps every node.
    deterministic = False
    # True for operators through which no gradient ever flows (BlockGrad): the executor records
    # no gradient for arguments that reach the outputs only through them
    stops_gradient = False
    # False for the operators MXNet 1.9.1 registered no gradient for (no FGradient: batch_take,
    # _histogram): binding a graph that needs a gradient through one raises MXNetError, as MXNet
    # refused it ("non-differentiable"); behind BlockGrad, or with grad_req 'null', they bind
    has_gradient = True

    def __init__(self, attrs=None, **kwargs):
        given = dict(attrs or {})
        given.update(kwargs)
        # MXNet 1.9.1 checks attribute names only of operators that have parameters; one
        # without any (broadcast_maximum, relu) keeps unknown ones in its JSON and ignores them
        # (here with a warning)
        lenient = not self.schema
        values = parse_params(self.schema, given, f"Operator {self.name}", "attribute",
                              unknown="warn" if lenient else "raise", error=OperatorSchemaError, stacklevel=4)
        for key, value in values.items():
            # MXNet's ``num_outputs`` attribute (SliceChannel, amp_multicast, the subgraph
            # operators) is kept as ``output_count``: ``num_outputs()`` is the method every
            # operator has, counting ``outputs()``
            setattr(self, "output_count" if key == "num_outputs" else key, value)
        # the attributes as given, written back to JSON unchanged
        self.attrs = {key: value if isinstance(value, str) else format_value(value)
                      for key, value in given.items()
                      if key in self.schema or (lenient and not (key.startswith("__") and key.endswith("__")))}
        self.validate()

    @property
    def json_name(self):
        """The operator name written to symbol JSON."""
        return self.__dict__.get("_json_name", self.name)

    def use_name(self, op_name):
        """Record the name the operator was created under, when MXNet keeps it in JSON."""
        if op_name in self.distinct_names:
            self._json_name = op_name
        return self

    def validate(self):
        """Check attribute combinations; raise OperatorSchemaError."""

    def error(self, message):
        return MXNetError(f"Operator {self.name}: {message}")

    # -- graph interface --------------------------------------------------------------------
    def arguments(self):
        if self.variadic:
            return [f"arg{i}" for i in range(self.num_args)]
        return ["data"]

    def auxiliary_states(self):
        return []

    lists_input_names = True
    """MXNet registered the operator's input names (nnvm ``FListInputNames``): the executor's
    ``monitor_all`` callback names an input ``<node>_<argument>`` (``fc_weight``).  False for the
    operators MXNet 1.9.1 registered without them (unary math, reductions, reshapes, Activation,
    Cast, ...), whose inputs it reported as ``<node>_input0``, ``<node>_input1``."""

    def monitor_input_names(self):
        """The names ``monitor_all`` gives the inputs, arguments then auxiliary states."""
        names = list(self.arguments()) + list(self.auxiliary_states())
        return names if self.lists_input_names else [f"input{index}" for index in range(len(names))]

    def outputs(self):
        return ["output"]

    def num_outputs(self):
        return len(self.outputs())

    def num_visible_outputs(self):
        return self.num_outputs()

    def infer_shape(self, in_shapes, out_shapes):
        """Default: every input and output has one common shape (elementwise ops)."""
        shape = None
        for s in list(in_shapes) + list(out_shapes):
            shape = merge_shape(shape, s, f"Operator {self.name}")
        return [shape] * len(in_shapes), [shape] * len(out_shapes), []

    free_dtype_inputs = ()
    """Names of the arguments whose dtype the default :meth:`infer_type` leaves to the caller:
    the indices, sizes and shape templates of the operators that MXNet 1.9.1 let take any dtype
    there (``fill_element_0index``'s ``rhs``, ``contrib.BilinearResize2D``'s ``like``).  Such an
    input keeps its own dtype, is not checked against the others and does not decide the output
    dtype.  May be a property where it depends on attributes.  This is the one opt-out of the
    uniform rule; an operator whose dtypes follow another rule overrides ``infer_type``."""

    def infer_type(self, in_types):
        """Default: MXNet 1.9.1's uniform rule (``ElemwiseType``): every argument, output and
        auxiliary state has one dtype, the one known argument dtype; two known arguments of
        different dtypes raise the MXNetError of :func:`uniform_dtype` naming the operator, both
        inputs and both dtypes (MXNet: "Incompatible attr in node ... at 1-th input: expected
        int32, got float32").  The arguments named in ``free_dtype_inputs`` keep their own
        dtype (None while unknown)."""
        free = self.free_dtype_inputs
        names = list(self.arguments())
        names += [f"input{index}" for index in range(len(names), len(in_types))]
        checked = [(name, dtype) for name, dtype in zip(names, in_types) if name not in free]
        dtype = uniform_dtype(self, [name for name, _ in checked], [t for _, t in checked])
        if dtype is not None and not isinstance(dtype, np.dtype):
            dtype = np.dtype(numpy_dtype(dtype))
        inputs = [given if name in free else dtype for name, given in zip(names, in_types)]
        return inputs, [dtype] * self.num_outputs(), [dtype] * len(self.auxiliary_states())

    def forward(self, is_train, inputs, aux):
        raise NotImplementedError(f"Operator {self.name} has no forward")

    backward = None

    def quantized_operator(self):
        """The name of the int8 operator replacing this node in a quantized graph, or None."""
        return self.quantized_name

    def quantized_input_positions(self, granularity="tensor-wise"):
        """The positions (in symbol JSON's input order) of the inputs the int8 operator takes
        quantized, with their ranges appended after all inputs (MXNet's quantization pass;
        the others stay float, MXNet's ``FAvoidQuantizeInput``).  Default: the inputs named in
        ``quantized_inputs``, or all of them."""
        names = list(self.arguments())
        wanted = self.quantized_inputs or names
        return {position for position, name in enumerate(names) if name in wanted}

    def quantized_attributes(self, attrs, granularity="tensor-wise"):
        """The attributes of the int8 node made from a node with ``attrs`` (default: the same)."""
        return attrs

    def json_input_order(self):
        """None when symbol JSON lists the node's inputs as mxtorch does (arguments, then
        auxiliary states); otherwise, for each input in MXNet's order (its ``FListInputNames``,
        where an auxiliary state may come before an argument, as in ``_sg_mkldnn_conv``), its
        position in ``arguments() + auxiliary_states()``.  The JSON reader and writer map the
        two orders with it."""
        return None

    def declares_backward(self, inputs):
        """Whether :meth:`backward` gives this call's gradient (default: when it is defined)."""
        return self.backward is not None

    def apply(self, is_train, inputs, aux):
        """Run the operator: ``forward``, and when torch is recording a gradient for some input,
        recorded as MXNet records it (see :func:`record_call`): through the declared
        ``backward`` where one is declared, and through integer inputs and outputs (their
        gradient carriers).  Returns the output tensors."""
        if not torch.is_grad_enabled():
            return self.forward(is_train, inputs, aux)
        declared = self.backward is not None and self.declares_backward(inputs)
        return record_call(self, is_train, inputs, aux, declared)

    # -- what the executor's plan passes ask (executor/inference.py, executor/fusion.py) ----------
    # A pass rewrites the plan from these declarations, never from operator names.
    traceable = False
    """The inference forward (``is_train=False``) is a fixed sequence of torch operations for
    fixed input shapes: no host values, no randomness, no Python callbacks, so
    ``torch.jit.trace`` records the whole computation.  May be a property (Dropout)."""

    is_convolution = False
    """A (de)convolution.  The inference plan traces only graphs that have one: what tracing
    gains over the eager plan is oneDNN convolutions with fused activations."""

    def activation_kind(self):
        """The elementwise activation this node applies to its one input ('relu', 'sigmoid',
        'tanh', 'softrelu', ...), or None."""
        return None

    def arithmetic_kind(self):
        """'add' / 'multiply' when the output is the elementwise sum / product of two inputs
        of one shape (no broadcasting), 'one_minus' when it is ``1 - data``; else None."""
        return None

    def split_sections(self):
        """``(sections, axis)`` when the outputs are ``data`` cut into ``sections`` equal parts
        along ``axis`` (the axis kept); else None."""
        return None

    def dense_units(self):
        """``num_hidden`` when the output is ``data @ weight.T (+ bias)`` for 2-D ``data``,
        arguments ``data, weight (num_hidden, rows)[, bias (num_hidden,)]``; else None."""
        return None

    def channel_linear_rank(self):
        """The output rank when the output is linear in ``weight`` (argument 1, output channels
        on its axis 0) plus an optional per-channel ``bias`` (argument 2), channels on output
        axis 1; else None.  A per-channel affine map that follows folds into weight and bias
        (:meth:`with_bias` gives the operator taking the folded bias)."""
        return None

    def with_bias(self):
        """The same operator with a ``bias`` argument (for :meth:`channel_linear_rank`)."""
        raise self.error("has no bias argument to take a folded normalisation")

    def channel_affine(self):
        """``(axis, eps, fix_gamma)`` when at inference the only output used is
        ``(data - mean) / sqrt(var + eps) * gamma + beta`` per channel along ``axis``, with
        arguments ``data, gamma, beta`` and aux states ``mean, var`` (gamma taken as 1 with
        ``fix_gamma``); else None."""
        return None

    def pointwise_fusion(self):
        """How oneDNN runs this node with the activation that follows it, for float32 CPU
        inference: ``('inner_product', {})`` (a dense layer on the flattened data) or
        ``('convolution2d', {'padding', 'stride', 'dilation', 'groups'})`` (a 2-D
        convolution, arguments data, weight[, bias]); else None."""
        return None

    # -- how mx.viz draws and counts the node ----------------------------------------------------
    plot_input_count = None
    """How many inputs ``mx.viz.plot_network`` draws edges from (None: all)."""

    def plot_label(self, op_name, node_name):
        """``(label, kind)`` of this node in ``mx.viz.plot_network``; kind is one of 'weighted',
        'activation', 'normalization', 'pooling', 'reshaping', 'softmax', 'other' (the colour).
        ``op_name`` is the name the node is written under in JSON."""
        return node_name, "other"

    def summary_parameters(self, input_channels, output_shape):
        """Learned values ``mx.viz.print_summary`` counts for this layer, given the summed axis-1
        size of its layer inputs (0 without shapes) and its output shape (None without)."""
        return 0

    def attr_digits(self, key):
        """The numbers written in a given tuple attribute: ``"(3, 3)"`` -> ``['3', '3']``."""
        return re.findall(r"\d+", self.attrs[key])

    def gradient_storage_types(self, input_stypes):
        """The storage types of the gradients of the inputs for inputs of storage types
        ``input_stypes`` (MXNet's backward FInferStorageType), or None: all 'default' (dense).
        Embedding with ``sparse_grad`` and ``dot(csr, w)`` give a row_sparse weight gradient;
        ``executor/storage.py`` reads it when a graph is bound."""
        return None

    def on_plain_memory(self):
        """The operator a graph traced for oneDNN's blocked memory formats runs in its place:
        itself, or (``memory_format.ChannelsLastKernels``) a copy that computes on the memory
        format of its inputs instead of copying them to channels-last."""
        return self

    # -- misc -------------------------------------------------------------------------------
    def __repr__(self):
        return f"{self.name}({', '.join(f'{k}={v}' for k, v in self.attrs.items())})"


STORAGE_TYPES = ("default", "row_sparse", "csr")


def output_storage_types(op, input_stypes):
    """The storage types of ``op``'s visible outputs for inputs of storage types ``input_stypes``
    (MXNet's FInferStorageType), from the operator's ``sparse_storage`` declaration:

    - ``None``: no sparse form; sparse inputs are computed densely and every output is
      'default' (MXNet's storage fallback);
    - ``'dense'``: a sparse form (listed in ``mx.nd.sparse``) whose outputs are 'default';
    - ``'preserve'``: outputs take the first input's storage type (zero-preserving functions
      such as ``sqrt``, ``relu``, and the updates, whose output is the new ``weight``);
    - a function ``(op, input_stypes) -> list of storage types``; it raises MXNetError for
      combinations MXNet refuses.
    """
    rule = type(op).sparse_storage
    count = op.num_visible_outputs()
    if not op.sparse_from_dense and all(stype == "default" for stype in input_stypes):
        return ["default"] * count
    if rule is None or rule == "dense":
        return ["default"] * count
    if rule == "preserve":
        return [input_stypes[0] if input_stypes else "default"] * count
    return list(rule(op, list(input_stypes)))


def sparse_operator_names():
    """``{short_name: operator_name}`` of ``mx.nd.sparse`` / ``mx.sym.sparse``: every operator that
    declares ``sparse_storage``, under its names that are public in MXNet (no leading underscore,
    or a ``_contrib_`` name) and under the ``_sparse_`` aliases without their prefix."""
    result = {}
    for key, cls in _REGISTRY.items():
        if cls.sparse_storage is None:
            continue
        if key.startswith("_sparse_"):
            result[key[len("_sparse_"):]] = key
        elif not key.startswith("_") or key.startswith("_contrib_"):
            result.setdefault(key, key)
    return result


def _is_differentiable(tensor):
    return tensor.is_floating_point() or tensor.is_complex()


def record_call(computation, is_train, inputs, aux, declared=False):
    """``computation.forward(is_train, inputs, aux)`` (a list of output tensors) run while torch
    records gradients, recorded the way MXNet recorded an operator:

    - ``declared``: inside one ``torch.autograd.Function`` whose backward is the computation's
      own ``backward(out_grads, inputs, outputs, aux)``;
    - an integer input with a gradient carrier (an integer variable, or the integer output of
      a recorded operator): inside the same Function, whose backward differentiates the
      forward run again on the float values of the integer inputs (torch cannot differentiate
      integer tensors); the gradient reaches the input's carrier;
    - otherwise torch's autograd records ``forward`` directly.

    For imperative calls, :func:`attach_zero_carriers` then gives outputs that torch records
    no gradient for (integer outputs, ``argsort``'s float indices) a carrier (float zeros)
    whenever some input records a gradient: MXNet recorded every
    operator, so ``backward`` on the indices of ``topk`` or ``argsort`` is allowed and gives
    zero gradients.  Also used for the NDArray computations that are not registry operators
    (indexing, ``reshape`` views, ``astype``, ``concat``).
    """
    # the derivative through carried integer inputs is that of imperative calls inside
    # record(); a bound executor differentiates integer arguments only through declared
    # gradients (Cast), as before -- so an undeclared operator outside record() (every node of a
    # training executor's plan) runs its forward at once
    recording = is_recording()
    if not declared and not recording:
        return computation.forward(is_train, inputs, aux)
    carriers = [gradient_carrier(tensor) for tensor in inputs]
    carried = recording and any(c is not None and c is not t and c.requires_grad
                                for c, t in zip(carriers, inputs))
    if declared or carried:
        if not carried and not any(c is not None and c.requires_grad for c in carriers):
            return computation.forward(is_train, inputs, aux)
        info = {}
        results = _DeclaredGradient.apply(computation, is_train, aux, info, declared, len(inputs),
                                          *inputs, *carriers)
        outputs = list(results[:info["outputs"]])
        for position, carrier in zip(info["integer_outputs"], results[info["outputs"]:]):
            outputs[position]._mx_declared_gradient_carrier = carrier
        return outputs
    return computation.forward(is_train, inputs, aux)


def keep_carrier(source, copy):
    """``copy`` (a copy of the recorded integer result ``source``: a dense copy of a view) with
    ``source``'s gradient carrier, so the integer result stays differentiable."""
    carrier = getattr(source, "_mx_declared_gradient_carrier", None)
    if carrier is not None:
        copy._mx_declared_gradient_carrier = carrier
    return copy


def attach_zero_carriers(inputs, outputs, computation=None, is_train=False, n_args=None):
    """Give each output that torch records no gradient for (integer outputs; argsort's float
    indices) a carrier when some input records a gradient (imperative calls inside
    ``mx.autograd.record()``: see :func:`record_call`).  Without ``computation`` the carrier
    gives zero gradients.  With it (an Operator; ``inputs`` its arguments, then from position
    ``n_args`` its aux states) an integer output's carrier differentiates the computation run
    again with its integer casts kept float (``_GradientThroughIntegerCasts``): the gradient
    MXNet passes through ``sum(dtype='int32')`` or ``mean(dtype='int8')`` of float data; an output
    no differentiable path reaches (argmax, comparisons) still gets zeros."""
    if torch.is_grad_enabled() and any(not t.requires_grad and not hasattr(t, "_mx_declared_gradient_carrier")
                                       for t in outputs):
        recorded = [t for t in inputs if t is not None and gradient_carrier(t).requires_grad]
        recorded = [gradient_carrier(t) for t in recorded]
        for position, tensor in enumerate(outputs if recorded else ()):
            if not tensor.requires_grad and not hasattr(tensor, "_mx_declared_gradient_carrier"):
                if computation is not None and not _is_differentiable(tensor):
                    count = len(inputs) if n_args is None else n_args
                    carriers = [gradient_carrier(t) if t is not None else None for t in inputs[:count]]
                    tensor._mx_declared_gradient_carrier = _RecomputedCarrier.apply(
                        computation, is_train, list(inputs[count:]), position, tensor, count, *inputs[:count],
                        *carriers)
                else:
                    tensor._mx_declared_gradient_carrier = _ZeroGradient.apply(tensor, *recorded)
    return outputs


class _RecomputedCarrier(torch.autograd.Function):
    """The float carrier of integer output ``position`` of ``computation``: zeros in the forward
    pass; in the backward pass the computation run again (``_recomputed_gradients``) and
    differentiated with the carrier's gradient as that output's head gradient.  Arguments: the
    computation, is_train, aux, the position, the output, the number of inputs, the inputs,
    then one gradient carrier per input (the input itself when it is differentiable)."""

    @staticmethod
    def forward(ctx, op, is_train, aux, position, output, count, *tensors):
        inputs, carriers = list(tensors[:count]), list(tensors[count:])
        ctx.op, ctx.is_train, ctx.aux, ctx.position = op, is_train, aux, position
        ctx.carrier_inputs = [c is not None and c is not t for t, c in zip(inputs, carriers)]
        ctx.carrier_dtypes = [c.dtype if via else None for c, via in zip(carriers, ctx.carrier_inputs)]
        ctx.save_for_backward(*inputs)
        floating = next((t.dtype for t in carriers if t is not None and t.is_floating_point()),
                        carrier_dtype(output.dtype))
        return torch.zeros(output.shape, dtype=floating, device=output.device)

    @staticmethod
    def backward(ctx, grad):
        inputs = list(ctx.saved_tensors)
        out_grads = [None] * ctx.position + [grad]
        return (None,) * 6 + _input_gradients(inputs, _recomputed_gradients(ctx, inputs, out_grads),
                                              ctx.carrier_inputs)


def _input_gradients(inputs, grads, carrier_inputs):
    """The gradients a Function of inputs-then-carriers returns: each input's gradient (in its
    shape and dtype) at its own position, or, for an input reached through its carrier, at the
    carrier's position in float."""
    direct, carried = [], []
    for tensor, grad, via_carrier in zip(inputs, grads, carrier_inputs):
        if grad is not None and grad.shape != tensor.shape:
            grad = grad.reshape(tensor.shape)
        if via_carrier:
            direct.append(None)
            carried.append(None if grad is None else grad.float() if not grad.is_floating_point() else grad)
        else:
            direct.append(None if grad is None or not _is_differentiable(tensor) else grad.to(tensor.dtype))
            carried.append(None)
    return tuple(direct) + tuple(carried)


class _ZeroGradient(torch.autograd.Function):
    """A carrier for an output that no gradient passes through: zeros of its shape in float,
    recorded as computed from the inputs (so a ``backward`` from it reaches them and gives them
    zero gradients).  Arguments: the output, then the recorded inputs."""

    @staticmethod
    def forward(ctx, output, *inputs):
        ctx.count = len(inputs)
        floating = next((t.dtype for t in inputs if t.is_floating_point()), carrier_dtype(output.dtype))
        return torch.zeros(output.shape, dtype=floating, device=output.device)

    @staticmethod
    def backward(ctx, grad):
        return (None,) * (ctx.count + 1)


class _DeclaredGradient(torch.autograd.Function):
    """``computation.forward`` in the forward pass; in the backward pass its declared
    ``backward`` (``declared``) or the derivative of ``forward`` run again on float values.

    Arguments: the computation, is_train, the aux tensors, a dict receiving the output layout,
    ``declared``, the number of inputs, the inputs, then one gradient carrier per input (the
    input itself when it is differentiable).  Returns the outputs followed by one new float
    carrier per integer output (zeros whose gradient is that output's head gradient)."""

    @staticmethod
    def forward(ctx, op, is_train, aux, info, declared, count, *tensors):
        inputs = list(tensors[:count])
        outputs = list(op.forward(is_train, inputs, aux))
        floating = next((t.dtype for t in inputs if t is not None and t.is_floating_point()), None)
        integer_outputs = [i for i, t in enumerate(outputs) if not _is_differentiable(t)]
        carriers = [torch.zeros(outputs[i].shape, dtype=floating or carrier_dtype(outputs[i].dtype),
                                device=outputs[i].device)
                    for i in integer_outputs]
        info["outputs"] = len(outputs)
        info["integer_outputs"] = integer_outputs
        ctx.op, ctx.aux, ctx.count, ctx.num_outputs = op, aux, count, len(outputs)
        ctx.is_train, ctx.declared = is_train, declared
        ctx.integer_outputs = integer_outputs
        ctx.carrier_inputs = [tensors[count + i] is not None and tensors[count + i] is not tensors[i]
                              for i in range(count)]
        ctx.carrier_dtypes = [tensors[count + i].dtype if ctx.carrier_inputs[i] else None for i in range(count)]
        ctx.save_for_backward(*inputs, *outputs)
        if integer_outputs:
            ctx.mark_non_differentiable(*[outputs[i] for i in integer_outputs])
        return tuple(outputs) + tuple(carriers)

    @staticmethod
    def backward(ctx, *grads):
        saved = ctx.saved_tensors
        inputs, outputs = list(saved[:ctx.count]), list(saved[ctx.count:])
        out_grads = list(grads[:ctx.num_outputs])
        carried_grads = dict(zip(ctx.integer_outputs, grads[ctx.num_outputs:]))
        if ctx.declared:
            for position, carried in carried_grads.items():
                # the head gradient of an integer output has that output's dtype, as in MXNet
                out_grads[position] = _to_dtype(carried, outputs[position].dtype)
            out_grads = [torch.zeros_like(o) if g is None else g for g, o in zip(out_grads, outputs)]
            input_grads = list(ctx.op.backward(out_grads, inputs, outputs, ctx.aux))
        else:
            for position, carried in carried_grads.items():
                out_grads[position] = carried
            input_grads = _recomputed_gradients(ctx, inputs, out_grads)
        return (None,) * 6 + _input_gradients(inputs, input_grads, ctx.carrier_inputs)


def _recomputed_gradients(ctx, inputs, out_grads):
    """The gradients of a computation without a declared backward: its forward run again with
    its differentiable inputs and its carried integer inputs (as float values of their
    carrier's dtype) as fresh leaves, differentiated by torch with ``out_grads``.  Aux states
    are passed as copies, so they are not updated twice."""
    if getattr(ctx.op, "integer_gradient_zero", False) and any(ctx.carrier_inputs):
        return [None] * len(inputs)
    with torch.enable_grad():
        leaves, arguments = [], []
        for tensor, via_carrier, dtype in zip(inputs, ctx.carrier_inputs, ctx.carrier_dtypes):
            if tensor is not None and (via_carrier or _is_differentiable(tensor)):
                tensor = tensor.detach().to(dtype if via_carrier else tensor.dtype).requires_grad_(True)
                leaves.append(tensor)
            arguments.append(tensor)
        try:
            # an operator that casts to an integer dtype (sum(dtype='int32'), astype) cuts torch's
            # gradient; MXNet's casts pass it through, so the recomputation keeps them float
            with _GradientThroughIntegerCasts():
                outputs = ctx.op.forward(ctx.is_train, arguments, [t.clone() for t in ctx.aux])
        except (RuntimeError, TypeError, IndexError):  # integers needed as such (indices): a plain run
            outputs = ctx.op.forward(ctx.is_train, arguments, [t.clone() for t in ctx.aux])
        pairs = [(o, g) for o, g in zip(outputs, out_grads) if g is not None and o.requires_grad]
        if not pairs or not leaves:
            return [None] * len(inputs)
        grads = iter(differentiate([o for o, _ in pairs], leaves, [g.to(o.dtype) for o, g in pairs],
                                   create_graph=torch.is_grad_enabled()))
    return [next(grads) if t is not None and t.requires_grad else None for t in arguments]


class _GradientThroughIntegerCasts:
    """Scope of a gradient recomputation (``_recomputed_gradients``) in which :func:`_to_dtype`
    casts a float tensor that records a gradient to an integer dtype as the truncated values
    in float, with an identity gradient: MXNet's casts pass the head gradient through, torch's
    integer tensors cut it."""

    _state = threading.local()

    def __enter__(self):
        self._previous = getattr(self._state, "active", False)
        self._state.active = True

    def __exit__(self, *exc):
        self._state.active = self._previous

    @classmethod
    def active(cls):
        return getattr(cls._state, "active", False)


def _to_dtype(tensor, dtype):
    """``tensor`` converted as MXNet's Cast converts: float to integer truncates toward zero.
    Inside a gradient recomputation the cast of a recorded float tensor stays float (see
    ``_GradientThroughIntegerCasts``)."""
    if tensor.is_floating_point() and not (dtype.is_floating_point or dtype.is_complex) and dtype != torch.bool:
        if tensor.requires_grad and _GradientThroughIntegerCasts.active():
            return tensor + (tensor.detach().trunc() - tensor.detach())
        return tensor.trunc().to(torch.int64).to(dtype)
    return tensor.to(dtype)


def upcast_half(tensor):
    """``tensor`` in float32 when it is float16/bfloat16 (to compute a reduction precisely), else
    itself; callers cast results back to the input dtype."""
    import torch
    return tensor.float() if tensor.dtype in (torch.float16, torch.bfloat16) else tensor


def product(values):
    return int(math.prod(values))


def positional_attributes(op_class, values, op_name=None, input_kind=None, foreign=(), first_position=0):
    """Map positional values that follow an operator's inputs to its attributes, in the
    order the schema declares them (MXNet's generated functions take ``clip(x, 0, 1)``), or in
    the operator's ``positional_order`` where its class hierarchy declares them in another order.

    ``values`` starts at positional index ``first_position``.  With ``input_kind`` (the front
    end's input type name, 'NDArray' or 'Symbol'), a first value that is an input of the other
    front end (an instance of ``foreign``), or any value for an operator without attributes,
    was meant as an input: MXNetAssertionError (MXNet's AssertionError "Argument data must
    have NDArray type") naming the operator, the input, the expected and the given type."""
    keys = list(getattr(op_class, "positional_order", None) or op_class.schema)
    if input_kind is not None and values and (isinstance(values[0], foreign) or not keys):
        try:
            names = op_class({}).arguments()
        except Exception:
            names = []
        label = repr(names[first_position]) if first_position < len(names) else f"at position {first_position}"
        given = repr(values[0]).replace("\n", " ")
        raise MXNetAssertionError(f"Operator {op_name or op_class.name}: input {label} must be "
                                  f"{'an' if input_kind[0] in 'AEINOU' else 'a'} {input_kind}, "
                                  f"but got {type(values[0]).__name__} {given[:80]}")
    if len(values) > len(keys):
        raise MXNetError(f"Operator {op_name or op_class.name}: {len(values)} positional attribute values for "
                         f"{len(keys)} attributes {keys}")
    return dict(zip(keys, values))


def _input_names(op_class, kwargs, is_input):
    """The input names (arguments, then auxiliary states) of ``op_class`` configured by the
    attribute values among ``kwargs``, or by its defaults; [] when neither configures it."""
    given = {key: value for key, value in kwargs.items() if key in op_class.schema and value is not None
             and value is not _Null and not is_input(value)}
    for attrs in (given, {}):
        try:
            op = op_class(attrs)
            return list(op.arguments()) + list(op.auxiliary_states())
        except Exception:
            continue
    return []


def refuse_non_input_values(op_class, op_name, args, kwargs, is_input, input_kind, eager=False):
    """MXNetAssertionError (MXNet 1.9.1's generated functions raised AssertionError "Argument
    data must be Symbol instances" / "must have NDArray type") when an input of a front-end call
    ``Op(*args, **kwargs)`` is given a value for which ``is_input`` fails: a keyword naming an
    input (``FullyConnected(data=5)``), or a first positional value of an operator whose first
    parameter is an input (``FullyConnected(5, num_hidden=2)``).  None and ``_Null`` still mean
    "not given".  The message names the operator, the argument, ``input_kind`` ('Symbol',
    'NDArray') and the value given.

    ``eager`` (before the operator is built) checks only what building it would not refuse:
    the first positional value, and keywords of an operator without an attribute schema (which
    ignores unknown attributes); call it again without ``eager`` when building the operator
    finds an unknown attribute."""
    def given(value):
        return value is not None and value is not _Null and not is_input(value)

    suspects = [key for key, value in kwargs.items() if key not in op_class.schema and given(value)]
    if eager and op_class.schema:
        suspects = []
    first = bool(args) and not op_class.variadic and given(args[0]) and not isinstance(args[0], (list, tuple))
    if not suspects and not first:
        return
    names = _input_names(op_class, kwargs, is_input)
    offenders = [key for key in suspects if key in names]
    if first and names and names[0] not in kwargs:
        offenders.insert(0, names[0])
        kwargs = {**kwargs, names[0]: args[0]}
    if offenders:
        value = kwargs[offenders[0]]
        shown = repr(value).replace("\n", " ")
        article = "an" if input_kind[0] in "AEINOU" else "a"
        raise MXNetAssertionError(f"Operator {op_name or op_class.name}: argument {offenders[0]!r} must be "
                                  f"{article} {input_kind}, but got {type(value).__name__} {shown[:80]}")


def split_call_arguments(op_class, args, attrs, is_input, input_kind, foreign, op_name=None):
    """The inputs of a front-end call ``Op(*args, **attrs)`` (``mx.nd.X`` / ``mx.sym.X``), with the
    positional attribute values among ``args`` moved into ``attrs`` (which is updated).

    A single list or tuple is the inputs of a variadic operator.  The leading values for which
    ``is_input`` holds, or that are None ("not given", ``FullyConnected(x, w, None,
    no_bias=True)``), are the inputs, without trailing Nones; the values after them are
    attributes in declaration order (:func:`positional_attributes`; ``input_kind`` and
    ``foreign`` as there).  MXNetError when an attribute is given both ways.  ``base._Null``
    (MXNet's "not given" default, which wrappers pass on) counts as not given, as in MXNet's
    generated functions: such attributes are dropped and such inputs are None."""
    for key in [key for key, value in attrs.items() if value is _Null]:
        del attrs[key]
    args = tuple(None if value is _Null else value for value in args)
    if len(args) == 1 and isinstance(args[0], (list, tuple)) and op_class.variadic:
        args = tuple(args[0])
    count = 0
    while count < len(args) and (is_input(args[count]) or args[count] is None):
        count += 1
    inputs, rest = tuple(args[:count]), tuple(args[count:])
    while inputs and inputs[-1] is None:
        inputs = inputs[:-1]
    if rest and not op_class.variadic:
        for key, value in positional_attributes(op_class, rest, op_name, input_kind, foreign, len(inputs)).items():
            if key in attrs:
                raise MXNetError(f"Operator {op_name or op_class.name}: attribute {key!r} given twice")
            attrs[key] = value
        rest = ()
    return inputs + rest, attrs


# front-end namespaces: mx.nd.linalg.gemm2 is the operator _linalg_gemm2, and so on
NAMESPACE_PREFIXES = {"linalg": ("_linalg_",), "contrib": ("_contrib_",), "random": ("_random_", "_sample_"),
                      "image": ("_image_",), "sparse": ("_sparse_",)}


def expose_namespaces(package, names):
    """Make the generated operator namespaces of ``package`` (``mxtorch.ndarray``,
    ``mxtorch.symbol``) importable under MXNet's submodule names (``mxnet.ndarray.contrib``,
    ``mxnet.symbol.op``, ...): each object in ``names`` (a dict name -> namespace) is entered in
    ``sys.modules`` as ``package.name`` unless a real module of that name exists."""
    import sys
    import types
    for name, namespace in names.items():
        if f"{package}.{name}" in sys.modules:
            continue
        if not isinstance(namespace, types.ModuleType):
            namespace.__name__ = f"{package}.{name}"   # what an imported module reports
        sys.modules[f"{package}.{name}"] = namespace


def namespace_operators(namespace):
    """``{short_name: operator_name}`` for a front-end namespace (linalg, contrib, random, ...).

    For ``random`` the ``_random_`` form (scalar parameters) wins over ``_sample_`` (array
    parameters); the front end picks ``_sample_`` when arrays are passed.
    """
    if namespace == "sparse":
        return sparse_operator_names()
    result = {}
    for prefix in reversed(NAMESPACE_PREFIXES[namespace]):
        for name in _REGISTRY:
            if name.startswith(prefix):
                result[name[len(prefix):]] = name
    if namespace == "random" and "_shuffle" in _REGISTRY:
        result["shuffle"] = "_shuffle"    # mx.nd.random.shuffle / mx.sym.random.shuffle
    return result
