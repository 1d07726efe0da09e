"""``Executable.as_jax_function``: a Relax function as a pure JAX function.

The returned function traces the Relax function with the walker in traced mode at the exact shapes of
its arguments (no bucketing: under ``jax.jit`` shapes are static anyway), so it composes with
``jax.jit``, ``jax.grad`` (for differentiable operators) and ``jax.vmap``. Parameter struct info is
checked while tracing (shapes are static then) with the reference's errors.

Run-time checks on *data* (integer division by zero, TensorIR accesses not provably in bounds,
``R.assert_op``) cannot raise from inside a JAX transformation. ``checks`` decides:

* ``"raise"`` (default): tracing a function that has such checks raises UnsupportedError naming them;
* ``"checkify"``: they become ``jax.experimental.checkify.check`` calls (wrap the caller with
  ``checkify.checkify`` to get the error);
* ``"off"``: they are dropped (out-of-bounds reads then clamp, writes are dropped, integer division by
  zero yields XLA's value).

Host-only constructs (packed functions, ``R.print``, data-dependent shapes, recursion) raise
UnsupportedError. 64-bit integer types need ``jax_enable_x64``; the function enables it for its own
trace when the caller has not (values crossing the boundary keep the caller's types).
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp

from relax_ref import values as rv
from relax_ref.errors import RelaxError, UnsupportedError
from relax_ref.interp.evaluator import point_at_parameter
from relax_ref.ir import expr as rx

from .dims import dim_value
from .errors import ErrorSink, NeedsExact, TraceAbort
from .values import PrimV, ShapeV, TVal
from .walker import Frame, Walker

CHECK_MODES = ("raise", "checkify", "off")


def _to_value(a: Any, s) -> Any:
    from relax_ref.ir import struct_info as si

    if isinstance(s, si.PrimStructInfo):
        return PrimV(a, s.dtype)
    if isinstance(s, si.ShapeStructInfo):
        return ShapeV(int(x) for x in a)
    if isinstance(s, si.TupleStructInfo) and isinstance(a, (tuple, list)):
        return tuple(_to_value(x, f) for x, f in zip(a, s.fields))
    if isinstance(a, (tuple, list)):
        return tuple(_to_value(x, None) for x in a)
    return TVal(jnp.asarray(a))


def _to_jax(v: Any) -> Any:
    if isinstance(v, TVal):
        return v.data
    if isinstance(v, PrimV):
        return jnp.asarray(v.val)
    if isinstance(v, ShapeV):
        return tuple(dim_value(d.val) if d.is_static else d.val for d in v)
    if isinstance(v, tuple):
        return tuple(_to_jax(x) for x in v)
    if isinstance(v, rv.DTypeValue):
        return v.name
    if isinstance(v, (str, type(None))):
        return v
    raise UnsupportedError(f"a {type(v).__name__} cannot be returned from a JAX function")


def make_jax_function(exe, entry: str, checks: str = "raise") -> Callable[..., Any]:
    if checks not in CHECK_MODES:
        raise UnsupportedError(f"checks must be one of {CHECK_MODES}, got {checks!r}")
    if entry not in exe.mod or not isinstance(exe.mod[entry], rx.Function):
        raise UnsupportedError(f"'{entry}' is not a Relax function of the module")
    func = exe.mod[entry]

    def fn(*args):
        if len(args) != len(func.params):
            from relax_ref.errors import ArityMismatchError

            raise ArityMismatchError(f"function '{entry}' takes {len(func.params)} arguments, got {len(args)}",
                                     site="param", function=entry)
        ctxm = jax.enable_x64(True) if not jax.config.jax_enable_x64 else _null()
        with ctxm:
            sink = ErrorSink(True)
            walker = Walker(exe, "traced", sink)
            vals = [_to_value(a, p.struct_info) for a, p in zip(args, func.params)]
            sym: dict = {}
            frame = Frame({}, sym, entry)
            try:
                walker.check_values([(v, p.struct_info, p.name_hint) for v, p in zip(vals, func.params)], frame,
                                    site="param", bind=True, span=func.span)
            except RelaxError as e:
                raise point_at_parameter(e, func)
            walker.check_bounds(func, frame, func.span)
            try:
                result = walker.run_entry(func, entry, vals, sym)
            except TraceAbort as e:
                raise UnsupportedError(f"'{entry}' cannot run inside a JAX transformation: {e.reason}") from None
            except NeedsExact as e:
                raise UnsupportedError(f"'{entry}': {e.reason}") from None
            if sink.has_checks:
                if checks == "raise":
                    raise UnsupportedError(
                        f"'{entry}' has run-time checks on data ({len(sink.builders)} site(s), e.g. "
                        f"{type(sink.builders[0]()).__name__}: {sink.builders[0]().message}) that cannot raise inside a JAX transformation; "
                        "use checks='checkify' or checks='off'")
            ok = jnp.asarray(sink.code, jnp.int32) == 0 if sink.has_checks and checks == "checkify" else None
            out = _to_jax(result)
        if ok is not None:
            from jax.experimental import checkify

            # outside the x64 context: checkify's own state uses the caller's configuration
            checkify.check(ok, f"relax function {entry!r} failed a run-time check")
        return out

    fn.__name__ = f"relax_{entry}"
    fn.__doc__ = f"The Relax function '{entry}' as a JAX function."
    return fn


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


__all__ = ["make_jax_function", "CHECK_MODES"]
