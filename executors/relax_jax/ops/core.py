"""Lowerings of the core operators: the ``call_tir`` family (CALL.TIR.*), packed and closure calls,
shapes, printing, assertions and allocation (semantics: ``relax_ref.interp.core_ops``).

``call_tir`` allocates its outputs (zero-filled, at their padded size) and runs the PrimFunc's
lowering on ``(inputs..., outputs..., tir_vars...)`` with the inputs read-only; the PrimFunc sees the
logical extents, so it is exact under padding. ``R.print``, ``tensor_to_shape`` and packed functions
run on the host.
"""

from __future__ import annotations

from typing import Any, List

import jax.numpy as jnp
import numpy as np

from relax_ref import values as rv
from relax_ref.errors import AssertionFailedError, OpRuntimeError, TypeMismatchError
from relax_ref.interp.builtins import format_values, tensor_to_shape
from relax_ref.interp.evaluator import Frame
from relax_ref.ir import struct_info as si
from relax_ref.ops.core_calls import allocatable, dps_outputs, unknown_output_shape
from relax_ref.ops.core_checks import check_inplace_result

from ..dims import dim_value
from ..errors import TraceAbort
from ..lowering import lowering
from ..prim_jax import is_static, np_dtype
from ..storage import carve
from ..tir.call import apply_prim_func
from ..values import ClosureV, PrimFuncV, PrimV, ShapeV, StorageV, TVal, describe


def _tuple_arg(v: Any) -> tuple:
    """A tuple of arguments; a single tensor counts as a tuple of one (the operator's check has
    excluded anything else)."""
    return v if isinstance(v, tuple) and not isinstance(v, ShapeV) else (v,)


def _tir_vars(vals: List[Any], i: int) -> list:
    if len(vals) <= i or vals[i] is None:
        return []
    return [PrimV(d.val, "int64", d) for d in vals[i]]


def _alloc(ctx, s: si.StructInfo) -> TVal:
    s = allocatable(s, ctx.call.span)
    dims = ctx.walker.sinfo_dims(s, ctx.frame)
    if dims is None:
        raise unknown_output_shape(ctx.call.span)
    for d in dims:
        if d.is_static and dim_value(d.val) < 0:
            from relax_ref.errors import ShapeMismatchError

            raise ctx.error(ShapeMismatchError, f"shape dimension evaluates to the negative value {d.val}")
    from ..errors import NeedsExact

    shape = []
    for d in dims:
        if d.phys is None:
            raise NeedsExact("an output extent has no static bound")
        shape.append(dim_value(d.phys))
    return ctx.walker.tensor_from(jnp.zeros(tuple(shape), np_dtype(s.dtype)), dims)


def _result(outs, is_tuple):
    return tuple(outs) if is_tuple else outs[0]


@lowering("relax.call_tir", "relax.call_tir_with_grad", padding="aware")
def _call_tir(ctx, *args):
    """(CALL.TIR.5) fresh zero-filled outputs, inputs read-only, TVM's argument order (DIV.1)."""
    vals = ctx.vals
    pf = vals[0]
    inputs = list(_tuple_arg(vals[1]))
    infos, is_tuple = dps_outputs(ctx.call)
    outs = [_alloc(ctx, s) for s in infos]
    tv = _tir_vars(vals, 2)
    apply_prim_func(ctx.walker, pf, inputs + outs + tv,
                    [True] * len(inputs) + [False] * (len(outs) + len(tv)), ctx.call)
    return _result(outs, is_tuple)


@lowering("relax.call_tir_inplace", padding="aware")
def _call_tir_inplace(ctx, *args):
    """(CALL.INPLACE.3-4) outputs alias the inputs named by ``inplace_indices`` (-1: fresh)."""
    vals = ctx.vals
    pf = vals[0]
    inputs = list(_tuple_arg(vals[1]))
    infos, is_tuple = dps_outputs(ctx.call)
    idx = ctx.attrs.get("inplace_indices")
    idx = [idx] if isinstance(idx, int) else list(idx or ())
    outs, fresh = [], []
    for k, (i, s) in enumerate(zip(idx, infos)):
        i = int(i)
        if i == -1:
            t = _alloc(ctx, s)
            fresh.append(t)
            outs.append(t)
        else:
            ctx.walker.check_values([(inputs[i], s, f"in-place output {k}")], _frame_copy(ctx.frame),
                                    site="call_tir", bind=False, span=ctx.span)
            outs.append(inputs[i])
    mutated = [inputs[int(i)] for i in idx if int(i) != -1]
    readonly = [all(x is not y for y in mutated) for x in inputs]
    tv = _tir_vars(vals, 2)
    apply_prim_func(ctx.walker, pf, inputs + fresh + tv, readonly + [False] * (len(fresh) + len(tv)), ctx.call)
    return _result(outs, is_tuple)


