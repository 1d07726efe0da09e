"""Random TensorIR kernels for ``R.call_tir``, built with :mod:`relax_ref.ops.te`.

:func:`kernel` draws one of four shapes of kernel for operands already in scope:

* ``elementwise`` -- ``out[i...] = f(a[i...], b[i...])`` over equal dims;
* ``broadcast`` -- ``out[i...] = f(a[i...], b[i_k...])`` where ``b`` has a suffix of ``a``'s dims;
* ``reduction`` -- ``out[i...] = sum/max_k g(a[..., k, ...])`` over one axis, with ``T.init``;
* ``two_stage`` -- an intermediate stage allocated in the root block, then an elementwise stage.

Buffer shapes are symbolic where the operand's dims are (one TIR variable per Relax root variable,
defined by ``match_buffer``), so kernels run at every size. The scalar bodies are random expressions
over the loads with interval ranges (``f`` and ``g`` below), so results stay finite; the
``op_pattern`` attribute TVM's fusion reads is set to the kernel's true pattern (0 elementwise,
1 broadcast, 3 reduction) when the generator's config asks for it.
"""

from __future__ import annotations

import math
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..ir import prim_expr as P
from ..ir import tir
from ..ops import te
from .domain import Dim, Range, TVal, limit
from .rules import Out

OP_PATTERN = {"elementwise": 0, "broadcast": 1, "two_stage": 0, "reduction": 3}


def _cexpr(v: float, dtype: str) -> P.PrimExpr:
    return P.FloatImm(v, dtype) if dtype.startswith("float") else P.IntImm(int(v), dtype)


def scalar_expr(src, leaves: Sequence[Tuple[P.PrimExpr, Range]], dtype: str,
                depth: int = 0) -> Tuple[P.PrimExpr, Range]:
    """A random scalar expression over ``leaves`` with its range (finite by construction)."""
    is_f = dtype.startswith("float")
    kinds = ["leaf"] if depth >= 2 else ["leaf", "binary", "unary", "select"]
    k = src.choice(kinds)
    if k == "leaf":
        if src.boolean(15):
            v = src.choice([1.0, 0.5, 2.0, -1.0]) if is_f else src.choice([1, 2, -1])
            return _cexpr(v, dtype), Range(v, v)
        return src.choice(list(leaves))
    a, ra = scalar_expr(src, leaves, dtype, depth + 1)
    if k == "unary":
        ops = ["neg", "abs"] + (["exp", "tanh", "sigmoid"] if is_f else [])
        op = src.choice(ops)
        if op == "neg":
            return te.neg(a), Range(-ra.hi, -ra.lo, ra.exact)
        if op == "abs":
            lo = 0.0 if ra.lo <= 0 <= ra.hi else min(abs(ra.lo), abs(ra.hi))
            return te.abs_(a), Range(lo, ra.mag, ra.exact)
        if op == "exp":
            if ra.hi > 4:
                return a, ra
            return te.exp(a), Range(math.exp(ra.lo), math.exp(ra.hi), False)
        if op == "tanh":
            return te.tanh(a), Range(math.tanh(ra.lo), math.tanh(ra.hi), False)
        return te.sigmoid(a), Range(0.0, 1.0, False)
    b, rb = scalar_expr(src, leaves, dtype, depth + 1)
    if k == "select":
        if not (ra.exact and rb.exact):
            return a, ra
        return te.select(te.lt(a, b), a, b), Range(min(ra.lo, rb.lo), min(ra.hi, rb.hi), True)
    op = src.choice(["add", "sub", "mul", "max", "min"])
    ex = ra.exact and rb.exact
    if op == "add":
        r = Range(ra.lo + rb.lo, ra.hi + rb.hi, ex)
        e = te.add(a, b)
    elif op == "sub":
        r = Range(ra.lo - rb.hi, ra.hi - rb.lo, ex)
        e = te.sub(a, b)
    elif op == "mul":
        vs = [p * q for p in (ra.lo, ra.hi) for q in (rb.lo, rb.hi)]
        r = Range(min(vs), max(vs), ex)
        e = te.mul(a, b)
    elif op == "max":
        r = Range(max(ra.lo, rb.lo), max(ra.hi, rb.hi), ex)
        e = te.max_(a, b)
    else:
        r = Range(min(ra.lo, rb.lo), min(ra.hi, rb.hi), ex)
        e = te.min_(a, b)
    if r.mag > limit(dtype) / 100:
        return a, ra
    return e, r


class _Shapes:
    """One TIR variable per distinct symbolic dim of the operands (``2 * n`` gets its own, as only a
    bare variable in a buffer shape is defined by ``match_buffer``)."""

    def __init__(self) -> None:
        self.vars: Dict[Tuple[int, int], P.PrimVar] = {}

    def expr(self, d: Dim) -> P.PrimExpr:
        if d.var is None:
            return P.IntImm(d.coef, "int64")
        key = (d.coef, id(d.var))
        v = self.vars.get(key)
        if v is None:
            name = d.var.name if d.coef == 1 else f"{d.var.name}_{d.coef}"
            v = self.vars[key] = P.PrimVar(name, "int64")
        return v

    def shape(self, dims: Sequence[Dim]) -> Tuple[P.PrimExpr, ...]:
        return tuple(self.expr(d) for d in dims)


