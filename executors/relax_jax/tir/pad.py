"""Zero padding across the nests of one PrimFunc (a rule of the vectorized TensorIR lowering).

A map nest that writes a whole buffer ``P`` as ``if_then_else(box, A[v + c], 0)`` -- TVM's pad
kernels (``pad_temp`` before a convolution) -- where ``box`` is exactly the set of points at which
``A[v + c]`` lies inside ``A``, makes ``P`` the zero-padded copy of ``A`` (padding ``-c`` before and
``P - A + c`` after, per axis). The nest still runs as written; :func:`record` remembers the pair,
and a convolution window read from ``P`` (:func:`relax_jax.tir.nest._conv`) reads ``A`` with the
convolution's own zero padding instead, which XLA does not materialise. The record holds the arrays
themselves, so a later write to ``P`` (another array) ends it, and a later write to ``A`` does not
matter (the record keeps the array that was padded).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from relax_ref.arith.intrinsics import canonical_name
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir

from .analysis import Nest, substitute_bindings
from .index_forms import linear_index


class PadSource:
    """``padded`` (the array of ``P`` written by the pad nest) is ``source`` zero-padded by ``lo``
    elements before each axis."""

    __slots__ = ("padded", "source", "lo")

    def __init__(self, padded: Any, source: Any, lo: List[int]) -> None:
        self.padded = padded
        self.source = source
        self.lo = lo


def _int(e) -> Optional[int]:
    return e.value if isinstance(e, P.IntImm) else None


def _bounds(cond: P.PrimExpr, vars_) -> Optional[Dict[Any, Tuple[Optional[int], Optional[int]]]]:
    """``cond`` as a conjunction of ``lo <= v`` / ``v < hi`` (any comparison of one variable of
    ``vars_`` with a constant): ``{v: (lo, hi)}``; None when it is anything else."""
    out: Dict[Any, list] = {}
    stack = [cond]
    while stack:
        c = stack.pop()
        if isinstance(c, P.And):
            stack += [c.a, c.b]
            continue
        if not isinstance(c, (P.LT, P.LE, P.GT, P.GE)):
            return None
        a, b, t = c.a, c.b, type(c)
        if isinstance(a, P.IntImm) and isinstance(b, P.PrimVar):
            a, b, t = b, a, {P.LT: P.GT, P.LE: P.GE, P.GT: P.LT, P.GE: P.LE}[t]
        if not (isinstance(a, P.PrimVar) and a in vars_ and isinstance(b, P.IntImm)):
            return None
        lo, hi = out.setdefault(a, [None, None])
        k = b.value
        if t is P.LT:
            hi = k if hi is None else min(hi, k)
        elif t is P.LE:
            hi = k + 1 if hi is None else min(hi, k + 1)
        elif t is P.GT:
            lo = k + 1 if lo is None else max(lo, k + 1)
        else:
            lo = k if lo is None else max(lo, k)
        out[a] = [lo, hi]
    return {v: (lo, hi) for v, (lo, hi) in out.items()}


def pad_form(kx, nest: Nest) -> Optional[Tuple[Any, Any, List[int]]]:
    """``(P's data var, A's data var, lo)`` when ``nest`` is a pad nest (module docstring)."""
    st = nest.body
    if nest.reduction is not None or nest.init is not None or nest.predicate is not None or \
            not isinstance(st, tir.BufferStore) or len(nest.written) != 1:
        return None
    v = st.value
    if not (isinstance(v, P.PrimCall) and canonical_name(v.op) == "tir.if_then_else" and len(v.args) == 3):
        return None
    cond, load, zero = v.args
    if not (isinstance(load, tir.BufferLoad) and isinstance(zero, (P.IntImm, P.FloatImm)) and zero.value == 0
            and load.dtype == st.buffer.dtype and load.buffer.data is not st.buffer.data):
        return None
    if kx.resolve(st.buffer)[1] is not None or kx.resolve(load.buffer)[1] is not None:
        return None
    binding_of = dict(nest.bindings)
    loops = {lp.loop_var: lp for lp in nest.loops}
    out_idx = [substitute_bindings(i, binding_of) for i in st.indices]
    pshape = [_int(n) for n in st.buffer.shape]
    ashape = [_int(n) for n in load.buffer.shape]
    if len(out_idx) != len(pshape) or len(load.indices) != len(ashape) or len(ashape) != len(pshape):
        return None
    # P's index: the loops in order, each over the whole axis
    for e, n in zip(out_idx, pshape):
        lp = loops.get(e)
        if n is None or lp is None or _int(lp.min) != 0 or _int(lp.extent) != n:
            return None
    parr, aarr = kx.arrays[st.buffer.data], kx.arrays[load.buffer.data]
    if list(parr.shape) != pshape or list(aarr.shape) != ashape:
        return None
    box = _bounds(substitute_bindings(cond, binding_of), set(out_idx))
    if box is None:
        return None
    lo = []
    for k, (e, i) in enumerate(zip(out_idx, load.indices)):
        lf = linear_index(kx, substitute_bindings(i, binding_of), [e])
        if lf is None or lf[0] != {e: 1}:
            return None
        c = lf[1]
        want = (-c, ashape[k] - c)
        got = box.pop(e, None)
        if got is None:
            if c != 0 or ashape[k] != pshape[k]:
                return None
        elif got != want:
            return None
        if -c < 0 or pshape[k] - ashape[k] + c < 0:
            return None
        lo.append(-c)
    if box:
        return None
    return st.buffer.data, load.buffer.data, lo


def record(kx, nest: Nest) -> None:
    """Remember ``P`` as the padded copy of ``A`` when ``nest`` (just run) is a pad nest."""
    form = pad_form(kx, nest)
    if form is not None:
        p, a, lo = form
        kx.pad_sources[p] = PadSource(kx.arrays[p], kx.arrays[a], lo)


def source_of(kx, dv) -> Optional[PadSource]:
    """The pad record of the buffer ``dv`` while its array is still the padded one."""
    rec = kx.pad_sources.get(dv)
    if rec is None or kx.arrays.get(dv) is not rec.padded:
        return None
    return rec


__all__ = ["PadSource", "pad_form", "record", "source_of"]
