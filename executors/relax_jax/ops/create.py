"""Lowerings of creation, data type, linear algebra and layout operators (semantics:
``relax_ref.ops.create``, ``datatype``, ``linalg``, ``layout_transform``).

Creation with a symbolic shape allocates the padded size (the valid prefix is what matters);
``*_like`` keep their input's padding; ``tril``/``triu`` compare logical positions, so they are exact on
padded data. ``matmul`` is padding-aware: a padded reduction axis is zeroed in both operands before the
``dot_general`` (so padding garbage, even NaN, never reaches valid results), padded row/column/batch
axes pass through. Float matmuls use ``Precision.HIGHEST``; 16-bit float matmuls accumulate
sequentially in the dtype as the reference (OP.LINALG.SEM.1). ``layout_transform`` maps indices with
the reference's index-map evaluation (static shapes) and scatters once.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.values import PrimScalar
from relax_ref.ir import dtype as _dt
from relax_ref.ir import prim_expr as P
from relax_ref.ir.struct_info import TensorStructInfo
from relax_ref.ops.elementwise import matched_dtype

from ..errors import NeedsExact
from ..lowering import lowering
from ..prim_jax import cast, is_static, np_dtype
from ..values import PrimV, SymInt, TVal
from .common import dtype_of


def _out_dt(ctx) -> str:
    s = ctx.walker.inferred(ctx.call)
    if isinstance(s, TensorStructInfo) and s.dtype != "void":
        return s.dtype
    return ctx.call.struct_info.dtype


def _phys(shape) -> tuple:
    out = []
    for d in shape:
        if isinstance(d, SymInt):
            if d.is_static:
                out.append(int(d.val))
            elif d.phys is None:
                raise NeedsExact("an extent without a static bound")
            else:
                out.append(int(d.phys))
        else:
            out.append(int(d))
    return tuple(out)


def _box(ctx, data, dims) -> TVal:
    return ctx.walker.tensor_from(data, tuple(dims))


def _fill_value(ctx, fill, dtype: str):
    return cast(fill, dtype_of(fill), dtype)


@lowering("relax.full", padding="aware")
def _full(ctx, shape, fill):
    dt = _out_dt(ctx)
    v = _fill_value(ctx, fill, dt)
    return _box(ctx, jnp.full(_phys(shape), v, np_dtype(dt)), shape)


@lowering("relax.full_like", padding="aware")
def _full_like(ctx, x, fill):
    dt = _out_dt(ctx)
    v = _fill_value(ctx, fill, dt)
    return TVal(jnp.full(x.shape, v, np_dtype(dt)), ctx.vals[0].valid, ctx.walker.level)


def _const(value: int, like: bool):
    def low(ctx, a, *rest):
        dt = _out_dt(ctx)
        if like:
            return TVal(jnp.full(a.shape, value, np_dtype(dt)), ctx.vals[0].valid, ctx.walker.level)
        return _box(ctx, jnp.full(_phys(a), value, np_dtype(dt)), a)
    return low


lowering("relax.zeros", padding="aware")(_const(0, False))
lowering("relax.ones", padding="aware")(_const(1, False))
lowering("relax.zeros_like", padding="aware")(_const(0, True))
lowering("relax.ones_like", padding="aware")(_const(1, True))


def _prim_scalar(v: PrimV) -> PrimScalar:
    return PrimScalar(v.val.item() if isinstance(v.val, np.generic) else v.val, v.dtype)


@lowering("relax.arange", padding="aware")
def _arange(ctx, start, end, step):
    from relax_ref.ops.create import _arange_value_dtypes

    dt = _out_dt(ctx)
    dims = ctx.out_dims()
    if all(is_static(v.val) for v in (start, end, step)):
        from relax_ref.ops.create import _ref_arange

        r = _ref_arange([_prim_scalar(start), _prim_scalar(end), _prim_scalar(step)], ctx.attrs, ctx.call, None)
        return jnp.asarray(r)
    if dims is None:
        raise NeedsExact("arange of unknown length")
    n = _phys(dims)[0]
    prod_dt, tot_dt = _arange_value_dtypes(start.dtype, step.dtype)
    i = jnp.arange(n, dtype=jnp.int64)
    sv = cast(jnp.asarray(step.val, np_dtype(step.dtype)), step.dtype, prod_dt)
    p = (sv * cast(i, "int64", prod_dt)).astype(np_dtype(prod_dt))
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
    dt = _out_dt(ctx)
    vals = []
    for v in (n, m):
        vals.append(v.sym if v.sym is not None else SymInt.static(ctx.static(v)))
    kk = jnp.asarray(k.val, jnp.int64) if not is_static(k.val) else int(k.val)
    pn, pm = _phys(vals)
    return _box(ctx, _eye_values(None, None, kk, dt, pn, pm), vals)


@lowering("relax.eye_like", padding="aware")
def _eye_like(ctx, x, k):
    dt = _out_dt(ctx)
    kk = jnp.asarray(k.val, jnp.int64) if not is_static(k.val) else int(k.val)
    return TVal(_eye_values(None, None, kk, dt, x.shape[0], x.shape[1]), ctx.vals[0].valid, ctx.walker.level)


@lowering("relax.hamming_window")
def _hamming(ctx, n, periodic, alpha, beta):
    from relax_ref.ops.create import hamming_values

    size = int(ctx.static(n, "window size"))
    for v in (periodic, alpha, beta):
        ctx.static(v)
    return jnp.asarray(hamming_values(size, bool(int(periodic.val)), _prim_scalar(alpha), _prim_scalar(beta),
                                      _out_dt(ctx)))


# ---------------------------------------------------------------------------------------------------
# datatype
# ---------------------------------------------------------------------------------------------------


@lowering("relax.astype", "relax.wrap_param", padding="elementwise")
def _astype(ctx, x):
    if isinstance(x, PrimV):
        x = jnp.asarray(x.val, np_dtype(x.dtype))
    src = dtype_of(x)
    return cast(x, src, ctx.attrs.get("dtype") or src)


# ---------------------------------------------------------------------------------------------------
# linalg
# ---------------------------------------------------------------------------------------------------


def _mask_axis(x, axis: int, d: Any):
    if d is None:
        return x
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    keep = jnp.arange(x.shape[axis], dtype=jnp.int64).reshape(shape) < jnp.asarray(d.val, jnp.int64)
    return jnp.where(keep, x, jnp.zeros((), x.dtype))


def matmul_values(a, b, cd: str):
    """``a @ b`` (2-D or batched, already converted to ``cd``)."""
    if cd == "bool":
        return jnp.matmul(a.astype(jnp.int32), b.astype(jnp.int32)) != 0
    if cd in ("float16", "bfloat16"):
        shape = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        ab = jnp.broadcast_to(a, shape + a.shape[-2:])
        bb = jnp.broadcast_to(b, shape + b.shape[-2:])
        acc0 = jnp.zeros(shape + (a.shape[-2], b.shape[-1]), a.dtype)

        def body(k, acc):
            xa = lax.dynamic_slice_in_dim(ab, k, 1, axis=ab.ndim - 1)
            xb = lax.dynamic_slice_in_dim(bb, k, 1, axis=bb.ndim - 2)
            return (acc + (xa * xb).astype(a.dtype)).astype(a.dtype)
        return lax.fori_loop(0, a.shape[-1], body, acc0)
    if _dt.is_float(cd):
        # operands are already in ``cd``: no preferred element type (it changes XLA's gemv kernel)
        return jnp.matmul(a, b, precision=lax.Precision.HIGHEST)
    return jnp.matmul(a, b, preferred_element_type=np_dtype(cd))


@lowering("relax.matmul", padding="aware")
def _matmul(ctx, a, b):
    da, db = dtype_of(a), dtype_of(b)
    od = ctx.attrs.get("out_dtype") or "void"
    cd = od if od != "void" else matched_dtype(da, db)
    va, vb = list(ctx.valid(0)), list(ctx.valid(1))
    dima, dimb = list(ctx.vals[0].dims()), list(ctx.vals[1].dims())
    a_vec, b_vec = a.ndim == 1, b.ndim == 1
    if a_vec:
        a = a.reshape((1,) + a.shape)
        va, dima = [None] + va, [SymInt.static(1)] + dima
    if b_vec:
        b = b.reshape(b.shape + (1,))
        vb, dimb = vb + [None], dimb + [SymInt.static(1)]
    ka, kb = dima[-1], dimb[-2]
    if not (ka.is_static and kb.is_static) and a.shape[-1] != b.shape[-2]:
        raise NeedsExact("matmul with differently padded reduction axes")
    ba, bb = dima[:-2], dimb[:-2]
    nb = max(len(ba), len(bb))
    ba = [SymInt.static(1)] * (nb - len(ba)) + ba
    bb = [SymInt.static(1)] * (nb - len(bb)) + bb
    for x, y in zip(ba, bb):
        if not (x.is_static and y.is_static) and not (x.is_static and int(x.val) == 1) and \
                not (y.is_static and int(y.val) == 1):
            if (x.phys if not x.is_static else x.val) != (y.phys if not y.is_static else y.val):
                raise NeedsExact("matmul broadcasting a padded batch axis")
    x = cast(a, da, cd)
    y = cast(b, db, cd)
    # a padded reduction axis: zero both operands beyond the valid length
    x = _mask_axis(x, x.ndim - 1, va[-1])
    y = _mask_axis(y, y.ndim - 2, vb[-2])
    r = matmul_values(x, y, cd)
    if a_vec:
        r = r[..., 0, :]
    if b_vec:
        r = r[..., 0]
    return cast(jnp.asarray(r).astype(np_dtype(cd)), cd, _out_dt(ctx))


@lowering("relax.outer", padding="aware")
def _outer(ctx, a, b):
    da, db = dtype_of(a), dtype_of(b)
    cd = matched_dtype(da, db)
    r = jnp.multiply(cast(a, da, cd)[:, None], cast(b, db, cd)[None, :])
    out_dt = _out_dt(ctx) if _out_dt(ctx) != "void" else da
    va, vb = ctx.valid(0), ctx.valid(1)
    return TVal(cast(r.astype(np_dtype(cd)), cd, out_dt), (va[0], vb[0]), ctx.walker.level)


@lowering("relax.einsum")
def _einsum(ctx, ops):
    from relax_ref.ops.linalg import einsum_plan, parse_einsum

    arrays = list(ops)
    spec, targets = einsum_plan(parse_einsum(ctx.attrs.get("subscripts", "")), [a.shape for a in arrays])
    views = [jnp.broadcast_to(a, t) for a, t in zip(arrays, targets)]
    dt = dtype_of(arrays[0])
    if dt == "bool":
        r = jnp.einsum(spec, *[v.astype(jnp.int32) for v in views]) != 0
    else:
        prec = lax.Precision.HIGHEST if _dt.is_float(dt) else None
        r = jnp.einsum(spec, *views, precision=prec, preferred_element_type=np_dtype(dt))
    return jnp.asarray(r).astype(arrays[0].dtype)


# ---------------------------------------------------------------------------------------------------
# layout_transform
# ---------------------------------------------------------------------------------------------------


@lowering("relax.layout_transform")
def _layout_transform(ctx, x):
    from relax_ref.ops.layout_transform import _grid, _np_eval, _pad_scalar, map_shape

    imap = ctx.attrs["index_map"]
    shape = map_shape(imap, [P.IntImm(int(d), "int64") for d in x.shape])
    out_shape = tuple(int(d.value) for d in shape)
    pad = _pad_scalar(ctx.call, np.dtype(x.dtype))
    out = jnp.full(out_shape, pad, x.dtype)
    size = int(np.prod(x.shape, dtype=np.int64)) if x.shape else 1
    if size:
        env = _grid(imap, tuple(int(d) for d in x.shape), list(imap.initial_indices))
        idx = tuple(np.broadcast_to(np.asarray(_np_eval(f, env)), (size,)) for f in imap.final_indices)
        out = out.at[idx].set(jnp.reshape(x, (-1,)))
    return out
