"""The context handed to operator struct-info inference and normalization hooks (NORM.INFER.1).

Every ``OpDef.infer(call, ctx)``, ``OpDef.normalize(call, ctx)`` and ``OpDef.validate(call, ctx)``
receives an :class:`InferContext`:

=====================  ==============================================================================
field                  meaning
=====================  ==============================================================================
``analyzer``           a :class:`relax_ref.arith.Analyzer` shared by the whole normalization; symbolic
                       int variables are assumed ``>= 0``. Use it to prove or simplify shape facts.
``module``             the :class:`~relax_ref.ir.IRModule` being normalized / checked, or ``None``
                       (a free-standing function or expression).
``span``               the span of the call being inferred (also attached to errors automatically).
``binding``            the name of the variable the call is (eventually) bound to, when known.
``function``           the name of the enclosing global function, when known.
``lookup_binding``     ``lookup_binding(var) -> Expr | None``: the value bound to a Relax ``Var`` in the
                       function being normalized (``None`` for parameters and unknown vars, and always
                       ``None`` inside the well-formedness checker, as in TVM).
=====================  ==============================================================================

Helpers: :meth:`InferContext.error` builds a ``StructInfoError`` carrying the span, binding and
function; :meth:`InferContext.vdevice` resolves a virtual-device index against the module's
``global_infos["vdevice"]``; :meth:`InferContext.lookup_function` returns a module function by
GlobalVar or name.

Contract for operator hooks (NORM.INFER.2): ``call.args`` are normalized (each has ``struct_info``);
``infer`` returns the call's struct info or raises ``StructInfoError`` (use ``ctx.error``);
``normalize`` returns the *same object* when the call is already in normal form, otherwise a new
call (preserve ``struct_info`` with ``dataclasses.replace``; a call returned without struct info is
re-inferred); ``validate`` returns ``None`` or raises ``StructInfoError``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

from ..errors import Span, StructInfoError
from ..ir import expr as rx
from ..ir.struct_info import VDevice


def make_analyzer():
    """A fresh :class:`relax_ref.arith.Analyzer` (symbolic int variables assumed non-negative)."""
    from ..arith import Analyzer

    return Analyzer()


def _no_binding(var: rx.Var) -> Optional[rx.Expr]:
    return None


@dataclass(frozen=True)
class InferContext:
    """Read-only context of one inference / normalization / validation step (NORM.INFER.1)."""

    analyzer: Any
    module: Any = None
    span: Optional[Span] = None
    binding: Optional[str] = None
    function: Optional[str] = None
    lookup_binding: Callable[[rx.Var], Optional[rx.Expr]] = field(default=_no_binding, compare=False)

    def error(self, message: str, *, symbol: Optional[str] = None) -> StructInfoError:
        """A ``StructInfoError`` located at this call (raise it: ``raise ctx.error("...")``)."""
        return StructInfoError(message, self.span, binding=self.binding, function=self.function,
                               symbol=symbol)

    def with_span(self, span: Optional[Span]) -> "InferContext":
        return InferContext(self.analyzer, self.module, span, self.binding, self.function,
                            self.lookup_binding)

    def lookup_function(self, gv: Union[rx.GlobalVar, str]):
        """The module function named by ``gv`` (a GlobalVar or a name), or None."""
        if self.module is None:
            return None
        name = gv.name_hint if isinstance(gv, rx.GlobalVar) else gv
        if name in self.module:
            return self.module[name]
        return None

    def vdevice(self, index: int) -> Optional[VDevice]:
        """The module's virtual device number ``index`` (``global_infos["vdevice"]``), or None when
        the module declares none, the index is negative or out of range (NORM.VDEVICE.1)."""
        if self.module is None or index < 0:
            return None
        infos = self.module.global_infos.get("vdevice") if self.module.global_infos else None
        if not infos or index >= len(infos):
            return None
        dev = infos[index]
        return dev if isinstance(dev, VDevice) else None


__all__ = ["InferContext", "make_analyzer"]
