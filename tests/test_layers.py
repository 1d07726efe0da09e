"""The layer order of the code base (docs/ARCHITECTURE.md, "Layers"), read from the source text.

Every ``import`` statement counts -- at module level, inside functions, under ``if TYPE_CHECKING`` --
and so does ``importlib.import_module`` with a literal name. A module may import modules of its own
layer and of the layers below; nothing may import upwards. No two modules may import each other,
directly or through others (imports under ``if TYPE_CHECKING``, which never run, are left out of this
second rule only). There are no exemptions: a new package gets a place in ``LAYERS``.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set, Tuple

ROOT = Path(__file__).resolve().parents[1]

#: (import name, directory) of every package that is checked
PACKAGES = (
    ("relax_ref", ROOT / "relax_ref"),
    ("relax_jax", ROOT / "executors" / "relax_jax"),
    ("relax_conformance", ROOT / "conformance" / "relax_conformance"),
)

#: bottom to top; a module belongs to the layer of the longest prefix naming it
LAYERS: Tuple[Tuple[str, Tuple[str, ...]], ...] = (
    ("errors", ("relax_ref.errors", "relax_ref._version")),
    ("files", ("relax_ref.files", "relax_ref.npz", "relax_ref.resources")),
    ("ir", ("relax_ref.ir",)),
    ("values", ("relax_ref.values", "relax_ref.limits")),
    ("arith", ("relax_ref.arith",)),
    ("analysis", ("relax_ref.analysis",)),
    ("ops", ("relax_ref.ops",)),
    ("static", ("relax_ref.static",)),
    ("dpl", ("relax_ref.dpl",)),
    ("script", ("relax_ref.script",)),
    ("interp", ("relax_ref.interp",)),
    ("transform", ("relax_ref.transform",)),
    ("builder", ("relax_ref.builder",)),
    ("frontend", ("relax_ref.frontend",)),
    ("executors", ("relax_jax",)),
    ("tools", ("relax_ref", "relax_ref.testing", "relax_ref.viz", "relax_ref.cli", "relax_ref.status",
               "relax_conformance")),
)


def _modules() -> Dict[str, Tuple[Path, bool]]:
    """Module name -> (file, is a package ``__init__``)."""
    out = {}
    for name, root in PACKAGES:
        for path in sorted(root.rglob("*.py")):
            parts = [name, *path.relative_to(root).with_suffix("").parts]
            is_pkg = parts[-1] == "__init__"
            if is_pkg:
                parts = parts[:-1]
            out[".".join(parts)] = (path, is_pkg)
    return out


MODULES = _modules()


def layer_of(module: str) -> int:
    best: Optional[Tuple[int, int]] = None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if module == p or module.startswith(p + "."):
                if best is None or len(p) > best[0]:
                    best = (len(p), i)
    if best is None:
        raise AssertionError(f"module {module} has no layer: add it to LAYERS in tests/test_layers.py")
    return best[1]


def _target(name: str) -> Optional[str]:
    """The module of ``name`` (``pkg.mod.attr`` -> ``pkg.mod``) when it is one of ours."""
    parts = name.split(".")
    while parts:
        cand = ".".join(parts)
        if cand in MODULES:
            return cand
        parts.pop()
    return None


def _absolute(module: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_pkg:
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _type_checking_nodes(tree: ast.AST) -> Set[int]:
    """ids of the nodes under ``if TYPE_CHECKING:``."""
    out: Set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, (ast.Name, ast.Attribute)) and \
                (getattr(node.test, "id", None) or getattr(node.test, "attr", None)) == "TYPE_CHECKING":
            for stmt in node.body:
                out.update(id(n) for n in ast.walk(stmt))
    return out


def imports_of(module: str) -> Iterator[Tuple[str, int, bool]]:
    """``(imported module, line, runs)`` for every import in ``module`` that names one of ours;
    ``runs`` is False under ``if TYPE_CHECKING``."""
    path, is_pkg = MODULES[module]
    tree = ast.parse(path.read_text(), str(path))
    typing_only = _type_checking_nodes(tree)
    for node in ast.walk(tree):
        names: List[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_pkg, node)
            names = [f"{base}.{a.name}" if a.name != "*" else base for a in node.names]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "import_module" and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                names = [arg.value]
            elif isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
                names = [str(arg.values[0].value).rstrip(".")]
        for n in names:
            t = _target(n)
            if t is not None and t != module:
                yield t, node.lineno, id(node) not in typing_only


#: every import (for the layer order); RUNTIME: those that run (for cycles)
GRAPH: Dict[str, Set[str]] = {m: set() for m in MODULES}
RUNTIME: Dict[str, Set[str]] = {m: set() for m in MODULES}
LINES: Dict[Tuple[str, str], int] = {}
for _m in MODULES:
    for _t, _line, _runs in imports_of(_m):
        GRAPH[_m].add(_t)
        if _runs:
            RUNTIME[_m].add(_t)
        LINES.setdefault((_m, _t), _line)


def test_every_module_has_a_layer():
    for m in MODULES:
        layer_of(m)


def test_no_upward_imports():
    bad = []
    for m, targets in GRAPH.items():
        for t in targets:
            if layer_of(t) > layer_of(m):
                bad.append(f"{MODULES[m][0].relative_to(ROOT)}:{LINES[m, t]}: {m} ({LAYERS[layer_of(m)][0]}) "
                           f"imports {t} ({LAYERS[layer_of(t)][0]})")
    assert not bad, "imports against the layer order:\n" + "\n".join(sorted(bad))


def _cycles() -> List[List[str]]:
    """Strongly connected components of more than one module."""
    from relax_ref.analysis.graph import strongly_connected_components

    comps = strongly_connected_components({v: RUNTIME[v] for v in sorted(RUNTIME)})
    return [sorted(c) for c in comps if len(c) > 1]


def test_no_import_cycles():
    cycles = _cycles()
    assert not cycles, "modules importing each other:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_architecture_notes_list_the_layers_in_this_order():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    block = text.split("## Layers", 1)[1].split("```", 2)[1]
    names = [line.split()[0] for line in block.splitlines() if line and not line.startswith(" ")]
    assert names == [name for name, _ in reversed(LAYERS)]
