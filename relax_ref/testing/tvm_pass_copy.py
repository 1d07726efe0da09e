"""An expected module completed with another module's functions, as some of TVM's pass tests build
it (PASS.FIDELITY.1): read with :mod:`ast`, never run.

The tests of TVM's distributed passes write the expected module's Relax function only and copy the
kernels from the input module::

    for gv, func in Before.functions_items():
        if gv.name_hint != "foo":
            Expected[gv] = func

with the expected calls naming them ``Before.get_global_var("matmul")``. :func:`copy_loop` recognizes
the loop and :func:`merge_functions` writes the definition it makes: the expected class with the
other class's functions (all but the excluded one) appended and each ``Before.get_global_var("f")``
written ``Expected.f``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Optional, Tuple


def copy_loop(s: ast.For) -> Optional[Tuple[str, str, str]]:
    """``(source class, target class, excluded function)`` of the loop above, else None."""
    if not (isinstance(s.target, ast.Tuple) and len(s.target.elts) == 2
            and all(isinstance(x, ast.Name) for x in s.target.elts)):
        return None
    g, f = (x.id for x in s.target.elts)
    it = s.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "functions_items"
            and isinstance(it.func.value, ast.Name) and not it.args):
        return None
    if len(s.body) != 1 or not isinstance(s.body[0], ast.If) or s.body[0].orelse:
        return None
    cond, body = s.body[0].test, s.body[0].body
    if not (isinstance(cond, ast.Compare) and len(cond.ops) == 1 and isinstance(cond.ops[0], ast.NotEq)
            and isinstance(cond.left, ast.Attribute) and cond.left.attr == "name_hint"
            and isinstance(cond.left.value, ast.Name) and cond.left.value.id == g
            and isinstance(cond.comparators[0], ast.Constant) and isinstance(cond.comparators[0].value, str)):
        return None
    if not (len(body) == 1 and isinstance(body[0], ast.Assign) and len(body[0].targets) == 1):
        return None
    t, v = body[0].targets[0], body[0].value
    if not (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and isinstance(t.slice, ast.Name)
            and t.slice.id == g and isinstance(v, ast.Name) and v.id == f):
        return None
    return it.func.value.id, t.value.id, cond.comparators[0].value


def merge_functions(src, dst, excluded: str):
    """``dst`` (a module Definition) with the functions of ``src`` but ``excluded`` appended and the
    ``src.get_global_var("f")`` references written ``dst.f``; None when the texts do not parse."""
    try:
        src_tree = ast.parse(src.body)
        ast.parse(dst.body)
    except SyntaxError:
        return None
    cls = next((n for n in src_tree.body if isinstance(n, ast.ClassDef)), None)
    if cls is None:
        return None
    lines = src.body.split("\n")
    parts = []
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name != excluded:
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            parts.append("\n".join(lines[first - 1:node.end_lineno]))
    pattern = re.compile(r"\b" + re.escape(src.name) + r"""\.get_global_var\(\s*["'](\w+)["']\s*\)""")
    body = pattern.sub(lambda m: f"{dst.name}.{m.group(1)}", dst.body.rstrip("\n"))
    body = body + "\n\n" + "\n\n".join(parts) + "\n"
    if re.search(r"\b" + re.escape(src.name) + r"\b", body):
        return None                     # another use of the source module
    head = dst.text[:len(dst.text) - len(dst.body)] if dst.text.endswith(dst.body) else None
    if head is None:
        return None
    free = tuple(n for n in dst.free_names if n != src.name)
    return replace(dst, text=head + body, body=body, standalone=not free, free_names=free)


__all__ = ["copy_loop", "merge_functions"]