def _frame_copy(frame: Frame) -> Frame:
    return Frame(frame.env, dict(frame.sym), frame.function)


@lowering("relax.call_dps_packed", padding="aware")
def _call_dps_packed(ctx, *args):
    """(CALL.DPS.2) outputs allocated, ``func(inputs..., outputs...)``, outputs returned."""
    vals = ctx.vals
    fn = vals[0]
    inputs = list(_tuple_arg(vals[1]))
    infos, is_tuple = dps_outputs(ctx.call)
    outs = [_alloc(ctx, s) for s in infos]
    if isinstance(fn, PrimFuncV):
        apply_prim_func(ctx.walker, fn, inputs + outs, [True] * len(inputs) + [False] * len(outs), ctx.call)
    else:
        ctx.walker.call_packed(fn, inputs + outs, ctx.call)
    return _result(outs, is_tuple)


@lowering("relax.call_pure_packed", padding="aware")
def _call_packed(ctx, *args):
    """(CALL.PACKED.4) ``func(args...)``."""
    vals = ctx.vals
    return ctx.walker.call_value(vals[0], list(vals[1:]), ctx.call)


@lowering("relax.call_inplace_packed", padding="aware")
def _call_inplace_packed(ctx, *args):
    """(CALL.IPACKED.1-2) ``func(args...)``; an in-place function's mutations are seen through the
    argument boxes, and each in-place output must be its argument's box itself."""
    vals = ctx.vals
    result = ctx.walker.call_value(vals[0], list(vals[1:]), ctx.call)
    check_inplace_result(result, vals[1:], ctx.attrs.get("inplace_indices"), getattr(vals[0], "name", "function"))
    return result


@lowering("relax.call_builtin_with_ctx", padding="aware")
def _call_builtin_with_ctx(ctx, *args):
    vals = ctx.vals
    return ctx.walker.call_value(vals[0], [None, *_tuple_arg(vals[1])], ctx.call)


@lowering("relax.vm.call_tir_dyn", padding="aware")
def _call_tir_dyn(ctx, *args):
    vals = ctx.vals
    pf = vals[0]
    rest = list(_tuple_arg(vals[1]))
    apply_prim_func(ctx.walker, pf, rest[:-1] + [PrimV(d.val, "int64", d) for d in rest[-1]],
                    [False] * (len(rest) - 1 + len(rest[-1])), ctx.call)
    return ()


@lowering("relax.invoke_closure", "relax.invoke_pure_closure", padding="aware")
def _invoke_closure(ctx, *args):
    return ctx.walker.call_value(ctx.vals[0], list(_tuple_arg(ctx.vals[1])), ctx.call)


@lowering("relax.make_closure", padding="aware")
def _make_closure(ctx, *args):
    fn = ctx.vals[0]
    captured = _tuple_arg(ctx.vals[1])
    return ClosureV(fn.func, fn.env, fn.name, fn.captured + tuple(captured), None)


@lowering("relax.shape_of", padding="aware")
def _shape_of(ctx, t):
    return ShapeV(ctx.vals[0].dims())


@lowering("relax.tensor_to_shape", host_only=True)
def _tensor_to_shape(ctx, t):
    return ShapeV(tensor_to_shape(np.asarray(ctx.vals[0].data)))


@lowering("relax.shape_to_tensor", padding="aware")
def _shape_to_tensor(ctx, s):
    if not s:
        return jnp.zeros((0,), jnp.int64)
    if s.is_static:
        return jnp.asarray(np.array(s.ints(), np.int64))
    return jnp.stack([jnp.asarray(d.val, jnp.int64) for d in s])


@lowering("relax.null_value", padding="aware")
def _null_value(ctx):
    return None


@lowering("relax.hint_on_device", "relax.ensure_zero_offset", "relax.builtin.stop_lift_params", padding="aware")
def _identity(ctx, *args):
    return ctx.vals[0]


@lowering("relax.to_vdevice", padding="aware")
def _to_vdevice(ctx, *args):
    """A copy of the tensor (placement itself is not modelled, VAL.TENSOR.3)."""
    v = ctx.vals[0]
    if isinstance(v, TVal):
        return TVal(v.data, v.valid, ctx.walker.level)
    return v


