"""Each case's module text in the dialect of the installed TVM release (TEXT.DIALECT.6).

The suite writes its cases in TVM 0.25's spelling (FORMAT.md section 2), a few in the classic spelling
or in a later release's. A TVM release reads its own dialect only: TVM 0.27 no longer takes
``out_sinfo=``, ``sinfo_args=`` or ``R.Prim(value=...)``. So the TVM adapter hands each case over in
the dialect of the installed release (:func:`relax_ref.script.dialect.installed_tvm_dialect`):

* a case written in that dialect: as written;
* a case that requires another dialect's spelling (``classic-spelling``, ``tvm-0.27-spelling``, ...):
  never converted -- such a case tests the reading of that spelling, so the adapter declares the
  feature unsupported (:func:`unsupported_features`) and the case is skipped;
* any other case is first read by relax-ref (:func:`relax_ref.script.parser.parse`, with its checks).
  When it reads, or fails with a fault of the IR (a struct-info or well-formedness error), the raw
  module (:func:`relax_ref.script.parser.parse_module`: no normalization, no checks, so the fault stays
  exactly as written) is printed by relax-ref's printer in the release's dialect, metadata included
  and functions in the text's order (NORM.GLOBAL.4). A module the release cannot express
  (TEXT.DIALECT.5, e.g. ``R.Prim(value=...)`` in TVM 0.27) raises
  :class:`~relax_conformance.adapter.Unsupported`, so the case is skipped with the printer's reason;
* a text whose fault is in the text itself (a parse error: an expression statement, a second
  ``R.output``, an unknown name) goes as written, since re-printing would repair or change the
  fault -- unless it uses a keyword the release does not read (:func:`unreadable_spellings`), which
  would make TVM reject it for its spelling instead of its fault: then the case is skipped.

The decision never looks at the case's expectation, only at the text.

Adding a release is an entry in relax-ref's dialect table; nothing here names a release.
"""

from __future__ import annotations

from typing import Any, Optional

from ..adapter import Unsupported

#: the dialect the suite writes a case in when it requires no other spelling (FORMAT.md section 2)
SUITE_DIALECT = "tvm-0.25"


def spelling_feature(dialect: str) -> str:
    """The ``requires`` feature of a case written in ``dialect``: ``classic-spelling``,
    ``tvm-0.25-spelling``, ``tvm-0.27-spelling``."""
    return f"{dialect}-spelling"


def case_dialect(case: Any) -> str:
    """The dialect a case's text is written in: its spelling feature, else the suite's default."""
    from relax_ref.script.dialect import DIALECTS

    if getattr(case, "spelling", "tvm") == "classic":
        return "classic"
    for name in DIALECTS:
        if spelling_feature(name) in tuple(getattr(case, "requires", ()) or ()):
            return name
    return SUITE_DIALECT


def unsupported_features(dialect: str) -> frozenset:
    """What an implementation that reads only ``dialect`` cannot run: every other dialect's spelling
    and modules that mix the spellings of two releases."""
    from relax_ref.script.dialect import DIALECTS

    return frozenset({"mixed-releases"} | {spelling_feature(n) for n in DIALECTS if n != dialect})


def text_for(text: str, case: Any, dialect: str) -> tuple[str, str]:
    """``(text to hand to TVM, how it was obtained)``: ``"as written"`` or ``"printed in <dialect>"``
    (module docstring). Raises :class:`Unsupported` when the release cannot express the module, or
    cannot read a text that must go as written."""
    written = case_dialect(case)
    if written == dialect:
        return text, "as written"
    from relax_ref.errors import RelaxError, StructInfoError, UnsupportedError, WellFormedError
    from relax_ref.script.parser import parse, parse_module
    from relax_ref.script.printer import print_module

    try:
        parse(text)
    except (StructInfoError, WellFormedError):
        pass  # a fault of the IR: the raw module keeps it
    except RelaxError:
        return _as_written(text, written, dialect)  # a fault of the text itself
    try:
        mod = parse_module(text)
    except RelaxError:
        return _as_written(text, written, dialect)
    try:
        return print_module(mod, dialect=dialect, show_meta=True, source_order=True), f"printed in {dialect}"
    except UnsupportedError as err:
        raise Unsupported(spelling_feature(written), f"{dialect} cannot express this module: {_first_line(err)}") \
            from None


def _as_written(text: str, written: str, dialect: str) -> tuple[str, str]:
    found = unreadable_spellings(text, written, dialect)
    if found:
        raise Unsupported(spelling_feature(written), f"the text must go as written (relax-ref cannot re-print it), "
                                                      f"and {dialect} does not read {', '.join(found)}")
    return text, "as written"


def unreadable_spellings(text: str, written: str, dialect: str) -> list[str]:
    """The keywords of ``written``'s spelling in ``text`` that ``dialect`` does not read (``out_sinfo=``,
    ``R.Prim(value=...)``, ...), found with :mod:`ast` (the text is not evaluated)."""
    import ast

    from relax_ref.script.dialect import get_dialect

    w, d = get_dialect(written), get_dialect(dialect)
    bad: dict = {}  # (callee or None for any call, keyword) -> how it reads
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
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = ast.unparse(node.func)
        for kw in node.keywords:
            label = bad.get((callee, kw.arg)) or bad.get((None, kw.arg))
            if label is not None and label not in found:
                found.append(label)
    return found


def _first_line(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__


def release_dialect(version: Optional[str] = None) -> str:
    """The dialect of TVM ``version`` (default: the installed one)."""
    from relax_ref.script.dialect import dialect_for_version, installed_tvm_dialect

    return installed_tvm_dialect() if version is None else dialect_for_version(version)


__all__ = ["SUITE_DIALECT", "case_dialect", "spelling_feature", "unsupported_features", "text_for",
           "unreadable_spellings", "release_dialect"]
