"""Objects of other libraries at relax-ref's entry points (spec rules TEXT.TVM.1, EXPR.EQ.4).

Where TVM is installed, ``relax_ref.parse``, ``relax_ref.structural_equal``,
``relax_ref.assert_structural_equal``, ``relax_ref.evaluate`` and ``relax_jax.compile`` accept a
``tvm.IRModule``: it is printed by TVM (``mod.script()``, with the metadata section when the text
refers to it) and read by relax-ref's parser, so the result is checked like any text. Any other
object of another library is rejected with a :class:`~relax_ref.errors.TypeMismatchError` naming
its type. Objects are recognized by the module name of their type: ``tvm`` is never imported here
(only read from ``sys.modules`` for its version, once the object shows that it is loaded).
"""

from __future__ import annotations

import sys

from ..errors import TypeMismatchError
from ..ir.foreign import is_tvm_ir_module, is_tvm_object, type_name
from ..ir.module import IRModule


def tvm_version() -> str:
    """The version of the loaded ``tvm`` package ("unknown" when it has none)."""
    tvm = sys.modules.get("tvm")
    return str(getattr(tvm, "__version__", "unknown"))


def tvm_module_text(obj) -> str:
    """The TVMScript text TVM prints for the ``tvm.IRModule`` ``obj`` (with ``show_meta=True``
    only when the plain print refers to the metadata section, TEXT.TVM.1)."""
    text = obj.script()
    if "metadata[" in text:
        text = obj.script(show_meta=True)
    return text


def tvm_dialect() -> str:
    """The TVMScript dialect of the loaded TVM (``tvm-0.25``, ``tvm-0.27``, ...; TEXT.DIALECT.1)."""
    from ..errors import UnsupportedError
    from .dialect import dialect_for_version

    try:
        return dialect_for_version(tvm_version())
    except UnsupportedError:
        return "unknown"


def tvm_source_name() -> str:
    """The file name given to the text of a converted ``tvm.IRModule`` in spans and errors."""
    return f"<tvm.IRModule printed by TVM {tvm_version()}, dialect {tvm_dialect()}>"


def from_tvm(obj) -> IRModule:
    """The relax-ref IRModule of the ``tvm.IRModule`` ``obj`` (TEXT.TVM.1): TVM's print, read,
    normalized and checked by relax-ref's parser (whose errors name the printed text's lines)."""
    from .parser import parse

    if not is_tvm_ir_module(obj):
        raise TypeMismatchError(f"from_tvm expects a tvm.IRModule, got {type_name(obj)}")
    return parse(tvm_module_text(obj), file=tvm_source_name())


def _wrong_type(api: str, expected: str, obj) -> TypeMismatchError:
    hint = ""
    if is_tvm_object(obj):
        hint = (" (a TVM object: only a tvm.IRModule is converted; wrap a function f in "
                "tvm.IRModule({'main': f}))")
    return TypeMismatchError(f"{api} expects {expected}, got {type_name(obj)}{hint}")


def as_module(obj, api: str, *, text: bool = False) -> IRModule:
    """``obj`` as a relax-ref IRModule for the entry point ``api``: a relax-ref IRModule as is, a
    ``tvm.IRModule`` converted (:func:`from_tvm`), TVMScript text parsed when ``text`` is true;
    anything else is a :class:`TypeMismatchError` naming its type (EXPR.EQ.4)."""
    if isinstance(obj, IRModule):
        return obj
    if is_tvm_ir_module(obj):
        return from_tvm(obj)
    if text and isinstance(obj, str):
        from .parser import parse

        return parse(obj)
    expected = "an IRModule (relax-ref's, or a tvm.IRModule where TVM is installed)"
    raise _wrong_type(api, expected + (" or TVMScript text" if text else ""), obj)


def as_text(obj, api: str) -> tuple:
    """For ``relax_ref.parse``: ``(text, file name or None)`` of TVMScript text, or of a
    ``tvm.IRModule`` as TVM prints it; anything else is a :class:`TypeMismatchError` naming its
    type."""
    if isinstance(obj, str):
        return obj, None
    if is_tvm_ir_module(obj):
        return tvm_module_text(obj), tvm_source_name()
    raise _wrong_type(api, "TVMScript text (a str) or a tvm.IRModule", obj)


def as_comparable(obj):
    """For ``relax_ref.structural_equal``: a ``tvm.IRModule`` converted, anything else unchanged
    (the comparison itself rejects other foreign objects)."""
    return from_tvm(obj) if is_tvm_ir_module(obj) else obj


__all__ = ["from_tvm", "tvm_module_text", "tvm_version", "tvm_dialect", "tvm_source_name", "as_module", "as_text",
           "as_comparable"]
