"""MXNet 1.9.1's graph partitioning (``src/operator/subgraph/build_subgraph.cc``) on mxtorch graphs.

A *property* says which nodes form subgraphs and what replaces each subgraph:

- ``create_selector()`` gives a fresh *selector* per seed node, with ``select(node)`` (may this
  node start a subgraph), ``select_input(node, input_node)`` / ``select_output(node,
  output_node)`` (may the search grow from ``node`` to that neighbour), ``filter(nodes)`` (the
  nodes kept of a candidate subgraph) and ``reset()`` (called before a retry);
- ``create_subgraph_node(symbol, selector, subgraph_id)`` returns the node (a
  :class:`~mxtorch.symbol.graph.Node` without inputs) that runs ``symbol``, or None to leave the
  nodes where they are; ``connect_inputs(node, entries)`` sets its inputs (the entries the
  subgraph read, in the graph's order).

:func:`build_subgraph` runs MXNet's algorithm: nodes are visited in graph order; from each node a
selector accepts, a breadth-first search collects the connected selected nodes; a candidate that
would form a cycle with the nodes outside it (one of its outputs feeds, through outside nodes,
one of its inputs) is searched again without the node that closes the cycle (the one latest in
graph order), until none remains.  Each subgraph then becomes one node: its inputs (in the
graph's entry order) become variables ``<entry name><n>`` of the subgraph (``n`` counts repeated
uses of one entry, or with ``dedup`` one variable serves them all), its outputs are the entries
read outside it, and the readers are rewired to the new node.  The symbol given is not changed.
"""
from __future__ import annotations

from collections import deque

from ..symbol.graph import Node, topological_order
from ..symbol.symbol import Symbol

__all__ = ["SubgraphSelector", "SubgraphProperty", "build_subgraph"]


class SubgraphSelector:
    """Base of selectors: selects nothing; subclasses override what they decide."""

    def select(self, node):
        """Whether ``node`` may start a subgraph."""
        return False

    def select_input(self, node, input_node):
        """Whether the subgraph holding ``node`` may take its input node ``input_node``."""
        return False

    def select_output(self, node, output_node):
        """Whether the subgraph holding ``node`` may take ``output_node``, which reads ``node``."""
        return False

    def filter(self, nodes):
        """The nodes of the candidate subgraph ``nodes`` (graph order) that form the subgraph."""
        return nodes

    def reset(self):
        """Forget the state of a search before it is retried."""


class SubgraphProperty:
    """Base of properties; subclasses give ``create_selector`` and ``create_subgraph_node``."""

    def create_selector(self):
        raise NotImplementedError

    def create_subgraph_node(self, symbol, selector, subgraph_id):
        raise NotImplementedError

    def connect_inputs(self, node, entries):
        """Set the inputs of the new subgraph node (MXNet's ``ConnectSubgraphInputs``)."""
        node.inputs = list(entries)

    def output_index(self, entry, default):
        """The output of the new node that replaces the subgraph's output ``entry`` for a reader
        outside (MXNet's ``ConnectSubgraphOutputs``); ``default`` is the subgraph output's own
        position (the node gives every subgraph output)."""
        return default


class _Ref:
    """One input entry, read and written in place: ``holder.inputs[position]`` of a node, or
    ``holder[position]`` of the graph's head list."""

    __slots__ = ("holder", "position", "key")

    def __init__(self, holder, position):
        self.holder = holder
        self.position = position
        self.key = (id(holder), position)

    def _list(self):
        return self.holder if isinstance(self.holder, list) else self.holder.inputs

    def get(self):
        return self._list()[self.position]

    def set(self, entry):
        self._list()[self.position] = entry


def _copy_graph(outputs):
    """Copies of every node reachable from ``outputs``; returns the new head list."""
    copies = {}
    for node in topological_order(outputs):
        copies[id(node)] = Node(node.op, node.name, dict(node.attrs),
                                [(copies[id(child)], index) for child, index in node.inputs])
    return [(copies[id(node)], index) for node, index in outputs]


