"""Writes tests/data/viz/ with the real MXNet 1.9.1 (run with ~/mxref/bin/python; needs graphviz 0.8.4).

    ~/mxref/bin/python tools/gen_viz_reference.py [OUTPUT_FOLDER]   # default tests/data/viz

``summary_*.txt``: what ``mx.viz.print_summary`` prints; ``plot_*.gv``: ``plot_network(...).source``,
for the networks and calls of tests/viz_networks.py (shared with tests/test_visualization.py).
"""
import contextlib
import io
import os
import sys

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import viz_networks  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "tests", "data", "viz")
os.makedirs(OUT, exist_ok=True)
NETWORKS = viz_networks.networks(mx)
for name, network, kwargs in viz_networks.summaries(NETWORKS):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        mx.viz.print_summary(network(), **kwargs)
    with open(os.path.join(OUT, name), "w", encoding="utf-8") as stream:
        stream.write(printed.getvalue())
for name, network, kwargs in viz_networks.plots(NETWORKS, np):
    with open(os.path.join(OUT, name), "w", encoding="utf-8") as stream:
        stream.write(mx.viz.plot_network(network(), **kwargs).source)
print("written", OUT)
