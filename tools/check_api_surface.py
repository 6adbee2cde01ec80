"""List the names of MXNet 1.9.1's public API surface that mxtorch does not provide.

Reads the checklist ``tools/data/mxnet-1.9.1-surface.md`` (kept in the repository, so this
works from a fresh clone; names and signatures of MXNet 1.9.1's API; one backticked name per
``- [ ]`` line, methods as ``.name`` under their class, operators as inline lists in
section 19) and looks each name up on ``mxtorch``.  Prints, per section, the missing names
and a summary table; ``--markdown`` prints the table only.

    python tools/check_api_surface.py [path/to/surface.md]

(mxtorch is imported from the installed package, else from this checkout's ``src/``.)
"""
from __future__ import annotations

import os
import re
import sys

DEFAULT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "mxnet-1.9.1-surface.md")

SECTION_CLASSES = {
    "3.2": "mx.sym.Symbol", "3.3": "mx.sym.Symbol", "3.4": "mx.sym.Symbol", "4.1": "mx.executor.Executor",
    "5.2": "mx.nd.NDArray", "5.3": "mx.nd.NDArray", "5.4": "mx.nd.NDArray",
}
NAMESPACES = {"19.1": "mx.sym", "19.2": "mx.sym", "19.3": "mx.sym.contrib", "19.4.linalg": "mx.sym.linalg",
              "19.4.random": "mx.sym.random", "19.4.sparse": "mx.sym.sparse", "19.4.image": "mx.sym.image"}


def resolve(mx, path):
    """Follow a dotted ``mx.a.b`` path on mxtorch; True if every step exists."""
    parts = path.split(".")
    if parts[0] != "mx":
        return None
    obj = mx
    for part in parts[1:]:
        try:
            obj = getattr(obj, part)
        except Exception:
            return False
    return True


def entries(text):
    """Yield (section, path) for every checklist name."""
    section = None
    current_class = None
    for line in text.splitlines():
        heading = re.match(r"^###\s+([\d.]+(?:\.[a-z]+)?)\s", line)
        if heading:
            section = heading.group(1)
            current_class = SECTION_CLASSES.get(section)
            continue
        inline = re.match(r"^\*\*(mx\.[\w.]+)\s*\(\d+\):\*\*(.*)$", line)
        if inline:
            namespace = inline.group(1)
            for name in re.findall(r"`([\w]+)`(?:\(→`[\w]+`\))?", inline.group(2)):
                yield section, f"{namespace}.{name}"
            continue
        if section and section.startswith("19.") and line.startswith("`") and section in NAMESPACES:
            for name in re.findall(r"`([\w]+)`", line):
                yield section, f"{NAMESPACES[section]}.{name}"
            continue
        item = re.match(r"^(\s*)- \[ \] `([^`]+)`", line)
        if "instance attribute" in line:
            continue
        if not item:
            continue
        indent, body = item.groups()
        name = re.match(r"^([\w.]+)", body.lstrip(".")).group(1) if re.match(r"^\.?[\w.]+", body) else None
        if name is None:
            continue
        if body.startswith("mx."):
            path = name
            if not indent:
                current_class = path if path[3:4].isupper() or re.search(r"\.[A-Z]\w*$", path) else \
                    SECTION_CLASSES.get(section)
            yield section, path
        elif body.startswith(".") and current_class:
            yield section, f"{current_class}.{name}"


def main(argv):
    markdown = "--markdown" in argv
    argv = [a for a in argv if a != "--markdown"]
    path = argv[0] if argv else DEFAULT
    try:
        import mxtorch as mx
    except ImportError:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
        import mxtorch as mx
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    totals = {}
    missing = {}
    for section, name in entries(text):
        found = resolve(mx, name)
        if found is None:
            continue
        total, have = totals.get(section, (0, 0))
        totals[section] = (total + 1, have + (1 if found else 0))
        if not found:
            missing.setdefault(section, []).append(name)
    if not markdown:
        for section in totals:
            if section in missing:
                print(f"## {section}: missing {len(missing[section])} of {totals[section][0]}")
                print("   " + " ".join(missing[section]))
    print("| section | names checked | present | missing |")
    print("|---|---|---|---|")
    for section, (total, have) in totals.items():
        print(f"| {section} | {total} | {have} | {total - have} |")
    all_total = sum(t for t, _ in totals.values())
    all_have = sum(h for _, h in totals.values())
    print(f"| all | {all_total} | {all_have} | {all_total - all_have} |")


if __name__ == "__main__":
    main(sys.argv[1:])
