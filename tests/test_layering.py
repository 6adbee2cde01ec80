"""The package's layer order, checked against its own import statements.

Every ``import`` and ``from ... import`` of an ``mxtorch`` module is read with ``ast`` from the
source files, at module level and inside functions alike (a lazy import still ties two files
together).  Two rules follow from docs/architecture.md:

- no import circle spans more than one file (strongly connected components of the file graph);
- an import points down the layer table below or stays within its layer, except the few arrows
  listed in ``ARROWS_UP``, each with the reason it must run the other way.

A package's ``__init__`` sits above the files of the package (it gathers them), so a file that
imports its own package's ``__init__`` points up.
"""
from __future__ import annotations

import ast
import os
import pathlib

import pytest

SRC = pathlib.Path(__file__).resolve().parent.parent / "src" / "mxtorch"

# bottom to top; a module belongs to the longest prefix that names it
LAYERS = [
    ("base", """exceptions error base_ctypes base schema runtime libinfo log star_exports registry
                numpy_aliases package_compat misc engine"""),
    ("context", "context util attribute name"),
    ("recording", "recording"),
    ("ops", "ops"),
    ("ndarray", "ndarray random"),
    ("symbol", "symbol"),
    ("executor", "executor"),
    ("subgraph", "subgraph"),      # partitioning Symbols into subgraph nodes (the backends of optimize_for)
    ("autograd", "autograd"),
    ("training pieces", """io recordio image optimizer lr_scheduler metric initializer kvstore monitor
                           profiler operator"""),
    ("checkpoints and callbacks", "callback model"),
    ("module", "module executor_manager"),
    ("numpy front end", """numpy numpy_extension numpy_op_signature numpy_dispatch_protocol _numpy_op_doc
                           numpy_op_fallback"""),
    ("gluon", "gluon"),
    ("rest of the API", """rnn contrib visualization export notebook torch datasets test_utils
                           test_environment test_compare test_inputs test_checks test_statistics test_data
                           install"""),
    ("package", ""),      # mxtorch/__init__.py: gathers every layer below
    ("tools", "cli cli_run cli_networks plot_log launcher __main__"),   # the mxtorch command
]
PACKAGE_LAYER = [name for name, _ in LAYERS].index("package")

# (importer, imported): why this arrow runs up
ARROWS_UP = {
}


def _module_name(path, root):
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(root=SRC):
    return {_module_name(p, root): p for p in root.rglob("*.py")}


def _imports(modules):
    """{module: {imported module, ...}}: every mxtorch import, module level and lazy."""
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                candidates = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    base = ".".join(base + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                candidates = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                              for alias in node.names]
            else:
                continue
            for target in candidates:
                while target not in modules and "." in target:
                    target = target.rpartition(".")[0]
                if target in modules and target != name:
                    targets.add(target)
        graph[name] = targets
    return graph


def _rank(module):
    """(layer index, depth inside a package): a package's __init__ ranks above its files."""
    parts = module.split(".")[1:]
    if not parts:
        return (PACKAGE_LAYER, 0)
    best = None
    for index, (_, names) in enumerate(LAYERS):
        if parts[0] in names.split():
            best = index
    assert best is not None, f"{module} is in no layer of LAYERS: place it"
    return (best, 0)


def _is_up(importer, imported, modules):
    a, b = _rank(importer), _rank(imported)
    if b[0] != a[0]:
        return b[0] > a[0]
    # same layer: a file importing the __init__ of a package that contains it points up
    return (modules[imported].name == "__init__.py" and importer.startswith(imported + "."))


def _circles(graph):
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


@pytest.fixture(scope="module")
def package():
    modules = _modules()
    return modules, _imports(modules)


def test_every_module_has_a_layer(package):
    modules, _ = package
    for name in modules:
        _rank(name)


def test_no_import_circle_spans_two_files(package):
    _, graph = package
    assert _circles(graph) == []


def test_imports_point_down_the_layers(package):
    modules, graph = package
    up = sorted((a, b) for a, targets in graph.items() for b in targets if _is_up(a, b, modules))
    unexplained = [arrow for arrow in up if arrow not in ARROWS_UP]
    assert unexplained == [], "imports that point up the layers: " + ", ".join(f"{a} -> {b}" for a, b in unexplained)
    assert len(up) <= 3
    stale = [arrow for arrow in ARROWS_UP if arrow not in up]
    assert stale == [], f"ARROWS_UP lists arrows that no longer exist: {stale}"


def test_the_analysis_sees_a_planted_circle(tmp_path):
    # a made-up package: a imports b inside a function (lazy), b imports a at module level,
    # c imports the package's __init__, which imports c
    root = tmp_path / "p"
    root.mkdir()
    (root / "__init__.py").write_text("from . import c\n")
    (root / "a.py").write_text("def f():\n    from . import b\n    return b\n")
    (root / "b.py").write_text("from .a import f\nimport os\n")
    (root / "c.py").write_text("from . import a\nimport p\n")
    modules = _modules(root)
    graph = _imports(modules)
    assert graph == {"p": {"p.c"}, "p.a": {"p.b"}, "p.b": {"p.a"}, "p.c": {"p.a", "p"}}
    assert sorted(_circles(graph)) == [["p", "p.c"], ["p.a", "p.b"]]
    assert _circles({"p.a": {"p.b"}, "p.b": set()}) == []
