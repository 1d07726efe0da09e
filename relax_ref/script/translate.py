"""A TVMScript text in another dialect, its faults kept (TEXT.DIALECT.2, TEXT.DIALECT.5, TEXT.DIALECT.6).

A TVM release reads its own dialect only: TVM 0.27 no longer takes ``out_sinfo=``, ``sinfo_args=`` or
``R.Prim(value=...)``. :func:`translate` gives the text a release reads, for texts that are not meant
to be valid as much as for valid ones (a test or a conformance case that TVM must reject has to be
rejected for its fault, not for its spelling):

* a text that relax-ref reads (:func:`~relax_ref.script.parser.parse`, with its checks), or that fails
  with a fault of the IR (a struct-info or well-formedness error), is read again *raw*
  (:func:`~relax_ref.script.parser.parse_module`: no normalization, no checks, so the fault stays
  exactly as written) and printed in the target dialect, metadata included and functions in the text's
  order (a call of a later function without a return annotation depends on it, NORM.GLOBAL.4);
* a text whose fault is in the text itself (a parse error: an expression statement, a second
  ``R.output``, an unknown name) is returned as written, since printing it would repair or change the
  fault -- unless it uses a keyword of its own dialect that the target does not read
  (:func:`unreadable_spellings`): then the release would reject it for its spelling, not its fault;
* a module the target cannot express (TEXT.DIALECT.5) and such an unreadable text are
  :class:`~relax_ref.errors.UnsupportedError` s.

Nothing here names a release: the dialect table (:mod:`relax_ref.script.dialect`) decides.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple

from ..errors import RelaxError, StructInfoError, UnsupportedError, WellFormedError
from .dialect import get_dialect


def translate(text: str, dialect: str, written: str = "tvm-0.25") -> Tuple[str, bool]:
    """``(text in dialect, whether it was printed)`` for a text written in dialect ``written`` (module
    docstring); ``(text, False)`` when the text goes as written."""
    target, source = get_dialect(dialect), get_dialect(written)
    if target.name == source.name:
        return text, False
    from .parser import parse, parse_module
    from .printer import print_module

    try:
        parse(text)
    except (StructInfoError, WellFormedError):
        pass  # a fault of the IR: the raw module keeps it
    except RelaxError:
        return _as_written(text, source.name, target.name), False
    try:
        mod = parse_module(text)
    except RelaxError:
        return _as_written(text, source.name, target.name), False
    try:
        out = print_module(mod, dialect=target.name, show_meta=True, source_order=True, exact=True)
    except UnsupportedError as err:
        raise UnsupportedError(f"{target.name} cannot express this module: {_first_line(err)}") from None
    if _defers_well_formedness(text):  # the module keeps no trace of it: the decorator does
        out = out.replace("\n@I.ir_module\n", "\n@I.ir_module(check_well_formed=False)\n", 1)
    return out, True


def _defers_well_formedness(text: str) -> bool:
    """Does the text's module decorator say ``check_well_formed=False``? (found with :mod:`ast`)"""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return False
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for dec in node.decorator_list:
                if isinstance(dec, ast.Call) and any(
                        k.arg == "check_well_formed" and isinstance(k.value, ast.Constant) and k.value.value is False
                        for k in dec.keywords):
                    return True
    return False


def _as_written(text: str, written: str, dialect: str) -> str:
    found = unreadable_spellings(text, written, dialect)
    if found:
        raise UnsupportedError(f"the text must go as written (its fault is in the text, which printing would "
                               f"change), and {dialect} does not read {', '.join(found)}")
    return text


def unreadable_spellings(text: str, written: str, dialect: str) -> List[str]:
    """The keywords of ``written``'s spelling in ``text`` that ``dialect`` does not read (``out_sinfo=``,
    ``R.Prim(value=...)``, ...), found with :mod:`ast` (the text is not evaluated)."""
    w, d = get_dialect(written), get_dialect(dialect)
    bad: Dict[Tuple[Optional[str], str], str] = {}  # (callee or None for any call, keyword) -> label
    for old, new in ((w.out_sinfo_kw, d.out_sinfo_kw), (w.sinfo_args_kw, d.sinfo_args_kw)):
        if old != new:
            bad[(None, old)] = f"{old}="
    if w.tir_vars and not d.tir_vars:
        bad[(None, "tir_vars")] = "tir_vars="
    if w.prim_annotation == "R.Prim" and d.prim_annotation != "R.Prim":
        bad[("R.Prim", "value")] = "R.Prim(value=...)"
    for callee, kws in d.removed_keywords.items():
        for kw in kws:
            if kw not in w.removed_keywords.get(callee, ()):
                bad[(callee, kw)] = f"{callee}({kw}=...)"
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return []
    found: List[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = ast.unparse(node.func)
        for kw in node.keywords:
            label = bad.get((callee, kw.arg or "")) or bad.get((None, kw.arg or ""))
            if label is not None and label not in found:
                found.append(label)
    return found


def _first_line(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__


__all__ = ["translate", "unreadable_spellings"]
