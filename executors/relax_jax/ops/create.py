"""Lowerings of the creation operators (semantics: ``relax_ref.ops.create``).

Creation with a symbolic shape allocates the padded size (the valid prefix is what matters);
``*_like`` keep their input's padding; ``tril``/``triu`` compare logical positions, so they are exact on
padded data.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.values import PrimScalar
from relax_ref.ir.struct_info import TensorStructInfo

from ..dims import dim_value
from ..errors import NeedsExact
from ..laxops import astype
from ..lowering import lowering
from ..prim_jax import cast, is_static, np_dtype
from ..transfer import filled
from ..values import PrimV, SymInt, TVal
from .common import dtype_of


def out_dtype_of(ctx) -> str:
    s = ctx.walker.inferred(ctx.call)
    if isinstance(s, TensorStructInfo) and s.dtype != "void":
        return s.dtype
    return ctx.call.struct_info.dtype


def _phys(shape) -> tuple:
    out = []
    for d in shape:
        if isinstance(d, SymInt):
            if d.is_static:
                out.append(dim_value(d.val))
            elif d.phys is None:
                raise NeedsExact("an extent without a static bound")
            else:
                out.append(dim_value(d.phys))
        else:
            out.append(int(d))
    return tuple(out)


def _box(ctx, data, dims) -> TVal:
    return ctx.walker.tensor_from(data, tuple(dims))


def _fill_value(ctx, fill, dtype: str):
    return cast(fill, dtype_of(fill), dtype)


@lowering("relax.full", padding="aware")
def _full(ctx, shape, fill):
    dt = out_dtype_of(ctx)
    v = _fill_value(ctx, fill, dt)
    return _box(ctx, jnp.full(_phys(shape), v, np_dtype(dt)), shape)


@lowering("relax.full_like", padding="aware")
def _full_like(ctx, x, fill):
    dt = out_dtype_of(ctx)
    v = _fill_value(ctx, fill, dt)
    return TVal(jnp.full(x.shape, v, np_dtype(dt)), ctx.vals[0].valid, ctx.walker.level)


def _const(value: int, like: bool):
    def low(ctx, a, *rest):
        dt = out_dtype_of(ctx)
        if like:
            return TVal(_filled(ctx, a.shape, value, dt), ctx.vals[0].valid, ctx.walker.level)
        return _box(ctx, _filled(ctx, _phys(a), value, dt), a)
    return low


def _filled(ctx, shape: tuple, value: int, dt: str):
    """``shape`` filled with ``value``: ``jnp.full`` in a trace; in host mode without a compilation
    where small (:func:`relax_jax.transfer.filled`: an allocating function's constants,
    :func:`relax_jax.plan.allocates_only`)."""
    if ctx.walker.traced:
        return jnp.full(shape, value, np_dtype(dt))
    return filled(shape, value, np_dtype(dt))


lowering("relax.zeros", padding="aware")(_const(0, False))
lowering("relax.ones", padding="aware")(_const(1, False))
lowering("relax.zeros_like", padding="aware")(_const(0, True))
lowering("relax.ones_like", padding="aware")(_const(1, True))


def _prim_scalar(v: PrimV) -> PrimScalar:
    return PrimScalar(v.val.item() if isinstance(v.val, np.generic) else v.val, v.dtype)


def _nonnegative_length(ctx, d: SymInt) -> None:
    """The length that ``arange``'s struct info gives (OP.arange.C2) evaluated below 0 -- e.g. an int64
    wrap of ``(end - start) // step`` for a start near 2^63 -- is the mismatch the reference reports
    against the 0 elements the values give (EVAL.CHECK.1), never a negative extent handed to XLA."""
    from relax_ref.errors import ShapeMismatchError

    v = d.val if d.is_static else d.phys
    if v is not None and dim_value(v) < 0:
        raise ctx.error(ShapeMismatchError, f"relax.arange: the length its struct info gives, "
                        f"{d.expr if d.expr is not None else d.val}, evaluates to the negative value "
                        f"{dim_value(v)}: the values give 0 elements")


@lowering("relax.arange", padding="aware")
def _arange(ctx, start, end, step):
    from relax_ref.ops.create import _arange_value_dtypes

    dt = out_dtype_of(ctx)
    dims = ctx.out_dims()
    if all(is_static(v.val) for v in (start, end, step)):
        from relax_ref.ops.create import _ref_arange

        r = _ref_arange([_prim_scalar(start), _prim_scalar(end), _prim_scalar(step)], ctx.attrs, ctx.call, None)
        # a transfer, not jnp.asarray: under compile-time evaluation that stages the constant through an
        # XLA compilation of its own (one per length)
        return jax.device_put(np.asarray(r))
    if dims is None:
        raise NeedsExact("arange of unknown length")
    _nonnegative_length(ctx, dims[0])
    n = _phys(dims)[0]
    prod_dt, tot_dt = _arange_value_dtypes(start.dtype, step.dtype)
    i = cast(lax.iota(np.int64, n) if type(n) is int else jnp.arange(n, dtype=jnp.int64), "int64", prod_dt)
    # a static step of 1 and start of 0 (the common ``arange(n)``) change no value: ``1 * i`` and
    # ``0 + p`` (p >= 0) are exact in every dtype, so they are not emitted
    if is_static(step.val) and step.val == 1:
        p = astype(i, np_dtype(prod_dt))
    else:
        sv = cast(jnp.asarray(step.val, np_dtype(step.dtype)), step.dtype, prod_dt)
        p = (sv * i).astype(np_dtype(prod_dt))
    if is_static(start.val) and start.val == 0:
        t = astype(cast(p, prod_dt, tot_dt), np_dtype(tot_dt))
    else:
        a = cast(jnp.asarray(start.val, np_dtype(start.dtype)), start.dtype, tot_dt)
        t = (a + cast(p, prod_dt, tot_dt)).astype(np_dtype(tot_dt))
    return _box(ctx, cast(t, tot_dt, dt), dims)


def _trilu(upper: bool):
    def low(ctx, x, k):
        kk = cast(jnp.asarray(k.val, np_dtype(k.dtype)), k.dtype, "int32").astype(jnp.int64)
        r = jnp.arange(x.shape[-2], dtype=jnp.int64)[:, None]
        c = jnp.arange(x.shape[-1], dtype=jnp.int64)[None, :]
        keep = (r <= c - kk) if upper else (r >= c - kk)
        return TVal(jnp.where(keep, x, jnp.zeros((), x.dtype)).astype(x.dtype), ctx.vals[0].valid, ctx.walker.level)
    return low


lowering("relax.tril", padding="aware")(_trilu(False))
lowering("relax.triu", padding="aware")(_trilu(True))


def _eye_values(n, m, k, dtype, pn, pm):
    i = jnp.arange(pn, dtype=jnp.int64)[:, None]
    j = jnp.arange(pm, dtype=jnp.int64)[None, :]
    return jnp.where(i == j - k, 1, 0).astype(np_dtype(dtype))


@lowering("relax.eye", padding="aware")
def _eye(ctx, n, m, k):
    dt = out_dtype_of(ctx)
    vals = []
    for v in (n, m):
        vals.append(v.sym if v.sym is not None else SymInt.static(ctx.static(v)))
    kk = jnp.asarray(k.val, jnp.int64) if not is_static(k.val) else dim_value(k.val)
    pn, pm = _phys(vals)
    return _box(ctx, _eye_values(None, None, kk, dt, pn, pm), vals)


@lowering("relax.eye_like", padding="aware")
def _eye_like(ctx, x, k):
    dt = out_dtype_of(ctx)
    kk = jnp.asarray(k.val, jnp.int64) if not is_static(k.val) else dim_value(k.val)
    return TVal(_eye_values(None, None, kk, dt, x.shape[0], x.shape[1]), ctx.vals[0].valid, ctx.walker.level)


@lowering("relax.hamming_window")
def _hamming(ctx, n, periodic, alpha, beta):
    from relax_ref.ops.create import hamming_values

    size = int(ctx.static(n, "window size"))
    for v in (periodic, alpha, beta):
        ctx.static(v)
    return jnp.asarray(hamming_values(size, bool(int(periodic.val)), _prim_scalar(alpha), _prim_scalar(beta),
                                      out_dtype_of(ctx)))


# ---------------------------------------------------------------------------------------------------
# datatype
# ---------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------
# linalg
# ---------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------
# layout_transform
# ---------------------------------------------------------------------------------------------------