def _entry_order(heads):
    """MXNet's ``TopSortEntries``: a rank for every input entry and head, in depth-first order."""
    order = {}
    visited = set()
    for position, (node, _) in enumerate(heads):
        key = (id(heads), position)
        if id(node) in visited:
            order.setdefault(key, len(order))
            continue
        visited.add(id(node))
        stack = [[node, 0, key]]
        while stack:
            top = stack[-1]
            current, index, entry_key = top
            if index == len(current.inputs):
                order.setdefault(entry_key, len(order))
                stack.pop()
                continue
            top[1] += 1
            child = current.inputs[index][0]
            child_key = (id(current), index)
            if id(child) in visited:
                order.setdefault(child_key, len(order))
            else:
                visited.add(id(child))
                stack.append([child, 0, child_key])
    return order


class _Partitioner:
    """The state of one partitioning: the copied graph, node ids, readers and labels."""

    def __init__(self, symbol, prop, dedup):
        self.prop = prop
        self.dedup = dedup
        self.heads = _copy_graph(symbol._outputs)
        self.order = _entry_order(self.heads)
        self.nodes = topological_order(self.heads)
        self.nid = {id(node): index for index, node in enumerate(self.nodes)}
        # readers of each node: id(reader) -> [reader, input positions]
        self.readers = [dict() for _ in self.nodes]
        for node in self.nodes:
            for position, (child, _) in enumerate(node.inputs):
                self.readers[self.nid[id(child)]].setdefault(id(node), [node, []])[1].append(position)
        self.label = [-1] * len(self.nodes)

    # -- finding the subgraphs -------------------------------------------------------------------------
    def _search(self, selector, label, seed, excluded):
        """MXNet's ``LabelSubgraph``: the sorted node ids of the subgraph grown from ``seed``, or
        None after adding the node that closes a cycle to ``excluded``."""
        self.label[seed] = label
        queue = deque([seed])
        members = []
        outside = {}    # node id -> (subgraph nodes reading it, subgraph nodes it reads)
        while queue:
            current = queue.popleft()
            members.append(current)
            node = self.nodes[current]
            for child, _ in node.inputs:
                cid = self.nid[id(child)]
                if self.label[cid] == -1 and cid not in excluded and selector.select_input(node, child):
                    self.label[cid] = label
                    queue.append(cid)
                elif self.label[cid] == -1:
                    outside.setdefault(cid, ([], []))[0].append(current)
            for reader, _ in self.readers[current].values():
                rid = self.nid[id(reader)]
                if self.label[rid] == -1 and rid not in excluded and selector.select_output(node, reader):
                    self.label[rid] = label
                    queue.append(rid)
                elif self.label[rid] == -1:
                    outside.setdefault(rid, ([], []))[1].append(current)
        member_set = set(members)

        def is_ancestor(ancestor, descendant):
            if ancestor == descendant:
                return True
            stack, count = [descendant], 0
            while stack and count < len(self.nodes):
                count += 1
                top = stack.pop()
                if top == ancestor:
                    return True
                for child, _ in self.nodes[top].inputs:
                    cid = self.nid[id(child)]
                    if cid not in member_set:
                        stack.append(cid)
            return False

        keys = sorted(outside)
        closing = -1
        for i, key in enumerate(keys):
            readers_inside, sources_inside = (sorted(v) for v in outside[key])
            if readers_inside and sources_inside:
                closing = max(closing, readers_inside[-1], sources_inside[-1])
            elif sources_inside:
                for later in keys[i + 1:]:
                    later_readers = sorted(outside[later][0])
                    if later_readers and is_ancestor(key, later):
                        closing = max(closing, sources_inside[-1], later_readers[-1])
        if closing != -1:
            excluded.add(closing)
            for member in members:
                self.label[member] = -1
            return None
        return sorted(members)

    def _preselect(self, selector, label, seed):
        """MXNet's ``PreSelectSubgraphNodes``: retry the search while it finds cycles to break;
        the seed alone when no cycle-free subgraph is found."""
        excluded = set()
        known = 0
        for _ in range(len(self.nodes) ** 2):
            members = self._search(selector, label, seed, excluded)
            if members is not None:
                return members
            if len(excluded) == known:
                break
            known = len(excluded)
            selector.reset()
        self.label[seed] = label
        return [seed]

    def find_subgraphs(self):
        """``[(sorted node ids, selector)]`` of every subgraph, in graph order of their seeds."""
        found = []
        for seed, node in enumerate(self.nodes):
            selector = self.prop.create_selector()
            if self.label[seed] != -1 or not selector.select(node):
                continue
            members = self._preselect(selector, len(found), seed)
            kept = selector.filter([self.nodes[m] for m in members])
            kept_ids = {self.nid[id(n)] for n in kept}
            if not kept_ids <= set(members):
                raise ValueError("a subgraph selector's filter returned nodes that were not offered to it")
            for member in members:
                if member not in kept_ids:
                    self.label[member] = -1
            if kept_ids:
                found.append((sorted(kept_ids), selector))
        return found

    # -- replacing one subgraph by a node ---------------------------------------------------------------
    def _is_member(self, node, label):
        index = self.nid.get(id(node))
        return index is not None and self.label[index] == label

    def _input_refs(self, members, label):
        refs = [_Ref(self.nodes[m], position) for m in members
                for position, (child, _) in enumerate(self.nodes[m].inputs) if not self._is_member(child, label)]
        return sorted(refs, key=lambda ref: self.order[ref.key])

    def _output_refs(self, members, label):
        refs = []
        for m in members:
            for reader, positions in self.readers[m].values():
                if not self._is_member(reader, label):
                    refs.extend(_Ref(reader, position) for position in positions)
        refs.extend(_Ref(self.heads, position) for position, (node, _) in enumerate(self.heads)
                    if self._is_member(node, label))
        return sorted(refs, key=lambda ref: self.order[ref.key])

    def _cut_inputs(self, refs):
        """MXNet's ``CutGraphInputs``: replace each input entry by a new variable; returns the
        original entries, all and unique ones."""
        originals, unique = [], []
        shared, counts = {}, {}
        for ref in refs:
            entry = ref.get()
            originals.append(entry)
            name = entry[0].output_names()[entry[1]]
            if name not in counts:
                counts[name] = 0
                unique.append(entry)
                shared[name] = (Node(None, f"{name}0"), 0)
            else:
                counts[name] += 1
            ref.set(shared[name] if self.dedup else (Node(None, f"{name}{counts[name]}"), 0))
        return originals, unique

    def create_node(self, members, selector, subgraph_id):
        """MXNet's ``CreateSubgraphNode`` for the subgraph ``members`` (label ``subgraph_id``)."""
        input_refs = self._input_refs(members, subgraph_id)
        originals, unique = self._cut_inputs(input_refs)
        output_refs = self._output_refs(members, subgraph_id)
        outputs = [ref.get() for ref in output_refs]
        if self.dedup:
            outputs = [entry for i, entry in enumerate(outputs) if i == 0 or not _same(entry, outputs[i - 1])]
        node = self.prop.create_subgraph_node(Symbol(outputs), selector, subgraph_id)
        if node is None:
            for ref, entry in zip(input_refs, originals):
                ref.set(entry)
            return
        index, previous = 0, None
        for i, ref in enumerate(output_refs):
            entry = ref.get()
            if self.dedup:
                if i and not _same(previous, entry):
                    index += 1
                previous = entry
            ref.set((node, self.prop.output_index(entry, index if self.dedup else i)))
        self.prop.connect_inputs(node, unique if self.dedup else originals)
        member_ids = [id(self.nodes[m]) for m in members]
        for i, (child, _) in enumerate(node.inputs):
            if i < len(input_refs):
                self.order[(id(node), i)] = self.order[input_refs[i].key]
            source = self.nid.get(id(child))
            if source is not None:
                readers = self.readers[source]
                for member in member_ids:
                    readers.pop(member, None)
                readers.setdefault(id(node), [node, []])[1].append(i)

    def run(self):
        for subgraph_id, (members, selector) in enumerate(self.find_subgraphs()):
            self.create_node(members, selector, subgraph_id)
        return Symbol(self.heads)


def _same(first, second):
    return first[0] is second[0] and first[1] == second[1]


def build_subgraph(symbol, prop, dedup=False):
    """The Symbol ``symbol`` partitioned by the property ``prop`` (see the module docstring);
    ``dedup``: one subgraph input per distinct entry and one output per distinct entry
    (``optimize_for(..., dedup_subgraph=True)``)."""
    return _Partitioner(symbol, prop, dedup).run()
