"""The TVMScript printer (spec chapter TEXT).

Public API::

    print_module(mod, *, dialect="classic" | "tvm-0.25" | "tvm-0.27" | "tvm", show_meta=False,
                 source_order=False, exact=False) -> str
    print_function(func, name=None, *, dialect="classic", show_meta=False) -> str
    struct_info_to_str(si) -> str
    expr_to_str(e, *, dialect="classic") -> str
    prim_to_str(e, context="relax" | "tir", *, dialect="classic") -> str

``IRModule.script(dialect=...)`` and ``StructInfo.__str__`` call into this package. The printed
text of a normalized module reads back (through :mod:`relax_ref.script.parser`) to a structurally
equal module in every dialect that can write it (:mod:`relax_ref.script.dialect`); ``tvm-0.25`` /
``tvm-0.27`` text is also accepted by that TVM release's ``tvm.script.from_source``. See :mod:`.module`, :mod:`.relax`, :mod:`.tir`, :mod:`.prim`,
:mod:`.struct_info` and :mod:`.values` for the conventions, and :mod:`.metadata` for TVM's metadata
section (with a decoder for readers).
"""

from __future__ import annotations

from ...errors import UnsupportedError
from ...ir import expr as rx
from ...ir import prim_expr as P
from ...ir import tir
from .context import PrintContext
from .dialect import DIALECTS, get_dialect
from .metadata import decode_metadata, encode_constants
from .module import print_function, print_module
from .prim import PrimPrinter
from .relax import RelaxPrinter
from .struct_info import struct_info_to_str
from .tir import TIRPrinter


def expr_to_str(e: rx.Expr, *, dialect: str = "classic") -> str:
    """A Relax expression on its own (variables under their name hints; a Function prints as a
    function definition, a SeqExpr as its statements)."""
    if isinstance(e, rx.Function):
        return print_function(e, dialect=dialect)
    ctx = PrintContext(get_dialect(dialect))
    p = RelaxPrinter(ctx)
    if isinstance(e, rx.SeqExpr):
        return "\n".join(p.seq_expr(e, use_ret=False))
    if isinstance(e, rx.If):
        return "\n".join(p.if_binding("_", "", e))
    return p.expr(e)


def prim_to_str(e: P.PrimExpr, context: str = "relax", *, dialect: str = "classic") -> str:
    """A scalar expression as printed inside Relax (``context="relax"``: int64 literals bare) or
    TensorIR (``"tir"``: int32 literals bare)."""
    if context not in ("relax", "tir"):
        raise UnsupportedError(f"prim_to_str: context must be 'relax' or 'tir', got '{context}'")
    d = get_dialect(dialect)
    return PrimPrinter(d, context, lambda v: v.name, lambda b: b.name)(e)


def stmt_to_str(s: tir.Stmt, *, dialect: str = "classic") -> str:
    """A TensorIR statement on its own (undeclared variables print as declarations first)."""
    ctx = PrintContext(get_dialect(dialect))
    p = TIRPrinter(ctx)
    lines = p.stmt(s)
    return "\n".join(p.late_decls + lines)


__all__ = ["print_module", "print_function", "struct_info_to_str", "expr_to_str", "prim_to_str",
           "stmt_to_str", "decode_metadata", "encode_constants", "DIALECTS"]
