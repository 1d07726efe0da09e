"""Lowerings of ``matmul``, ``outer`` and ``einsum`` (semantics: ``relax_ref.ops.linalg``).

``matmul`` is padding-aware: a padded reduction axis is zeroed in both operands before the
``dot_general`` (so padding garbage, even NaN, never reaches valid results), padded row/column/batch
axes pass through. Float matmuls use ``Precision.HIGHEST``; 16-bit float matmuls accumulate
sequentially in the dtype as the reference (OP.LINALG.SEM.5); a large ``float32`` matrix-vector
product is summed by reductions (:func:`_matvec_by_rows`). ``einsum`` follows the reference's plan
(``relax_ref.ops.linalg.einsum_loop_plan``), float16 in the same loop order (``lax.fori_loop``).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, FrozenSet, Optional, Tuple

import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.ir import dtype as _dt
from relax_ref.ops.elementwise import matched_dtype
from relax_ref.ops.linalg import einsum_aligned, float32_contraction, sequential_contraction

from .. import laxops
from ..dims import dim_value
from ..errors import NeedsExact
from ..lowering import lowering
from ..prim_jax import cast, np_dtype
from ..values import SymInt, TVal
from .common import dtype_of
from .create import out_dtype_of
from .nn_common import FOps


def _mask_axis(x, axis: int, d: Any):
    if d is None:
        return x
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    keep = laxops.iota_lt(x.shape[axis], laxops.astype(d.val, np.dtype(np.int64)), shape, axis)
    return laxops.where(keep, x, np.zeros((), x.dtype))


def matmul_values(a, b, cd: str, repeated: FrozenSet = frozenset()):
    """``a @ b`` (2-D or batched, already converted to ``cd``; ``repeated``: :func:`_dot2d`)."""
    if cd == "bool":
        return jnp.matmul(a.astype(jnp.int32), b.astype(jnp.int32)) != 0
    if float32_contraction(cd):
        # OP.LINALG.SEM.4: float32 products (exact) and sums, rounded once
        return _canonical_matmul(a, b, precision=lax.Precision.HIGHEST, preferred_element_type=jnp.float32,
                                 repeated=repeated).astype(a.dtype)
    if sequential_contraction(cd):     # OP.LINALG.SEM.5
        shape = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        ab = jnp.broadcast_to(a, shape + a.shape[-2:])
        bb = jnp.broadcast_to(b, shape + b.shape[-2:])
        acc0 = jnp.zeros(shape + (a.shape[-2], b.shape[-1]), a.dtype)
        f = FOps(cd)        # each product and sum in float32, rounded: XLA keeps no rounding of float16 ops

        def body(k, acc):
            xa = lax.dynamic_slice_in_dim(ab, k, 1, axis=ab.ndim - 1)
            xb = lax.dynamic_slice_in_dim(bb, k, 1, axis=bb.ndim - 2)
            return f.add(acc, f.mul(xa, xb))
        return lax.fori_loop(0, a.shape[-1], body, acc0)
    if _dt.is_float(cd):
        # operands are already in ``cd``: no preferred element type (it changes XLA's gemv kernel)
        return _canonical_matmul(a, b, precision=lax.Precision.HIGHEST, repeated=repeated)
    return _canonical_matmul(a, b, preferred_element_type=np_dtype(cd))


def _canonical_matmul(a, b, repeated: FrozenSet = frozenset(), **kw):
    """``jnp.matmul`` with a batched left operand and a 2-D right operand (``x @ weight``) as one 2-D
    ``dot`` of the rows: XLA's dot decomposer would otherwise wrap both operands in identity
    transposes that only the algebraic simplifier removes, and the strict float rules turn that pass
    off (:mod:`relax_jax.float_rules`), leaving a copy of the weight on every call. The rows' values
    are the same dot products (``repeated``: :func:`_dot2d`)."""
    if b.ndim == 2 and a.ndim > 2:
        lead = tuple(a.shape[:-1])
        r = _dot2d(laxops.reshape(a, (math.prod(lead), a.shape[-1])), b, repeated=repeated, **kw)
        return laxops.reshape(r, lead + (b.shape[-1],))
    if a.ndim == 2 and b.ndim == 2:
        return _dot2d(a, b, repeated=repeated, **kw)
    return jnp.matmul(a, b, **kw)


def _dot2d(a, b, precision=None, preferred_element_type=None, repeated: FrozenSet = frozenset()):
    """``jnp.matmul`` of two matrices of one dtype: the ``dot_general`` it binds (the result type
    the given one or the operands'); a large matrix-vector product summed in ``float32`` as
    :func:`_matvec_by_rows` (``repeated``: the weight shapes :func:`repeated_weights` found)."""
    if a.dtype != b.dtype:
        return jnp.matmul(a, b, precision=precision, preferred_element_type=preferred_element_type)
    pet = np.dtype(preferred_element_type) if preferred_element_type is not None else a.dtype
    if _rows_matvec(a, b, pet, repeated):
        return _matvec_by_rows(a, b)
    return lax.dot_general(a, b, (((1,), (0,)), ((), ())), precision=precision, preferred_element_type=pet)


#: the rows of the weight a matrix-vector product sums in one step (:func:`_matvec_by_rows`)
MATVEC_BLOCK = 8
#: the weights (elements, ``k * n``) whose matrix-vector products :func:`_matvec_by_rows` computes: from
#: the first bound when the function multiplies by weights of that shape more than once
#: (:func:`repeated_weights`), from the second when it does once, up to the third
MATVEC_ELEMENTS = (1 << 20, 1 << 22, 1 << 24)


_BF16 = np.dtype(jnp.bfloat16)


def _rows_matvec(a, b, pet, repeated: FrozenSet = frozenset()) -> bool:
    """Whether ``a @ b`` is a product of one row and a weight of :data:`MATVEC_ELEMENTS` whose rows
    :data:`MATVEC_BLOCK` divides, summed in ``float32``: ``float32`` operands, or ``bfloat16`` ones
    accumulated in ``float32`` (OP.LINALG.SEM.4)."""
    if not all(isinstance(d, (int, np.integer)) for d in tuple(a.shape) + tuple(b.shape)):
        return False            # a jax.export dimension: the dot
    if a.shape[0] != 1 or pet != np.float32 or not (a.dtype == np.float32 or np.dtype(a.dtype) == _BF16):
        return False
    k, n = (int(d) for d in b.shape)
    low = MATVEC_ELEMENTS[0] if (k, n) in repeated else MATVEC_ELEMENTS[1]
    return k % MATVEC_BLOCK == 0 and low <= k * n <= MATVEC_ELEMENTS[2]


def repeated_weights(mod) -> FrozenSet[Tuple[int, int]]:
    """The static 2-D shapes ``(k, n)`` of ``R.matmul``'s right operand that some Relax function of
    ``mod`` multiplies by in two calls or more (a decoder's layers): the products whose reductions
    share their kernels (:func:`_matvec_by_rows`; the executable applies the set to all its
    functions)."""
    from relax_ref.ir import expr as rx
    from relax_ref.ir.functor import ExprVisitor

    class Weights(ExprVisitor):
        def __init__(self) -> None:
            self.count: Counter = Counter()

        def visit_binding(self, b) -> None:
            v = b.value
            if isinstance(v, rx.Call) and isinstance(v.op, rx.Op) and v.op.name == "relax.matmul" and \
                    len(v.args) == 2:
                shape = _static_2d(v.args[1].struct_info)
                if shape is not None:
                    self.count[shape] += 1
            super().visit_binding(b)

    out: set = set()
    for _, f in mod.functions_items():
        if isinstance(f, rx.Function):
            w = Weights()
            w.visit_expr(f)
            out |= {shape for shape, c in w.count.items() if c > 1}
    return frozenset(out)


def _repeated(walker) -> FrozenSet[Tuple[int, int]]:
    """:func:`repeated_weights` of the executable's module, found once per executable (the module does
    not change; as the walker's ``factor_only``)."""
    hit = getattr(walker.exe, "_repeated_weights", None)
    if hit is None or hit[0] is not walker.mod:
        hit = walker.exe._repeated_weights = (walker.mod, repeated_weights(walker.mod))
    return hit[1]


def _static_2d(si) -> Optional[Tuple[int, int]]:
    shape = getattr(getattr(si, "shape", None), "values", None)
    if shape is None or len(shape) != 2 or not all(isinstance(getattr(d, "value", None), int) for d in shape):
        return None
    return int(shape[0].value), int(shape[1].value)


def _matvec_by_rows(a, b):
    """``a @ b`` for one row ``a`` (1, k) as the products ``a[0, i] * b[i, :]`` summed over ``i``:
    blocks of :data:`MATVEC_BLOCK` rows, then the blocks (OP.LINALG.SEM.1; a ``float32`` sum is defined
    up to reassociation, OP.SEM.5, and XLA adds a product to a reduction's accumulator without
    contracting them).

    Why not the ``dot``: XLA's CPU backend compiles every matrix-vector ``dot`` into an LLVM kernel of
    its own, where fusions of the same computation share one kernel. A decoder's decode step has a
    product per weight (seven per layer), so its compile time grows with the layers: at the 1b
    configuration of ``benchmarks/llama_sizes.py`` (16 layers) the decode's XLA compilation took
    1.48-1.52 s with the dots and 0.98-1.00 s with these reductions, the step 158-170 ms either way
    (jaxlib 0.10.2, 2 cores; against the hand-written ``jax.jit`` decoder's dots, its decode ran 1.08x
    of the hand-written speed at 128 cached rows and 1.15x at 1024). Per product (16 or 32 of one
    shape in a program, the operand computed by a fused multiply) the reduction ran 0.99x of the dot's
    time at 2048 x 2048, 0.81x at 5632 x 2048 and 1.2-1.25x at 2048 x 512 and 1024 x 1024 (the one-row MLP of
    ``benchmarks/jax_bench.py``, 512 x 2048 and 2048 x 512, went from 1.04x to 1.08-1.12x of
    ``jax.jit``); at 2048 x 32000 (a vocabulary's head: one per program, nothing shared) it ran 1.28x,
    and far below a million elements the extra kernels of the two-step sum cost more than the dot (a
    decode at hidden size 128 ran twice as long), hence :data:`MATVEC_ELEMENTS`: from a million
    elements for a weight shape the function multiplies by more than once (the layers' kernels
    shared, :func:`repeated_weights`), from 2048 x 2048 for one it multiplies by once, up to 16
    million."""
    k, n = b.shape
    if a.dtype != np.float32:        # bfloat16: products exact in float32, summed there (OP.LINALG.SEM.4)
        a, b = lax.convert_element_type(a, np.float32), lax.convert_element_type(b, np.float32)
    p = lax.mul(lax.broadcast_in_dim(laxops.reshape(a, (k,)), (k, n), (0,)), b)
    blocks = lax.reduce_sum(laxops.reshape(p, (k // MATVEC_BLOCK, MATVEC_BLOCK, n)), (1,))
    return laxops.reshape(lax.reduce_sum(blocks, (0,)), (1, n))


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
        if not (x.is_static and y.is_static) and not (x.is_static and dim_value(x.val) == 1) and \
                not (y.is_static and dim_value(y.val) == 1):
            if (x.phys if not x.is_static else x.val) != (y.phys if not y.is_static else y.val):
                raise NeedsExact("matmul broadcasting a padded batch axis")
    x = cast(a, da, cd)
    y = cast(b, db, cd)
    # a padded reduction axis: zero both operands beyond the valid length
    x = _mask_axis(x, x.ndim - 1, va[-1])
    y = _mask_axis(y, y.ndim - 2, vb[-2])
    r = matmul_values(x, y, cd, _repeated(ctx.walker))
    if a_vec:
        r = r[..., 0, :]
    if b_vec:
        r = r[..., 0]
    out = out_dtype_of(ctx)
    return cast(laxops.astype(r, np_dtype(cd)), cd, cd if out == "void" else out)


@lowering("relax.outer", padding="aware")
def _outer(ctx, a, b):
    da, db = dtype_of(a), dtype_of(b)
    cd = matched_dtype(da, db)
    r = jnp.multiply(cast(a, da, cd)[:, None], cast(b, db, cd)[None, :])
    out_dt = out_dtype_of(ctx) if out_dtype_of(ctx) != "void" else da
    va, vb = ctx.valid(0), ctx.valid(1)
    return TVal(cast(r.astype(np_dtype(cd)), cd, out_dt), (va[0], vb[0]), ctx.walker.level)


@lowering("relax.einsum")
def _einsum(ctx, ops):
    from relax_ref.ops.linalg import einsum_loop_plan, parse_einsum

    arrays = list(ops)
    spec, targets, order = einsum_loop_plan(parse_einsum(ctx.attrs.get("subscripts", "")), [a.shape for a in arrays])
    views = [jnp.broadcast_to(a, t) for a, t in zip(arrays, targets)]
    dt = dtype_of(arrays[0])
    if dt == "bool":
        r = jnp.einsum(spec, *[v.astype(jnp.int32) for v in views]) != 0
    elif sequential_contraction(dt):
        r = _einsum_sequential(spec, order, views)
    else:
        prec = lax.Precision.HIGHEST if _dt.is_float(dt) else None
        acc = "float32" if float32_contraction(dt) else dt      # OP.LINALG.SEM.4: rounded once
        if acc != dt:       # converted first: jax does not promote 8-bit floats to a preferred type
            views = [laxops.astype(v, np.float32) for v in views]
        r = jnp.einsum(spec, *views, precision=prec, preferred_element_type=np_dtype(acc))
    return jnp.asarray(r).astype(arrays[0].dtype)


def _einsum_sequential(spec: str, order: str, views):
    """OP.LINALG.SEM.5 as the reference's ``_einsum_sequential``: the operands aligned to the output's
    then the reduction's letters (``einsum_aligned``), one step per reduction index in loop order
    (row-major over ``order``), the product left to right and the sum rounded to the dtype."""
    full = spec.split("->")[1] + order
    aligned = []
    for (unary, axes), v in zip(einsum_aligned(spec, order), views):
        a = jnp.einsum(unary, v)
        shape = [1] * len(full)
        for ax, n in zip(axes, a.shape):
            shape[ax] = n
        aligned.append(laxops.reshape(a, tuple(shape)))
    nout = len(full) - len(order)
    out_shape = jnp.broadcast_shapes(*[a.shape[:nout] for a in aligned])
    red_shape = jnp.broadcast_shapes(*[a.shape[nout:] for a in aligned])
    dtype = views[0].dtype
    f = FOps(np.dtype(dtype).name)      # each product and sum in float32, rounded (as matmul_values)

    def product(idx):
        p = None
        for a in aligned:
            t = a
            for j in reversed(range(len(idx))):
                if a.shape[nout + j] > 1:
                    t = lax.dynamic_index_in_dim(t, idx[j], axis=nout + j, keepdims=False)
                else:
                    t = lax.index_in_dim(t, 0, axis=nout + j, keepdims=False)
            p = t if p is None else f.mul(p, t)
        return jnp.broadcast_to(p, out_shape)

    if not order:
        return product(())
    if math.prod(red_shape) == 0:
        return jnp.zeros(out_shape, dtype)

    def body(k, acc):
        idx, rest = [], k
        for n in reversed(red_shape):
            idx.append(rest % n)
            rest = rest // n
        return f.add(acc, product(idx[::-1]))
    return lax.fori_loop(0, math.prod(red_shape), body, jnp.zeros(out_shape, dtype))
