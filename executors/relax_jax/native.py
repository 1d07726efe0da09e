"""The executor's built-in packed functions that call back into the evaluator (CALL.PACKED.5):
``vm.builtin.make_closure``, ``invoke_closure``, ``call_tir_dyn`` and ``relax.run.print`` (which
writes where ``R.print`` writes), as the reference interpreter's
``relax_ref.interp.builtins.bound_builtins``. They receive the walker, the executor values and the
call (``fn.native``)."""

from __future__ import annotations

from typing import Any, Dict, Optional

from relax_ref.errors import TypeMismatchError
from relax_ref.interp.builtins import format_values

from .values import ClosureV, PackedV, PrimV, ShapeV


_NATIVE: Optional[Dict[str, PackedV]] = None


def native_builtins() -> Dict[str, PackedV]:
    """Built-ins that call back into the evaluator (CALL.PACKED.5)."""
    global _NATIVE
    if _NATIVE is None:
        def mk(fn):
            fn.native = True
            return fn

        def make_closure(walker, args, call):
            fn, captured = args[0], tuple(args[1:])
            return _with_captures(fn, captured)

        def invoke_closure(walker, args, call):
            # args[0] is the VM context (TVM calls it through call_builtin_with_ctx)
            if len(args) < 2:
                raise TypeMismatchError("vm.builtin.invoke_closure expects the VM context and a closure")
            return walker.call_value(args[1], list(args[2:]), call)

        def run_print(walker, args, call):
            fmt = args[0] if args else ""
            if not isinstance(fmt, str):
                raise TypeMismatchError("relax.run.print: the format must be a string")
            walker.exe._print(format_values(fmt, [walker._to_host(v, []) for v in args[1:]]))
            return ()

        def call_tir_dyn(walker, args, call):
            if not args or not isinstance(args[-1], ShapeV):
                raise TypeMismatchError("vm.builtin.call_tir_dyn expects a shape of TIR variables last")
            rest = [PrimV(d.val, "int64", d) for d in args[-1]]
            walker.call_value(args[0], list(args[1:-1]) + rest, call)
            return ()

        _NATIVE = {
            "vm.builtin.make_closure": PackedV("vm.builtin.make_closure", mk(make_closure)),
            "vm.builtin.invoke_closure": PackedV("vm.builtin.invoke_closure", mk(invoke_closure)),
            "vm.builtin.call_tir_dyn": PackedV("vm.builtin.call_tir_dyn", mk(call_tir_dyn)),
            "relax.run.print": PackedV("relax.run.print", mk(run_print)),
        }
    return _NATIVE


def _with_captures(fn: Any, captured: tuple) -> Any:
    if isinstance(fn, ClosureV):
        return ClosureV(fn.func, fn.env, fn.name, fn.captured + captured, None)
    if isinstance(fn, PackedV):
        return PackedV(fn.name, fn.fn, fn.captured + captured)
    raise TypeMismatchError(f"make_closure expects a function, got {type(fn).__name__}")


__all__ = ["native_builtins"]
