"""Each case's module text in the dialect of the installed TVM release (TEXT.DIALECT.6).

The suite writes its cases in TVM 0.25's spelling (FORMAT.md section 2), a few in the classic spelling
or in a later release's. A TVM release reads its own dialect only: TVM 0.27 no longer takes
``out_sinfo=``, ``sinfo_args=`` or ``R.Prim(value=...)``. So the TVM adapter hands each case over in
the dialect of the installed release (:func:`relax_ref.script.dialect.installed_tvm_dialect`):

* a case written in that dialect: as written;
* a case that requires another dialect's spelling (``classic-spelling``, ``tvm-0.27-spelling``, ...):
  never converted -- such a case tests the reading of that spelling, so the adapter declares the
  feature unsupported (:func:`unsupported_features`) and the case is skipped;
* any other case: translated by relax-ref (:func:`relax_ref.script.translate.translate`: a text it
  reads, or one with a fault of the IR, is printed in the release's dialect from its raw module; a
  text with a fault of the text itself goes as written). A module the release cannot express
  (TEXT.DIALECT.5, e.g. ``R.Prim(value=...)`` in TVM 0.27), or a text that must go as written in a
  spelling the release does not read, raises :class:`~relax_conformance.adapter.Unsupported`: the
  case is skipped with the reason.

The decision never looks at the case's expectation, only at the text.

A case that calls an operator the installed release does not register (``relax.reverse_sequence`` is
not in TVM 0.25) is skipped too (:func:`operators_of`: the operators relax-ref reads in the text; the
adapter asks TVM's registry): the release cannot run it, which says nothing about its semantics. An
operator relax-ref does not know either is left to TVM, so a case about an unknown name still runs.

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
    (:func:`relax_ref.script.translate.translate`). Raises :class:`Unsupported` when the release cannot
    express the module, or cannot read a text that must go as written."""
    from relax_ref.errors import UnsupportedError
    from relax_ref.script.translate import translate

    written = case_dialect(case)
    try:
        out, printed = translate(text, dialect, written)
    except UnsupportedError as err:
        raise Unsupported(spelling_feature(written), str(err)) from None
    return out, f"printed in {dialect}" if printed else "as written"


def operators_of(text: str) -> list:
    """The names of the operators the module ``text`` calls (``relax.add``, ...), as relax-ref reads it
    raw (no normalization or checks); ``[]`` for a text relax-ref does not read."""
    from relax_ref.errors import RelaxError
    from relax_ref.ir import expr as rx
    from relax_ref.ir.functor import ExprVisitor
    from relax_ref.script.parser import parse_module

    try:
        mod = parse_module(text)
    except (RelaxError, RecursionError):
        return []
    names: list = []

    class _Ops(ExprVisitor):
        def visit_Op(self, e):  # noqa: N802 - the visitor's naming
            if e.name not in names:
                names.append(e.name)

    visitor = _Ops()
    for _, func in mod.functions_items():
        if isinstance(func, rx.Function):
            visitor.visit_expr(func)
    return names


def release_dialect(version: Optional[str] = None) -> str:
    """The dialect of TVM ``version`` (default: the installed one)."""
    from relax_ref.script.dialect import dialect_for_version, installed_tvm_dialect

    return installed_tvm_dialect() if version is None else dialect_for_version(version)


__all__ = ["SUITE_DIALECT", "case_dialect", "spelling_feature", "unsupported_features", "text_for",
           "release_dialect", "operators_of"]