@lowering("relax.print", host_only=True)
def _print(ctx, *args):
    """(CALL.PRINT.1) rendered as the reference does."""
    vals = ctx.vals
    fmt = vals[0] if vals else ""
    ref = [ctx.walker._to_host(v, []) for v in vals[1:]]
    ctx.walker.exe._print(format_values(fmt, ref))
    return ()


@lowering("relax.assert_op", padding="aware")
def _assert_op(ctx, *args):
    """(CALL.ASSERT.1) a traced condition becomes a check site; the message is rendered on the host."""
    vals = ctx.vals
    cond = vals[0]
    ok = cond.val if isinstance(cond, PrimV) else cond.data
    fmt = vals[1] if len(vals) > 1 else ""
    span = ctx.span
    if ctx.mode == "host" or (is_static(ok) if not hasattr(ok, "shape") or isinstance(ok, np.ndarray) else False):
        okv = bool(np.asarray(ok))
        if not okv:
            rest = [ctx.walker._to_host(v, []) for v in vals[2:]]
            if fmt:
                msg = format_values(fmt, rest)
            elif rest:
                msg = ", ".join(format_values("", [v]) for v in rest)
            else:
                msg = "Assertion Failed"
            raise AssertionFailedError(msg, span)
        return ()
    ctx.check(jnp.logical_not(jnp.asarray(ok).astype(bool)), lambda: AssertionFailedError("Assertion Failed", span))
    return ()


@lowering("relax.builtin.alloc_tensor", padding="aware")
def _builtin_alloc_tensor(ctx, *args):
    vals = ctx.vals
    shape = vals[0]
    dt = _dtype(vals[1]) if len(vals) > 1 else ctx.attrs.get("dtype")
    return _zeros_like_shape(ctx, shape, dt)


def _dtype(v: Any) -> str:
    return v.name if isinstance(v, rv.DTypeValue) else v


def _zeros_like_shape(ctx, shape: ShapeV, dt: str) -> TVal:
    from ..errors import NeedsExact

    phys = []
    for d in shape:
        if d.phys is None:
            raise NeedsExact("an allocation extent has no static bound")
        phys.append(dim_value(d.phys))
    return ctx.walker.tensor_from(jnp.zeros(tuple(phys), np_dtype(dt)), tuple(shape))


@lowering("relax.memory.alloc_storage", "relax.vm.alloc_storage", padding="aware")
def _alloc_storage(ctx, *args):
    size = ctx.vals[0]
    if isinstance(size, ShapeV):
        n = size[0].val
    elif isinstance(size, PrimV):
        n = size.val
    else:
        raise ctx.error(TypeMismatchError, f"alloc_storage expects a size, got {describe(size)}")
    if not is_static(n):
        raise TraceAbort("a storage of data-dependent size")
    return StorageV(max(int(n), 0), ctx.walker.level)


@lowering("relax.memory.alloc_tensor", "relax.vm.alloc_tensor", padding="aware")
def _storage_tensor(ctx, *args):
    vals = ctx.vals
    storage, offset, shape, dt = vals[0], vals[1], vals[2], _dtype(vals[3])
    off = dim_value(offset.val) if isinstance(offset, PrimV) and is_static(offset.val) else None
    if off is None:
        raise TraceAbort("a tensor at a data-dependent storage offset")
    shp = ShapeV(shape) if isinstance(shape, ShapeV) else None
    if shp is None or not shp.is_static:
        raise TraceAbort("a storage tensor of symbolic shape")
    n = int(np.prod(shp.ints(), dtype=np.int64)) * np.dtype(np_dtype(dt)).itemsize
    if off < 0 or off + n > storage.nbytes:
        raise ctx.error(OpRuntimeError, f"tensor of {n} bytes at offset {off} exceeds its storage of "
                        f"{storage.nbytes} bytes")
    return carve(ctx.walker, storage, off, shp.ints(), np_dtype(dt))   # (CALL.ALLOC.2) aliases the storage


@lowering("relax.memory.kill_storage", "relax.memory.kill_tensor", "relax.vm.kill_object", padding="aware")
def _kill(ctx, *args):
    return ()


__all__: list = []


@lowering("relax.call_py_func", padding="aware")
def _call_py_func(ctx, name, args):
    """(OP.call_py_func.C4) the registered host function on the arguments."""
    fn = ctx.walker.lookup_packed(ctx.vals[0], ctx.span)
    return ctx.walker.call_value(fn, list(ctx.vals[1]), ctx.call)
