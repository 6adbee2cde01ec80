"""MXNet 1.9.1's generic subgraph API on mxtorch graphs.

- :mod:`.partition`: the partitioning algorithm (MXNet's ``BuildSubgraph`` pass) driven by a
  property and its selectors;
- :mod:`.default`: the ``default`` / ``default_v2`` properties (subgraphs of named operators run
  by ``_CachedOp`` nodes) and their backends in ``symbol.subgraph_backends``;
- :mod:`.c_api`: ``MXBuildSubgraphByOpNames``, ``MXSetSubgraphPropertyOpNamesV2``, ...
  behind ``mxnet.base._LIB`` (``MXListAllOpNames`` is ops/c_api.py's).

Importing the package also lets ``_CachedOp(subgraph=<json>)`` read its attribute
(``ops.subgraph_op.use_graph_reader``) and its shape inference use the known output
shapes (``use_shape_solver``, :mod:`.shapes`).
"""
from ..ops.subgraph_op import use_graph_reader, use_shape_solver
from ..symbol.symbol import load_json
from . import partition, default, c_api, shapes, mkldnn  # noqa: F401
from .partition import SubgraphSelector, SubgraphProperty, build_subgraph  # noqa: F401

use_graph_reader(load_json)
use_shape_solver(shapes.input_output_shapes)
