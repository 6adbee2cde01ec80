"""DataParallelExecutorGroup: one executor per context, batches sliced along the batch axis.

Parameters are bound once per context; ``param_arrays`` / ``grad_arrays`` /
``aux_arrays`` are lists (one per parameter) of lists (one per context), MXNet's
layout, which the updater and the kvstore walk.

Besides MXNet's global data shapes (``[('data', (32, 3, 224, 224))]``, sliced by
``work_load_list``), the group accepts one list of shapes per context
(``[[('data', (1, 3, 600, 1000))], [('data', (1, 3, 800, 600))]]``), as
detection code binds one image size per device; a batch may then carry one
list of arrays per context.
"""
from __future__ import annotations

import logging
from collections import OrderedDict

import numpy as np
import torch

from ..base import MXNetAssertionError, MXNetError, MXNetValueError, numpy_dtype
from ..executor import Executor
from ..executor.binding import normalize_grad_req
from ..executor.placement import variable_contexts
from ..executor.storage import argument_storage_types, gradient_storage_types
from ..ndarray.ndarray import NDArray, to_torch_dtype
from ..ops.registry import known
from .batch import (DeviceBatch, as_ndarray, batch_size_of, loss_label_inputs, read_batch, split_batch,
                    split_labels)
# also a name MXNet 1.9.1's mxnet.module.executor_group had in its namespace (imported there, not defined)
from ..io import DataDesc

__all__ = ["DataParallelExecutorGroup", "is_per_device_shapes"]


def _split_input_slice(batch_size, work_load_list):
    """Slices of ``range(batch_size)`` proportional to ``work_load_list`` (MXNet's rounding)."""
    total = sum(work_load_list)
    counts = [round(work * batch_size / total) for work in work_load_list]
    if sum(counts) < batch_size:
        counts[-1] += batch_size - sum(counts)
    slices = []
    end = 0
    for count in counts:
        begin = int(min(end, batch_size))
        end = int(min(begin + count, batch_size))
        if begin >= end:
            raise MXNetValueError(f"work_load_list {work_load_list} splits a batch of {batch_size} into empty parts; "
                             f"use a larger batch or fewer contexts")
        slices.append(slice(begin, end))
    return slices


def is_per_device_shapes(shapes):
    """True for one list of (name, shape) per context, False for one global list."""
    if not shapes:
        return False
    first = shapes[0]
    if isinstance(first, (list, tuple)) and first and not isinstance(first[0], str):
        return True
    return False


def _as_descs(shapes):
    return [x if isinstance(x, DataDesc) else DataDesc(*x) for x in shapes]


def _prepare_group2ctxs(group2ctxs, count):
    """One ``group2ctx`` dict (or None) per context, from MXNet's accepted forms: None, a list
    with one dict per context, or one dict whose values are a Context (the same for every
    context) or a list of one Context or of ``count`` Contexts.  MXNetError otherwise."""
    from ..context import Context
    if group2ctxs is None:
        return [None] * count
    if isinstance(group2ctxs, (list, tuple)):
        if len(group2ctxs) != count:
            raise MXNetError(f"group2ctxs: a list needs one dict per context ({count}), got {len(group2ctxs)}")
        return list(group2ctxs)
    if not isinstance(group2ctxs, dict):
        raise MXNetError(f"group2ctxs: expected a dict or a list of dicts, got {type(group2ctxs).__name__}")
    result = [{} for _ in range(count)]
    for group, value in group2ctxs.items():
        if isinstance(value, Context):
            value = [value] * count
        elif isinstance(value, (list, tuple)) and len(value) == 1:
            value = list(value) * count
        if not isinstance(value, (list, tuple)) or len(value) != count:
            raise MXNetError(f"group2ctxs[{group!r}]: expected a Context or a list of 1 or {count} Contexts, "
                             f"got {value!r}")
        for index in range(count):
            result[index][group] = value[index]
    return result


