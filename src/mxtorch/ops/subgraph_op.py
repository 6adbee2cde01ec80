"""``_CachedOp``: the node that runs a subgraph (MXNet 1.9.1's operator of the same name).

Two front ends make it, as in MXNet:

- graph partitioning (``mxtorch.subgraph``: ``Symbol.optimize_for('default')``,
  ``MXBuildSubgraphByOpNames``) groups the selected nodes into a ``_CachedOp`` named
  ``_CachedOp<i>`` whose subgraph is written under the node's ``"subgraphs"`` key;
- ``mx.sym._internal._CachedOp(*inputs, subgraph=<symbol JSON>)`` makes one from a graph's JSON,
  kept as the ``subgraph`` attribute.

The node's inputs feed the subgraph's ``list_inputs()`` in order, its outputs are the
subgraph's outputs (named ``<node>_<subgraph output>``, as ``_CachedOp0_exp0_output``).  The
inputs that are auxiliary states of the subgraph (BatchNorm's moving statistics) are auxiliary
states of the node (MXNet's mutable inputs), so a partitioned graph lists the same arguments
and auxiliary states as the original.  mxtorch knows an auxiliary state by its position (after
the operator's arguments): when the subgraph's inputs put one before an argument (two
BatchNorms in one subgraph), the node takes every input in the subgraph's order as an argument
and the auxiliary states once more after them (``aux_repeated``); both positions hold the same
variable, and the in-place updates go to it.

The subgraph runs as ``_foreach`` / ``_while_loop`` / ``_cond`` run theirs
(``control_flow._SubgraphOperator.run_subgraph``): one Executor per input signature.
"""
from __future__ import annotations

from .control_flow import _SubgraphOperator
from .registry import Attr, optional, register
from ..schema import Text

__all__ = ["CachedOp", "use_graph_reader", "use_shape_solver"]

_GRAPH_READER = []
_SHAPE_SOLVER = []


def use_graph_reader(function):
    """Register ``function(json_text) -> Symbol`` (``mx.sym.load_json``), which reads the
    ``subgraph`` attribute of ``_CachedOp``: the Symbol class lives above the operators
    (called by ``mxtorch.subgraph`` when it is imported)."""
    _GRAPH_READER[:] = [function]
    return function


def use_shape_solver(function):
    """Register ``function(graph, in_shapes, out_shapes, where) -> (in_shapes, out_shapes)``,
    the subgraph shape inference that also reads the node's known output shapes (it walks the
    graph's nodes, which live above the operators; called by ``mxtorch.subgraph``)."""
    _SHAPE_SOLVER[:] = [function]
    return function


@register("_CachedOp")
class CachedOp(_SubgraphOperator):
    """Runs its subgraph on its inputs (see the module docstring)."""

    subgraph_names = ("subgraph",)
    num_args = None          # the subgraph fixes the inputs and the outputs
    subgraph = Attr(optional(Text), default=None)
    traceable = False

    def __init__(self, attrs=None, **kwargs):
        super().__init__(attrs, **kwargs)
        self._layout = None
        if self.subgraph is not None:
            if not _GRAPH_READER:
                raise self.error("no reader of symbol JSON is registered (import mxtorch)")
            self.subgraphs = [_GRAPH_READER[0](self.subgraph)]

    def __setattr__(self, key, value):
        if key == "subgraphs":
            self.__dict__["_layout"] = None
        super().__setattr__(key, value)

    # -- the layout of the node's inputs --------------------------------------------------------------
    def _inputs_layout(self):
        """``(input names, auxiliary flags, aux_repeated)`` of the subgraph's ``list_inputs()``."""
        if self._layout is None:
            self.check_subgraphs("_CachedOp")
            graph = self.subgraphs[0]
            names = graph.list_inputs()
            aux = set(graph.list_auxiliary_states())
            flags = [name in aux for name in names]
            first_aux = flags.index(True) if True in flags else len(flags)
            repeated = not all(flags[first_aux:])
            self._layout = (names, flags, repeated)
        return self._layout

    @property
    def aux_repeated(self):
        """True when an auxiliary input comes before an argument in the subgraph's inputs: the
        node then takes every input as an argument and the auxiliary states again after them."""
        return self._inputs_layout()[2]

    def arguments(self):
        if not self.subgraphs:
            return []
        names, flags, repeated = self._inputs_layout()
        return list(names) if repeated else [n for n, is_aux in zip(names, flags) if not is_aux]

    def auxiliary_states(self):
        if not self.subgraphs:
            return []
        names, flags, _ = self._inputs_layout()
        return [n for n, is_aux in zip(names, flags) if is_aux]

    def num_outputs(self):
        # the method (a function here, so the attribute num_outputs of the base is not declared)
        return len(self.outputs())

    def outputs(self):
        """The subgraph's output names; an entry given again is named as the ``_copy`` node
        MXNet's CachedOp put there (``fc_copy0_output``)."""
        if not self.subgraphs:
            return []
        graph = self.subgraphs[0]
        names, copies = [], {}
        for (node, index), name in zip(graph._outputs, graph.list_outputs()):
            key = (id(node), index)
            if key in copies:
                name = f"{node.name}_copy{copies[key]}_output"
                copies[key] += 1
            else:
                copies[key] = 0
            names.append(name)
        return names

    def _subgraph_values(self, inputs, aux):
        """The values in the subgraph's input order from the node's arguments and aux states."""
        if self.aux_repeated:
            return list(inputs)
        names, flags, _ = self._inputs_layout()
        arguments, states = iter(inputs), iter(aux)
        return [next(states) if is_aux else next(arguments) for is_aux in flags]

    def _node_values(self, values):
        """``(arguments, aux states)`` of the node from values in the subgraph's input order."""
        names, flags, repeated = self._inputs_layout()
        states = [v for v, is_aux in zip(values, flags) if is_aux]
        if repeated:
            return list(values), states
        return [v for v, is_aux in zip(values, flags) if not is_aux], states

    # -- running and inference ------------------------------------------------------------------------
    def forward(self, is_train, inputs, aux):
        return list(self.run_subgraph(0, is_train, self._subgraph_values(inputs, aux)))

    def _given(self, in_values):
        """Values in the subgraph's input order from the node's argument values (the inference
        sees no auxiliary values: None there unless they are repeated among the arguments)."""
        names, flags, repeated = self._inputs_layout()
        if repeated:
            return list(in_values)
        arguments = iter(in_values)
        return [None if is_aux else next(arguments) for is_aux in flags]

    def infer_shape(self, in_shapes, out_shapes):
        self.check_subgraphs("infer_shape")
        given = self._given(in_shapes)
        if _SHAPE_SOLVER and any(shape is not None for shape in out_shapes):
            refined, outputs = _SHAPE_SOLVER[0](self.subgraphs[0], given, list(out_shapes), self.name)
        else:
            refined, outputs = self.subgraph_shapes(0, given)
        arguments, states = self._node_values(refined)
        return arguments, [o if o is not None else s for o, s in zip(outputs, out_shapes)], states

    def infer_type(self, in_types):
        self.check_subgraphs("infer_type")
        refined, outputs = self.subgraph_types(0, self._given(in_types))
        arguments, states = self._node_values(refined)
        return arguments, list(outputs), states
