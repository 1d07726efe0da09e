"""The text's header: import lines read as data, and the TensorIR dialect (TEXT.MOD.1, TEXT.DIALECT.1).

Import statements are never executed. ``from tvm.script import relax as R`` only says that the name
``R`` means the Relax vocabulary; the recognised modules are TVMScript's (``tvm.script`` ``ir`` /
``relax`` / ``tir`` / ``tirx``) and relax-ref's own decorator namespaces (``relax_ref.script``).
``import tvm`` is accepted (the metadata header uses ``tvm.ir.load_json``); any other import is a
ParseError. TVM prints its header as comments (``# from tvm.script import tirx as T``,
``# from tvm.tirx.layout import Axis``); commented import lines are read the same way, except that
unknown ones are ignored. The names ``I``, ``R`` and ``T`` are available without any import.

Dialect (TEXT.DIALECT.4): for TensorIR, ``tir as T`` (classic) or ``tirx as T`` (TVM) decides; otherwise
the spelling used in the text (``T.sblock``/``T.sblock_attr``/``T.sblock_alloc_buffer``/``"tirx.noalias"``
versus ``T.block``/``T.block_attr``/``"tir.noalias"``); with no evidence, TVM's. For Relax,
:func:`detect_relax_dialect` finds tvm-0.27 from the spellings only that release writes, else tvm-0.25.
TVM's other imports (``tvm.script.parser``, ``typing.TypeVar``, ``from tvm import relax``) are read too.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Dict, Optional

from .source import Source

#: (module, name) -> canonical root
KNOWN_IMPORTS = {
    ("tvm.script", "ir"): "I", ("tvm.script", "relax"): "R", ("tvm.script", "tir"): "T",
    ("tvm.script", "tirx"): "T", ("tvm.script.parser", "ir"): "I", ("tvm.script.parser", "relax"): "R",
    ("tvm.script.parser", "tir"): "T", ("tvm.script.parser", "tirx"): "T",
    ("relax_ref.script", "ir"): "I", ("relax_ref.script", "relax"): "R",
    ("relax_ref.script", "tir"): "T", ("tvm.script.ir", "*"): "", ("tvm", "relax"): "tvm.relax",
    ("tvm", "tirx"): "T", ("tvm", "tir"): "T",
    ("tvm.script", "ir_module"): "I.ir_module", ("typing", "TypeVar"): "TypeVar",
}
_DIALECT_OF_IMPORT = {("tvm.script", "tir"): "classic", ("tvm.script", "tirx"): "tvm",
                      ("tvm.script.parser", "tir"): "classic", ("tvm.script.parser", "tirx"): "tvm"}
#: modules whose import is accepted and has no effect
_IGNORED_MODULES = ("tvm", "tvm.tirx.layout", "tvm.tir.layout", "__future__")
_COMMENT_IMPORT = re.compile(r"^\s*#\s*((?:from\s+[\w.]+\s+)?import\s+[\w., ]+(?:\s+as\s+\w+)?)\s*$")

_TVM_MARKERS = ("sblock", "sblock_alloc_buffer", "sblock_attr")
_CLASSIC_MARKERS = ("block", "block_attr")


@dataclass
class Header:
    aliases: Dict[str, str] = field(default_factory=lambda: {"I": "I", "R": "R", "T": "T"})
    dialect: Optional[str] = None


def _apply_import(node: ast.stmt, header: Header, src: Source, strict: bool) -> None:
    if isinstance(node, ast.Import):
        for a in node.names:
            root = a.name.split(".")[0]
            if a.name in _IGNORED_MODULES or root == "tvm" and a.asname is None:
                continue
            if strict:
                raise src.error(node, f"unsupported import '{a.name}': only TVMScript namespaces can be imported")
        return
    assert isinstance(node, ast.ImportFrom)
    mod = node.module or ""
    for a in node.names:
        key = (mod, a.name)
        if mod in _IGNORED_MODULES and key not in KNOWN_IMPORTS:
            continue
        if key in KNOWN_IMPORTS and KNOWN_IMPORTS[key]:
            header.aliases[a.asname or a.name] = KNOWN_IMPORTS[key]
            if key in _DIALECT_OF_IMPORT:
                header.dialect = _DIALECT_OF_IMPORT[key]
        elif strict:
            raise src.error(node, f"unsupported import 'from {mod} import {a.name}': only TVMScript namespaces "
                                  f"(tvm.script ir/relax/tir/tirx) can be imported")


def read_header(tree: ast.Module, src: Source) -> Header:
    """Aliases and dialect from (commented and real) import lines."""
    header = Header()
    for line in src.text.splitlines():
        m = _COMMENT_IMPORT.match(line)
        if m:
            try:
                stmt = ast.parse(m.group(1)).body[0]
            except SyntaxError:
                continue
            _apply_import(stmt, header, src, strict=False)
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            _apply_import(node, header, src, strict=True)
    return header


def detect_dialect(tree: ast.AST, header: Header) -> str:
    """``"tvm"`` (TVM 0.25 spelling) or ``"classic"``; see the module docstring."""
    if header.dialect is not None:
        return header.dialect
    t_names = {k for k, v in header.aliases.items() if v == "T"}
    tvm_seen = classic_seen = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in t_names:
            if node.attr in _TVM_MARKERS:
                tvm_seen = True
            elif node.attr in _CLASSIC_MARKERS:
                classic_seen = True
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value.startswith("tirx."):
                tvm_seen = True
            elif node.value == "tir.noalias":
                classic_seen = True
    if tvm_seen:
        return "tvm"
    if classic_seen:
        return "classic"
    return "tvm"


def _is_prim_type_annotation(node: ast.AST, t_names) -> bool:
    """``T.int64`` (an attribute of T naming a scalar type, not called): a tvm-0.27 annotation."""
    from ..dialect import SCALAR_TYPE_NAMES

    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in t_names \
        and node.attr in SCALAR_TYPE_NAMES


def _relax_function_uses_prim_annotations(node: ast.FunctionDef, roots, t_names) -> bool:
    dec = node.decorator_list[0] if node.decorator_list else None
    target = dec.func if isinstance(dec, ast.Call) else dec
    if not (isinstance(target, ast.Attribute) and target.attr == "function" and isinstance(target.value, ast.Name)
            and roots.get(target.value.id) == "R"):
        return False
    anns = [a.annotation for a in node.args.args] + [node.returns]
    anns += [st.annotation for st in ast.walk(node) if isinstance(st, ast.AnnAssign)]
    return any(a is not None and _is_prim_type_annotation(a, t_names) for a in anns)


def detect_relax_dialect(tree: ast.AST, header: Header, text: str) -> str:
    """``"tvm-0.27"`` when the text uses any spelling only tvm-0.27 writes (TEXT.DIALECT.2:
    ``out_ty=`` / ``ty_args=``, ``R.Any``, ``R.PackedFunc``, ``I.StringType``, a ``TypeVar``
    declaration or import, ``metadata["ir.GenericConst"]``, a ``T.int64``-style annotation in a Relax
    function), else ``"tvm-0.25"``."""
    from ..dialect import TVM027_MARKERS

    if "TypeVar" in header.aliases.values() or re.search(r"^\s*#\s*from typing import TypeVar", text, re.M):
        return "tvm-0.27"
    roots = dict(header.aliases)
    t_names = {k for k, v in roots.items() if v == "T"}
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in TVM027_MARKERS["keywords"]:
            return "tvm-0.27"
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in roots:
            if f"{roots[node.value.id]}.{node.attr}" in TVM027_MARKERS["names"]:
                return "tvm-0.27"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in TVM027_MARKERS["calls"]:
            return "tvm-0.27"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                node.value in TVM027_MARKERS["metadata"]:
            return "tvm-0.27"
        elif isinstance(node, ast.FunctionDef) and _relax_function_uses_prim_annotations(node, roots, t_names):
            return "tvm-0.27"
    return "tvm-0.25"


__all__ = ["Header", "read_header", "detect_dialect", "detect_relax_dialect", "KNOWN_IMPORTS"]