def _merge_multi_context(outputs, major_axis):
    """Concatenate each output's per-device arrays along its batch axis."""
    merged = []
    for tensors, axis in zip(outputs, major_axis):
        if len(tensors) == 1:
            merged.append(tensors[0])
        elif axis >= 0:
            device = tensors[0]._tensor.device
            merged.append(NDArray(torch.cat([t._tensor.to(device) for t in tensors], dim=axis), tensors[0].context))
        else:
            merged.append(tensors[0])
    return merged


class DataParallelExecutorGroup:
    """Executors for ``contexts`` sharing one set of parameters (MXNet's executor group).

    ``grad_req`` is a str, a list (per argument) or a dict; parameters in
    ``fixed_param_names`` and inputs (unless ``inputs_need_grad``) get 'null'.
    ``shared_group`` shares parameter, gradient and aux arrays (bucketing), and its
    ``shared_data_arrays``: per context a dict name -> NDArray of the non-parameter arguments
    (inputs, states), reused where shape, dtype and context agree, as in MXNet.
    """

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names, for_training,
                 inputs_need_grad, shared_group=None, logger=logging, fixed_param_names=None, grad_req="write",
                 state_names=None, group2ctxs=None):
        self.param_names = param_names
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.symbol = symbol
        self.contexts = list(contexts)
        self.workload = list(workload) if workload else [1] * len(self.contexts)
        if len(self.workload) != len(self.contexts):
            raise MXNetError(f"work_load_list has {len(self.workload)} entries for {len(self.contexts)} contexts")
        self.group2ctxs = _prepare_group2ctxs(group2ctxs, len(self.contexts))
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.logger = logger
        self.fixed_param_names = list(fixed_param_names or [])
        self.state_names = list(state_names or [])
        self.shared_group = shared_group
        self._total_exec_bytes = 0
        self._last_pad = 0
        per_device = is_per_device_shapes(data_shapes)
        first_data = data_shapes[0] if per_device else data_shapes
        data_names = [x[0] for x in first_data]
        if not for_training:
            grad_req = "null"
        # one normalisation (executor.normalize_grad_req); a str applies to the parameters (not the
        # fixed ones) and, with inputs_need_grad, to the data; a dict overrides those defaults
        # ('write') by name; a list gives every argument's request in list_arguments() order
        if isinstance(grad_req, (str, dict)):
            default = grad_req if isinstance(grad_req, str) else "write"
            requests = {}
            for name in self.arg_names:
                if name in self.param_names:
                    requests[name] = "null" if name in self.fixed_param_names else default
                elif name in data_names:
                    requests[name] = default if self.inputs_need_grad else "null"
                else:
                    requests[name] = "null"
            if isinstance(grad_req, dict):
                requests.update(grad_req)
            grad_req = requests
        self.grad_req = normalize_grad_req(grad_req, self.arg_names)
        self.batch_size = None
        self.slices = None
        self.execs = []
        self._default_execs = None
        self.data_arrays = None
        self.shared_data_arrays = [{} for _ in self.contexts]
        self.label_arrays = None
        self.param_arrays = None
        self.state_arrays = None
        self.grad_arrays = None
        self.aux_arrays = None
        self.input_grad_arrays = None
        self.data_shapes = None
        self.label_shapes = None
        self.data_names = None
        self.label_names = None
        self.data_layouts = None
        self.label_layouts = None
        self.output_names = self.symbol.list_outputs()
        # each output's batch axis comes from its ``__layout__`` attribute ('TNC' -> 1), as in MXNet
        self.output_layouts = [DataDesc.get_batch_axis(self.symbol[index].attr("__layout__"))
                               for index in range(len(self.output_names))]
        self.num_outputs = len(self.output_names)
        # arguments that may change shape with the batch on reshape: the inputs, and the labels of
        # loss heads even when the module does not name them (label_names=None makes them
        # "parameters"; MXNet then refused any other batch size)
        self._batch_inputs = loss_label_inputs(symbol)
        self.per_device = False
        self.bind_exec(data_shapes, label_shapes, shared_group)

    # -- slicing -------------------------------------------------------------------------------------
    def decide_slices(self, data_shapes):
        """Batch size and per-context slices from the data shapes and the work load; returns
        the batch axis of each input."""
        if self.per_device:
            per_context = []
            major_axis = [DataDesc.get_batch_axis(x.layout) for x in data_shapes[0]]
            for shapes in data_shapes:
                sizes = {x.shape[axis] for x, axis in zip(shapes, major_axis) if axis >= 0}
                if len(sizes) > 1:
                    raise MXNetError(f"inputs of one context disagree on the batch size: {shapes}")
                per_context.append(sizes.pop() if sizes else 1)
            self.batch_size = sum(per_context)
            self.slices = []
            start = 0
            for count in per_context:
                self.slices.append(slice(start, start + count))
                start += count
            return major_axis
        major_axis = [DataDesc.get_batch_axis(x.layout) for x in data_shapes]
        for (name, shape), axis in zip([(x.name, x.shape) for x in data_shapes], major_axis):
            if axis == -1:
                continue
            batch_size = shape[axis]
            if self.batch_size is not None and batch_size != self.batch_size:
                raise MXNetError(f"all data must have the same batch size: batch_size = {self.batch_size}, "
                                 f"but {name} has shape {shape}")
            self.batch_size = batch_size
            self.slices = _split_input_slice(self.batch_size, self.workload)
        return major_axis

    def _sliced_shape(self, shapes, index, major_axis):
        if self.per_device:
            return list(shapes[index])
        sliced = []
        for desc, axis in zip(shapes, major_axis):
            shape = list(desc.shape)
            if axis >= 0:
                shape[axis] = self.slices[index].stop - self.slices[index].start
            sliced.append(DataDesc(desc.name, tuple(shape), desc.dtype, desc.layout))
        return sliced

    # -- binding ---------------------------------------------------------------------------------------
    def bind_exec(self, data_shapes, label_shapes, shared_group=None, reshape=False):
        """Bind (or, with ``reshape``, re-bind) one executor per context."""
        self.per_device = is_per_device_shapes(data_shapes)
        if self.per_device:
            if len(data_shapes) != len(self.contexts):
                raise MXNetError(f"bind: {len(data_shapes)} per-device data shape lists for "
                                 f"{len(self.contexts)} contexts")
            data_shapes = [_as_descs(shapes) for shapes in data_shapes]
            if label_shapes:
                if not is_per_device_shapes(label_shapes):
                    label_shapes = [list(label_shapes)] * len(self.contexts)
                label_shapes = [_as_descs(shapes) for shapes in label_shapes]
        else:
            data_shapes = _as_descs(data_shapes)
            label_shapes = _as_descs(label_shapes) if label_shapes else label_shapes
        self.batch_size = None
        self.data_layouts = self.decide_slices(data_shapes)
        first_labels = (label_shapes[0] if self.per_device else label_shapes) if label_shapes else None
        self._check_input_names(data_shapes[0] if self.per_device else data_shapes, "data")
        if first_labels:
            self._check_input_names(first_labels, "label")
            self.label_layouts = [DataDesc.get_batch_axis(x.layout) for x in first_labels]
            self._check_label_batch(data_shapes, label_shapes)
        else:
            self.label_layouts = None
        if not reshape:
            self.execs = []
            # per context, name -> array of the non-parameter arguments (MXNet's attribute)
            self.shared_data_arrays = shared_group.shared_data_arrays if shared_group is not None else \
                [{} for _ in self.contexts]
        for index in range(len(self.contexts)):
            data_i = self._sliced_shape(data_shapes, index, self.data_layouts)
            label_i = self._sliced_shape(label_shapes, index, self.label_layouts) if label_shapes else []
            if reshape:
                self.execs[index] = self._reshape_exec(index, data_i, label_i)
            else:
                self.execs.append(self._bind_ith_exec(index, data_i, label_i, shared_group))
        self.data_shapes = data_shapes
        self.label_shapes = label_shapes
        first_data = data_shapes[0] if self.per_device else data_shapes
        self.data_names = [x.name for x in first_data]
        self.label_names = [x.name for x in first_labels] if first_labels else []
        self._collect_arrays()

    def _check_input_names(self, descs, what):
        """MXNetError unless every name in ``descs`` (the data or label shapes given to bind) is an
        argument of the symbol.  MXNet 1.9.1 failed with a bare ``KeyError: 'lbl'`` here; a label
        the symbol does not read would otherwise leave its own label argument unfed (an iterator
        made with ``label_name='lbl'`` for a ``softmax_label`` graph trained on zeros)."""
        inputs = [name for name in self.arg_names
                  if not name.endswith(("_weight", "_bias", "_gamma", "_beta"))]
        for desc in descs:
            if desc.name not in self.arg_names:
                raise MXNetError(
                    f"bind: {what} {desc.name!r} (from {what}_shapes, e.g. the iterator's provide_{what}) "
                    f"is not an argument of the symbol; its inputs are {inputs}. Name the iterator's "
                    f"{what} after the symbol's (e.g. NDArrayIter(..., {what}_name=...)) or create the "
                    f"Module with {what}_names matching the symbol")

    def _check_label_batch(self, data_shapes, label_shapes):
        """MXNetError naming the label and both sizes unless every label in ``label_shapes`` has
        the data's batch size along its batch axis (per context for a per-device binding), as
        MXNet's decide_slices required."""
        pairs = zip(data_shapes, label_shapes) if self.per_device else [(data_shapes, label_shapes)]
        for data, labels in pairs:
            size = batch_size_of([(x.name, x.shape) for x in data], self.data_layouts, "data")
            for desc, axis in zip(labels, self.label_layouts):
                label_size = batch_size_of([(desc.name, desc.shape)], [axis], "label")
                if size is not None and label_size is not None and label_size != size:
                    raise MXNetAssertionError(f"bind: all data and labels must have the same batch size: label "
                                     f"{desc.name!r} has batch size {label_size} (shape {tuple(desc.shape)}), "
                                     f"the data {size}")

    def reshape(self, data_shapes, label_shapes):
        """Re-bind for new shapes, sharing parameters with the first binding."""
        if data_shapes == self.data_shapes and label_shapes == self.label_shapes:
            return
        if self._default_execs is None:
            self._default_execs = list(self.execs)
        self.bind_exec(data_shapes, label_shapes, reshape=True)

    def _infer(self, index, data_shapes, label_shapes):
        """One GraphInference (symbol/inference.py) of the graph for these input shapes and
        dtypes; the executor reuses it for its plan.  MXNetError when a shape is missing."""
        from ..symbol.inference import infer_graph
        input_shapes = {x.name: tuple(x.shape) for x in data_shapes + label_shapes}
        input_types = {x.name: numpy_dtype(x.dtype) for x in data_shapes + label_shapes if x.dtype is not None}
        try:
            inferred = infer_graph(self.symbol, input_shapes, input_types)
        except MXNetError as error:
            raise MXNetError(f"bind on {self.contexts[index]} with input shapes {input_shapes}: {error}") from None
        unknown = [n for n, s in zip(self.arg_names + self.aux_names, inferred.arg_shapes + inferred.aux_shapes)
                   if not known(s)]
        if unknown:
            raise MXNetError(f"bind: cannot infer the shapes of {unknown} from input shapes {input_shapes}")
        return inferred

    def _allocate(self, shape, dtype, context, stype="default"):
        tensor = torch.zeros(tuple(shape), dtype=to_torch_dtype(dtype), device=context.torch_device)
        self._total_exec_bytes += tensor.numel() * tensor.element_size()
        array = NDArray(tensor, context)
        return array if stype == "default" else array.tostype(stype)

    def _bind_ith_exec(self, index, data_shapes, label_shapes, shared_group):
        context = self.contexts[index]
        shared_exec = None if shared_group is None else shared_group.execs[index]
        inferred = self._infer(index, data_shapes, label_shapes)
        arg_shapes, aux_shapes = inferred.arg_shapes, inferred.aux_shapes
        arg_types = [t or np.float32 for t in inferred.arg_types]
        aux_types = [t or np.float32 for t in inferred.aux_types]
        shared_args = shared_exec.arg_dict if shared_exec is not None else {}
        shared_grads = shared_exec.grad_dict if shared_exec is not None else {}
        shared_aux = shared_exec.aux_dict if shared_exec is not None else {}
        group2ctx = self.group2ctxs[index]
        placement = variable_contexts(self.symbol, context, group2ctx) if group2ctx else {}
        # arguments declared stype='row_sparse' / 'csr' (a csr data input, a row_sparse weight)
        # report that storage type (held dense); gradients take MXNet's backward storage rules
        storage = argument_storage_types(self.symbol)
        grad_storage = gradient_storage_types(self.symbol, storage)
        shared_data = self.shared_data_arrays[index]
        args, grads = [], []
        for name, shape, dtype in zip(self.arg_names, arg_shapes, arg_types):
            shape = tuple(shape)
            where = placement.get(name, context)
            if name in self.param_names and name in shared_args and shared_args[name].shape == shape:
                array = shared_args[name]
            elif name not in self.param_names:
                # inputs and other non-parameter arguments live in shared_data_arrays, which a
                # shared group hands on (bucketing): an array of the right shape, dtype and
                # storage type is reused
                array = shared_data.get(name)
                if array is None or array.shape != shape or array.dtype != np.dtype(dtype) or \
                        array.context != where or array.stype != storage[name]:
                    array = self._allocate(shape, dtype, where, storage[name])
                    shared_data[name] = array
            else:
                array = self._allocate(shape, dtype, where, storage[name])
            args.append(array)
            if self.grad_req[name] == "null":
                grads.append(None)
            elif name in self.param_names and name in shared_grads and shared_grads[name].shape == shape \
                    and shared_grads[name].stype == grad_storage[name]:
                grads.append(shared_grads[name])
            else:
                grads.append(self._allocate(shape, dtype, where, grad_storage[name]))
        aux = []
        for name, shape, dtype in zip(self.aux_names, aux_shapes, aux_types):
            if name in shared_aux and shared_aux[name].shape == tuple(shape):
                aux.append(shared_aux[name])
            else:
                aux.append(self._allocate(shape, dtype, placement.get(name, context)))
        return Executor(self.symbol, context, args, grads, self.grad_req, aux, group2ctx=group2ctx,
                        inferred=inferred)

    def _reshape_exec(self, index, data_shapes, label_shapes):
        """An executor for new input shapes that shares every parameter, gradient and aux
        array of the first binding of context ``index``."""
        base = self._default_execs[index]
        context = self.contexts[index]
        inferred = self._infer(index, data_shapes, label_shapes)
        arg_shapes, aux_shapes = inferred.arg_shapes, inferred.aux_shapes
        arg_types = [t or np.float32 for t in inferred.arg_types]
        args, grads = [], []
        for position, (name, shape, dtype) in enumerate(zip(self.arg_names, arg_shapes, arg_types)):
            shape = tuple(shape)
            old = base.arg_arrays[position]
            old_grad = base.grad_arrays[position]
            if old.shape == shape:
                args.append(old)
                grads.append(old_grad)
                continue
            if name in self.param_names and name not in self._batch_inputs:
                raise MXNetError(f"reshape: parameter {name!r} would change shape from {old.shape} to {shape}; "
                                 f"the new input shapes {[(d.name, d.shape) for d in data_shapes]} do not fit "
                                 f"the bound parameters")
            args.append(self._allocate(shape, dtype, context, old.stype))
            grads.append(None if old_grad is None else self._allocate(shape, dtype, context, old_grad.stype))
        aux = []
        for name, shape, old in zip(self.aux_names, aux_shapes, base.aux_arrays):
            if old.shape != tuple(shape):
                raise MXNetError(f"reshape: auxiliary state {name!r} would change shape from {old.shape} "
                                 f"to {tuple(shape)}")
            aux.append(old)
        executor = Executor(self.symbol, context, args, grads, self.grad_req, aux, group2ctx=self.group2ctxs[index],
                            inferred=inferred)
        if base._monitor_callback is not None:
            executor.set_monitor_callback(base._monitor_callback, base._monitor_all)
        return executor

    def _collect_arrays(self):
        self.data_arrays = [[(self.slices[i], e.arg_dict[name]) for i, e in enumerate(self.execs)]
                            for name in self.data_names]
        self.state_arrays = [[e.arg_dict[name] for e in self.execs] for name in self.state_names]
        if self.label_names:
            self.label_arrays = [[(self.slices[i], e.arg_dict[name]) for i, e in enumerate(self.execs)]
                                 for name in self.label_names if name in self.arg_names]
        else:
            self.label_arrays = None
        self.param_arrays = [[e.arg_arrays[i] for e in self.execs]
                             for i, name in enumerate(self.arg_names) if name in self.param_names]
        if self.for_training:
            self.grad_arrays = [[e.grad_arrays[i] for e in self.execs]
                                for i, name in enumerate(self.arg_names) if name in self.param_names]
        else:
            self.grad_arrays = None
        if self.inputs_need_grad:
            self.input_grad_arrays = [[e.grad_arrays[self.arg_names.index(name)] for e in self.execs]
                                      for name in self.data_names if name in self.arg_names]
        else:
            self.input_grad_arrays = None
        self.aux_arrays = [[e.aux_arrays[i] for e in self.execs] for i in range(len(self.aux_names))]

    # -- parameters ------------------------------------------------------------------------------------
    def set_params(self, arg_params, aux_params, allow_extra=False):
        """Copy ``arg_params`` / ``aux_params`` into every context's executor."""
        for executor in self.execs:
            executor.copy_params_from(arg_params, aux_params, allow_extra_params=allow_extra)

    def get_params(self, arg_params, aux_params):
        """Average each parameter over the contexts into the given (CPU) dicts."""
        with torch.no_grad():
            for name, block in zip(self.param_names, self.param_arrays):
                _average_into(block, arg_params[name])
            for name, block in zip(self.aux_names, self.aux_arrays):
                _average_into(block, aux_params[name])

    # -- computation -----------------------------------------------------------------------------------
    def device_batch(self, data_batch):
        """The :class:`~mxtorch.module.batch.DeviceBatch` of a DataBatch (or a list of them), checked
        against the bound names and cut by this group's slices (see ``module/batch.py``)."""
        inputs = read_batch(data_batch, self.data_names, self.label_names, len(self.execs))
        return self._split(inputs)

    def _split(self, inputs):
        return split_batch(inputs, (self.data_names, self.label_names), self.slices, self.batch_size,
                           self.data_layouts, self.label_layouts)

    def _load(self, device_arrays, names, what):
        for context, arrays in enumerate(device_arrays):
            executor = self.execs[context]
            positions = executor._arg_positions
            for name, source in zip(names, arrays):
                position = positions.get(name)
                target = None if position is None else executor.arg_arrays[position]
                if target is None:
                    continue            # a label name the symbol does not read (warned at construction)
                if source.shape != target.shape:
                    raise MXNetError(f"forward: {what} {name!r} has shape {source.shape} on context "
                                     f"{self.contexts[context]}, the executor is bound with {target.shape}")
                with torch.no_grad():
                    target.use_storage(source._tensor)

    def forward(self, data_batch, is_train=None):
        """Load the batch into every executor and run forward.

        ``data_batch``: a DeviceBatch (what Module.forward passes), or any batch form that
        ``module/batch.py`` reads (a DataBatch of whole-batch arrays, cut here by context, a
        DataBatch of per-context lists, or a list of DataBatch, one per context)."""
        batch = data_batch if isinstance(data_batch, DeviceBatch) else self.device_batch(data_batch)
        self._load(batch.data, self.data_names, "data")
        if batch.label is not None and self.label_names:
            self._load(batch.label, self.label_names, "label")
        if is_train is None:
            is_train = self.for_training
        self._last_pad = batch.pad
        for executor in self.execs:
            executor.forward(is_train=is_train)

    def get_output_shapes(self):
        """``[(name, shape)]`` of the merged outputs."""
        shapes = [out.shape for out in self.execs[0].outputs]
        result = []
        for name, shape, axis in zip(self.output_names, shapes, self.output_layouts):
            shape = list(shape)
            if axis >= 0 and not self.per_device:
                shape[axis] = self.batch_size
            result.append((name, tuple(shape)))
        return result

    def get_outputs(self, merge_multi_context=True, begin=0, end=None):
        """Outputs, merged over contexts (list of NDArray) or per output per context."""
        if end is None:
            end = self.num_outputs
        outputs = [[e.outputs[i] for e in self.execs] for i in range(begin, end)]
        if merge_multi_context:
            outputs = _merge_multi_context(outputs, self.output_layouts)
        return outputs

    def get_states(self, merge_multi_context=True):
        if not merge_multi_context:
            return self.state_arrays
        return _merge_multi_context(self.state_arrays, [0] * len(self.state_arrays))

    def set_states(self, states=None, value=None):
        """Set the state inputs from per-context arrays or to a constant ``value``."""
        if states is not None:
            if value is not None:
                raise MXNetError("set_states: give either states or value, not both")
            for targets, sources in zip(self.state_arrays, states):
                for target, source in zip(targets, sources):
                    target[:] = source
        else:
            if value is None:
                raise MXNetError("set_states: give states or value")
            for targets in self.state_arrays:
                for target in targets:
                    target[:] = value

    def get_input_grads(self, merge_multi_context=True):
        if not self.inputs_need_grad:
            raise MXNetError("get_input_grads: bind with inputs_need_grad=True first")
        if merge_multi_context:
            return _merge_multi_context(self.input_grad_arrays, self.data_layouts)
        return self.input_grad_arrays

    def backward(self, out_grads=None):
        """Backward on every executor; head gradients are sliced like the batch."""
        if not self.for_training:
            raise MXNetError("backward: the module is bound with for_training=False; re-bind for training")
        if out_grads is None:
            out_grads = []
        elif not isinstance(out_grads, (list, tuple)):
            out_grads = [out_grads]
        for index, (executor, part) in enumerate(zip(self.execs, self.slices)):
            sliced = []
            for grad, axis in zip(out_grads, self.output_layouts):
                grad = as_ndarray(grad)
                if axis >= 0 and len(self.execs) > 1:
                    sliced.append(NDArray(grad._tensor.narrow(axis, part.start, part.stop - part.start)
                                          .to(self.contexts[index].torch_device), self.contexts[index]))
                else:
                    sliced.append(grad.as_in_context(self.contexts[index]))
            executor.backward(out_grads=sliced or None)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` per context with that context's labels and outputs; whole-batch
        ``labels`` are cut along their layouts' batch axes like a batch (``module/batch.py``).

        The padding rows of the last forwarded batch (``DataBatch.pad``) are left out
        (mxtorch; MXNet counted them)."""
        real_rows = self.batch_size - self._last_pad if self._last_pad else None
        per_context = split_labels(labels, self.label_names, self.label_layouts, self.slices, self.batch_size,
                                   pre_sliced or self.per_device)
        label_axes = self.label_layouts or [0] * len(self.label_names)
        for executor, part, labels_slice in zip(self.execs, self.slices, per_context):
            predictions = list(executor.outputs)
            if real_rows is not None and not pre_sliced:
                keep = min(part.stop, real_rows) - part.start
                if keep <= 0:
                    continue
                rows = part.stop - part.start
                if keep < rows:
                    labels_slice = [_trim(a, axis, keep, rows) for a, axis in zip(labels_slice, label_axes)]
                    predictions = [_trim(a, axis, keep, rows) for a, axis in zip(predictions, self.output_layouts)]
            labels_dict = OrderedDict(zip(self.label_names, labels_slice))
            predictions_dict = OrderedDict(zip(self.output_names, predictions))
            eval_metric.update_dict(labels_dict, predictions_dict)

    def install_monitor(self, mon):
        """Attach a Monitor to every executor."""
        for executor in self.execs:
            mon.install(executor)

    @property
    def _total_bytes(self):
        return self._total_exec_bytes


def _trim(array, axis, keep, rows):
    """The first ``keep`` of ``rows`` entries along the batch ``axis`` (arrays without ``rows``
    entries there, such as a summed loss, are not per sample and stay whole)."""
    if 0 <= axis < array.ndim and array.shape[axis] == rows:
        return NDArray(array._tensor.narrow(axis, 0, keep), array.context)
    return array


def _average_into(block, target):
    if len(block) == 1:
        target._tensor.copy_(block[0]._tensor.to(device=target._tensor.device, dtype=target._tensor.dtype))
        return
    total = block[0]._tensor.detach().to(device=target._tensor.device, dtype=torch.float64).clone()
    for array in block[1:]:
        total.add_(array._tensor.to(device=total.device, dtype=torch.float64))
    target._tensor.copy_((total / len(block)).to(target._tensor.dtype))


# -- MXNet's loaders of a batch into per-device arrays (mxnet.module.executor_group) ------------------
from ..ndarray.ndarray import _DTYPE_MX_TO_NP  # noqa: E402,F401


def _load_general(data, targets, major_axis):
    """Copy each source array of ``data`` into its targets: one NDArray, a list matching a list
    of sources, or ``(slice, NDArray)`` pairs receiving the slice of the source along its batch
    axis (``major_axis`` per source; a negative axis copies the whole source)."""
    for source, destinations, axis in zip(data, targets, major_axis):
        if isinstance(destinations, NDArray):
            source.copyto(destinations)
        elif isinstance(source, (list, tuple)):
            for part, destination in zip(source, destinations):
                part.copyto(destination)
        else:
            for piece, destination in destinations:
                if axis < 0 or (piece.start == 0 and source.shape[axis] == piece.stop):
                    source.copyto(destination)
                elif axis == 0:
                    source[piece.start:piece.stop].copyto(destination)
                else:
                    source.slice_axis(axis=axis, begin=piece.start, end=piece.stop).copyto(destination)


def _load_batch_part(batch, targets, major_axis, field):
    if isinstance(batch, list):
        per_device = [[getattr(b, field)[i] for b in batch] for i in range(len(targets))]
        _load_general(per_device, [[dst for _, dst in target] for target in targets], major_axis)
    else:
        _load_general(getattr(batch, field), targets, major_axis)


def _load_data(batch, targets, major_axis):
    """Load ``batch.data`` (or, for a list of per-device batches, each one's data) into
    ``targets`` (see ``_load_general``)."""
    _load_batch_part(batch, targets, major_axis, "data")


def _load_label(batch, targets, major_axis):
    """Load ``batch.label`` (or each per-device batch's labels) into ``targets``."""
    _load_batch_part(batch, targets, major_axis, "label")