def kernel(src, x: TVal, pick: Callable, *, op_pattern: bool = False
           ) -> Optional[Tuple[tir.PrimFunc, List[TVal], Out, str, Tuple[int, ...]]]:
    """A kernel consuming ``x`` (and maybe another tensor found with ``pick``): returns the PrimFunc,
    the operands in order, the output, the kernel kind and, for each output dim, the dim of ``x`` it
    equals; None if ``x`` does not fit any kind."""
    kinds = ["elementwise", "broadcast", "two_stage"] + (["reduction"] if x.ndim >= 1 else [])
    kind = src.choice(kinds)
    out_axes = tuple(range(x.ndim))
    sh = _Shapes()
    dtype = x.dtype
    if kind in ("elementwise", "two_stage"):
        y = pick(lambda t: t.same_type(x) and t is not x) if src.boolean(60) else None
        operands = [x] + ([y] if y is not None else [])
        phs = [te.placeholder(sh.shape(t.dims), dtype, f"in{i}") for i, t in enumerate(operands)]

        def loads(idx):
            return [(ph(*idx) if idx else ph(), t.range) for ph, t in zip(phs, operands)]

        if kind == "elementwise":
            box = {}

            def f(*idx):
                e, box["r"] = scalar_expr(src, loads(idx), dtype)
                return e

            out = te.compute(sh.shape(x.dims), f, name="compute", index_names=[f"i{k}" for k in range(x.ndim)])
            r = box["r"]
        else:
            box = {}

            def f1(*idx):
                e, box["r1"] = scalar_expr(src, loads(idx), dtype)
                return e

            mid = te.compute(sh.shape(x.dims), f1, name="mid", index_names=[f"i{k}" for k in range(x.ndim)])

            def f2(*idx):
                leaves = [((mid(*idx) if idx else mid()), box["r1"])] + loads(idx)
                e, box["r"] = scalar_expr(src, leaves, dtype)
                return e

            out = te.compute(sh.shape(x.dims), f2, name="compute", index_names=[f"i{k}" for k in range(x.ndim)])
            r = box["r"]
        func = te.create_prim_func(phs + [out])
        result = Out(x.dims, dtype, r)
    elif kind == "broadcast":
        if x.ndim == 0:
            return None
        k = src.integer(1, x.ndim)
        suffix = x.dims[x.ndim - k:]
        y = pick(lambda t: t.dtype == dtype and t.dims == suffix)
        if y is None:
            return None
        operands = [x, y]
        a = te.placeholder(sh.shape(x.dims), dtype, "a")
        b = te.placeholder(sh.shape(y.dims), dtype, "b")
        box = {}

        def fb(*idx):
            e, box["r"] = scalar_expr(src, [(a(*idx), x.range), (b(*idx[x.ndim - k:]), y.range)], dtype)
            return e

        out = te.compute(sh.shape(x.dims), fb, name="compute", index_names=[f"i{j}" for j in range(x.ndim)])
        func = te.create_prim_func([a, b, out])
        result = Out(x.dims, dtype, box["r"])
    else:
        axis = src.integer(0, x.ndim - 1)
        operands = [x]
        a = te.placeholder(sh.shape(x.dims), dtype, "a")
        rk = te.reduce_axis(sh.expr(x.dims[axis]), "k")
        use_max = src.boolean(40)
        out_dims = x.dims[:axis] + x.dims[axis + 1:]
        out_axes = out_axes[:axis] + out_axes[axis + 1:]
        box = {}

        def fr(*idx):
            full = idx[:axis] + (rk,) + idx[axis:]
            e, box["r"] = scalar_expr(src, [(a(*full), x.range)], dtype)
            return te.max(e, axis=rk) if use_max else te.sum(e, axis=rk)

        out = te.compute(sh.shape(out_dims), fr, name="red", index_names=[f"i{j}" for j in range(len(out_dims))])
        func = te.create_prim_func([a, out])
        r = box["r"]
        if not use_max:
            n = x.dims[axis].max_value()
            r = Range(min(r.lo * n, 0.0), max(r.hi * n, 0.0), r.exact and not dtype.startswith("float"))
        result = Out(out_dims, dtype, r)
    if op_pattern:
        func = tir.PrimFunc(func.params, func.body, func.buffer_map, func.ret_type,
                            attrs={**dict(func.attrs), "op_pattern": OP_PATTERN[kind]})
    return func, operands, result, kind, out_axes


__all__ = ["kernel", "scalar_expr", "OP_PATTERN"]
