"""Passes: pure ``IRModule -> IRModule`` functions (spec chapter PASS).

The protocol is deliberately small:

* a pass is any object with a ``name`` (str) that is callable as ``pass_(mod) -> IRModule`` and never
  mutates its input (IR nodes are immutable anyway);
* :class:`Pass` is the base class for passes with configuration; subclasses implement
  :meth:`Pass.transform`;
* :class:`Sequential` runs passes in order; :func:`function_pass` wraps a plain function.

Passes provided here: :class:`~relax_ref.transform.legalize_ops.LegalizeOps`.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from ..ir.module import IRModule


class Pass:
    """Base class of passes: ``name`` plus ``transform(mod) -> mod``; calling the pass transforms."""

    name: str = "Pass"

    def transform(self, mod: IRModule) -> IRModule:
        raise NotImplementedError(f"{type(self).__name__} must implement transform()")

    def __call__(self, mod: IRModule) -> IRModule:
        if not isinstance(mod, IRModule):
            raise TypeError(f"pass {self.name} expects an IRModule, got {type(mod).__name__}")
        return self.transform(mod)

    def __repr__(self) -> str:
        return f"<pass {self.name}>"


class Sequential(Pass):
    """Run ``passes`` one after the other."""

    def __init__(self, passes: Iterable[Callable[[IRModule], IRModule]], name: str = "Sequential") -> None:
        self.passes: Sequence[Callable[[IRModule], IRModule]] = tuple(passes)
        self.name = name

    def transform(self, mod: IRModule) -> IRModule:
        for p in self.passes:
            mod = p(mod)
        return mod

    def __repr__(self) -> str:
        return f"<pass {self.name}: {', '.join(getattr(p, 'name', repr(p)) for p in self.passes)}>"


class _FunctionPass(Pass):
    def __init__(self, fn: Callable[[IRModule], IRModule], name: str) -> None:
        self.fn = fn
        self.name = name

    def transform(self, mod: IRModule) -> IRModule:
        return self.fn(mod)


def function_pass(fn: Callable[[IRModule], IRModule], name: str | None = None) -> Pass:
    """Wrap ``fn(mod) -> mod`` as a named pass."""
    return _FunctionPass(fn, name or fn.__name__)


from .legalize_ops import LegalizeContext, LegalizeOps  # noqa: E402  (uses Pass)

__all__ = ["Pass", "Sequential", "function_pass", "LegalizeOps", "LegalizeContext"]
