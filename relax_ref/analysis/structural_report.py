"""Readable reports of structural mismatches (spec rule EXPR.EQ.3).

:func:`describe_mismatch` turns the first differing token of two serializations
(:func:`relax_ref.analysis.structural_equal.first_mismatch`) into a path in words ("function 'main'
> binding 'z' (block 1, binding 2) > value > callee") and what each side has there (the printed
node, or a description of the token). :func:`mismatch_report` adds both functions printed with
the differing line marked: each side is printed, read back, and the read-back copy is serialized
with source lines; since it is structurally equal to the original, the token streams line up and
the line of the first differing token is known. When the read-back fails or does not line up, the
function is printed without a mark.

Printing and reading back reach the script layer through the hooks of :mod:`relax_ref.ir.printing`
(as ``IRModule.script()`` does); nothing here is needed for the comparison itself.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import printing
from ..ir import struct_info as si
from ..ir import tir
from ..ir.module import IRModule
from .structural_serialize import StructuralMismatchError, serialize, tracked

#: functions longer than this are shown around the marked line only
_MAX_LINES = 60
_CONTEXT = 12


def _ordinal(i: int) -> str:
    return str(i + 1)


def _component_words(c: tuple) -> str:
    kind = c[0]
    if kind == "function":
        return f"{c[2]} '{c[1]}'"
    if kind == "binding":
        _, i, j, name, df = c
        return f"binding '{name}' ({'dataflow ' if df else ''}block {_ordinal(i)}, binding {_ordinal(j)})"
    if kind in ("param", "tir_param"):
        return f"parameter {_ordinal(c[1])}" + (f" '{c[2]}'" if c[2] else "")
    if kind == "buffer_param":
        return f"buffer parameter {_ordinal(c[1])} '{c[2]}'"
    if kind == "attr":
        return f"attribute '{c[1]}'"
    if kind in ("iter_var", "alloc_buffer", "match_buffer"):
        return f"{kind.replace('_', ' ')} {_ordinal(c[1])} '{c[2]}'"
    if kind in ("arg", "sinfo_arg", "field", "dim", "item", "stmt", "index", "read", "write",
                "binding_value"):
        words = {"arg": "argument", "sinfo_arg": "struct-info argument", "dim": "dimension",
                 "stmt": "statement", "index": "index", "read": "read region", "write": "write region",
                 "binding_value": "iteration value"}.get(kind, kind)
        return f"{words} {_ordinal(c[1])}"
    if kind == "loop":
        return f"loop over '{c[1]}'"
    if kind == "tir_block":
        return f"block '{c[1]}'"
    return {
        "module_attrs": "module attributes", "global_infos": "module global infos",
        "annotation": "struct info", "ret": "return struct info", "attrs": "attributes",
        "value": "value", "var": "bound variable", "cast_to": "match_cast struct info",
        "callee": "callee", "tuple": "tuple", "cond": "condition", "then": "then branch",
        "else": "else branch", "result": "result", "shape": "shape", "node": "",
        "stored": "stored value", "annotations": "annotations", "init": "init",
    }.get(kind, kind)


def path_words(path: tuple) -> str:
    """A path of serializer components in words, outermost first."""
    words = [w for w in (_component_words(c) for c in path) if w]
    return " > ".join(words) if words else "the top level"


_TOKEN_WORDS = {
    "op": lambda t: f"operator {t[1]}",
    "gvar": lambda t: f"global function '{t[1]}'",
    "extern": lambda t: f"external function '{t[1]}'",
    "call": lambda t: f"a call with {t[1]} argument(s) and {t[2]} struct-info argument(s)",
    "def": lambda t: "a new variable",
    "use": lambda t: "a variable bound earlier",
    "free-id": lambda t: "a variable not bound inside the compared objects (free; see map_free_vars)",
    "free": lambda t: "a free variable",
    "int": lambda t: f"{t[1]} {t[2]}",
    "float": lambda t: f"{t[1]} {t[2]}",
    "str": lambda t: f"string {t[1]!r}",
    "s": lambda t: f"string {t[1]!r}",
    "i": lambda t: f"integer {t[1]}",
    "f": lambda t: f"float {t[1]}",
    "bool": lambda t: f"bool {t[1]}",
    "attrs": lambda t: f"attribute keys {list(t[1])}" if t[1] else "no attributes",
    "const": lambda t: f"a constant of dtype {t[1]} and shape {list(t[2])}",
    "module": lambda t: f"functions {list(t[1])}",
    "blocks": lambda t: f"{t[1]} binding block(s)",
    "function": lambda t: f"a {'pure' if t[1] else 'impure'} function of {t[2]} parameter(s)",
    "no-sinfo": lambda t: "no struct info",
    "S.object": lambda t: "R.Object",
    "S.prim": lambda t: f"R.Prim({t[1]!r})",
    "S.shape": lambda t: f"R.Shape(ndim={t[1]})",
    "S.tensor": lambda t: f"R.Tensor(dtype={t[1]!r}, ndim={t[2]})",
    "S.tuple": lambda t: f"R.Tuple of {t[1]} field(s)",
    "bind": lambda t: "a variable binding",
    "match_cast": lambda t: "a match_cast binding",
}


def describe_token(tok) -> str:
    if tok is None:
        return "nothing (the other side continues)"
    if isinstance(tok, tuple) and tok:
        if tok[0] == "block":
            if isinstance(tok[1], bool):
                return f"a {'dataflow' if tok[1] else 'plain'} block of {tok[2]} binding(s)"
            return f"a TIR block{'' if tok[1] is None else f' named {tok[1]!r}'}"
        fn = _TOKEN_WORDS.get(tok[0])
        if fn is not None:
            return fn(tok)
        return f"{tok[0]}{'' if len(tok) == 1 else ' ' + ', '.join(map(str, tok[1:]))}"
    return repr(tok)


def _print_node(node) -> Optional[str]:
    """A one-line printed form of ``node``, or None when it has none worth showing."""
    try:
        if isinstance(node, (rx.Function, IRModule, tir.PrimFunc)) or node is None:
            return None
        if isinstance(node, si.StructInfo):
            text = str(node)
        elif isinstance(node, P.PrimExpr):
            text = str(node)
        elif isinstance(node, rx.Binding):
            return None
        elif isinstance(node, rx.Op):
            text = "R." + node.name[6:] if node.name.startswith("relax.") else node.name
        elif isinstance(node, rx.Expr):
            text = printing.printer().expr_to_str(node)
        elif isinstance(node, tir.Stmt):
            full = printing.printer().stmt_to_str(node)
            text = full.splitlines()[0] + (" ..." if "\n" in full else "")
        else:
            return None
    except Exception:  # pragma: no cover - printing is best effort in a report
        return None
    text = " ".join(text.split())
    return text if len(text) <= 160 else text[:157] + "..."


def _side(ser, k: int) -> Tuple[tuple, object, int, object]:
    """(path, node, line, token) of token ``k`` on one side (the last token if there is none)."""
    tok = ser.tokens[k] if k < len(ser.tokens) else None
    if not ser.where:
        return (), None, 0, tok
    path, node, line = ser.where[min(k, len(ser.where) - 1)]
    return path, node, line, tok


def describe_mismatch(k: int, sa, sb) -> Tuple[str, str]:
    """(message, path in words) for the first differing token ``k`` of two tracking serializers."""
    pa, na, _, ta = _side(sa, k)
    pb, nb, _, tb = _side(sb, k)
    where = path_words(pa)
    if pb != pa:
        where += f" (rhs: {path_words(pb)})"
    la, lb = _print_node(na), _print_node(nb)
    da, db = describe_token(ta), describe_token(tb)
    if la is not None and lb is not None and la != lb:
        lhs, rhs = f"{la}  [{da}]", f"{lb}  [{db}]"
    else:
        lhs, rhs = da, db
    if lhs == rhs:
        lhs, rhs = repr(ta), repr(tb)
    return f"structural mismatch at {where}:\n  lhs: {lhs}\n  rhs: {rhs}", path_words(pa)


# -- printed functions with the differing line marked -------------------------------------------------


def _function_name(x, path: tuple) -> Optional[str]:
    if isinstance(x, IRModule):
        return next((c[1] for c in path if c[0] == "function"), None)
    if isinstance(x, (rx.Function, tir.PrimFunc)):
        name = x.attrs.get("global_symbol")
        return name if isinstance(name, str) and name.isidentifier() else "main"
    return None


def _as_module(x, name: str) -> IRModule:
    return x if isinstance(x, IRModule) else IRModule({rx.GlobalVar(name): x})


def _locate(x, name: str, k: int, strict: bool) -> Tuple[str, int]:
    """(printed module text, line of token ``k`` in it or 0) for ``x`` (a module or a function)."""
    parse = printing.reader()
    mod = _as_module(x, name)
    text = mod.script(dialect="tvm")
    try:
        back = parse(text, check_well_formed=False)
    except Exception:
        return text, 0
    again = back if isinstance(x, IRModule) else back[name] if name in back else None
    if again is None:
        return text, 0
    if serialize(again, True, True).tokens != serialize(x, True, True).tokens:
        return text, 0
    ser = tracked(again, True, True, k)
    if not ser.where:
        return text, 0
    return text, ser.where[min(k, len(ser.where) - 1)][2]


def _function_lines(text: str, name: str) -> Tuple[int, int]:
    """The 1-based line range of the definition of ``name`` (decorators included) in ``text``."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith(f"def {name}(")), None)
    if start is None:
        return 1, len(lines)
    indent = len(lines[start]) - len(lines[start].lstrip())
    first = start
    while first > 0 and lines[first - 1].lstrip().startswith("@"):
        first -= 1
    end = start + 1
    while end < len(lines):
        ln = lines[end]
        if ln.strip() and len(ln) - len(ln.lstrip()) <= indent and not ln.lstrip().startswith(")"):
            break
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return first + 1, end


def _excerpt(text: str, first: int, last: int, mark: int) -> str:
    lines = text.splitlines()
    keep: List[int] = list(range(first, last + 1))
    if len(keep) > _MAX_LINES and mark:
        head = keep[:3]
        around = [i for i in keep if abs(i - mark) <= _CONTEXT and i not in head]
        keep = head + ([None] if around and around[0] > head[-1] + 1 else []) + around
    elif len(keep) > _MAX_LINES:
        keep = keep[:_MAX_LINES] + [None]
    width = len(str(last))
    out = []
    for i in keep:
        if i is None:
            out.append(" " * (width + 4) + "...")
            continue
        flag = ">>" if i == mark else "  "
        out.append(f"{flag} {i:>{width}} | {lines[i - 1]}")
    if not mark:
        out.append("   (the differing line could not be located)")
    return "\n".join(out)


def _printed_side(x, path: tuple, k: int, strict: bool) -> str:
    name = _function_name(x, path)
    if name is None:
        text = _print_node(x)
        return text if text is not None else ""
    try:
        text, line = _locate(x, name, k, strict)
    except Exception:  # pragma: no cover - printing is best effort in a report
        return ""
    first, last = _function_lines(text, name)
    if line and not first <= line <= last:
        line = 0
    kind = next(c[2] for c in path if c[0] == "function") if isinstance(x, IRModule) else "PrimFunc" if isinstance(x, tir.PrimFunc) else "function"
    return f"{kind} '{name}':\n" + _excerpt(text, first, last, line)


def mismatch_report(a, b, k: int, sa, sb, *, map_free_vars: bool = False,
                    strict: bool = False) -> StructuralMismatchError:
    """The error :func:`~relax_ref.analysis.structural_equal.assert_structural_equal` raises."""
    message, where = describe_mismatch(k, sa, sb)
    pa, _, _, _ = _side(sa, k)
    pb, _, _, _ = _side(sb, k)
    lhs_text = _printed_side(a, pa, k, strict)
    rhs_text = _printed_side(b, pb, k, strict)
    full = message
    if lhs_text:
        full += "\n\nlhs " + lhs_text
    if rhs_text:
        full += "\n\nrhs " + rhs_text
    return StructuralMismatchError(full, where, lhs_text, rhs_text)


__all__ = ["describe_mismatch", "mismatch_report", "path_words", "describe_token"]
