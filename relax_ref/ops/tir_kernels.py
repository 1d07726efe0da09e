"""Hand-written TensorIR kernels for the scan and sort operators (OP.STAT.KERNEL.1, OP.SEARCH.KERNEL.1).

TVM 0.25 does not lower ``cumsum``, ``cumprod``, ``sort``, ``argsort`` and ``topk`` in ``LegalizeOps``:
its ``DispatchSortScan`` pass calls TOPI kernels written with the IR builder (CPU sorts call an
external C++ ``std::stable_sort``). relax-ref legalizes them anyway, to plain loop-nest TensorIR that
the TensorIR interpreter runs, built here without the TE builder because a scan reads its own output
and a sort swaps elements in place:

* :class:`KernelBuilder` is the counterpart of :mod:`relax_ref.ops.te_bridge` for hand-written
  kernels: every tensor argument becomes a ``handle`` parameter matched to a buffer whose symbolic
  dims are fresh kernel-local variables (TIR.TE.BRIDGE.2); output buffers follow; variables that no
  input dimension binds become trailing scalar parameters passed through ``tir_vars``
  (TIR.TE.BRIDGE.4). :meth:`KernelBuilder.call` adds the PrimFunc and returns the ``call_tir``.
* :func:`scan_kernel` -- an inclusive or exclusive running sum/product along one axis, or over the
  row-major flattening of the input (OP.STAT.KERNEL.1).
* :func:`sort_rows_kernel` -- a stable insertion sort of every row along one axis, keeping the
  permutation (OP.SEARCH.KERNEL.1); its result rows feed ``sort``, ``argsort``, ``topk`` and
  ``median``.

Ordering (OP.SEARCH.KERNEL.2): an element comes *before* another in ascending order when it is
smaller, or when the other is NaN and it is not; in descending order when it is larger, or when it
is NaN and the other is not. Equal elements (and two NaNs) keep their input order, so the sort is
stable in both directions and NaNs gather at the end (ascending) or at the start (descending).
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import struct_info as si
from ..ir import tir
from ..ir.functor import prim_vars_in, substitute_prim
from . import te_ops

I64 = "int64"


def i64(v: int) -> P.IntImm:
    return P.IntImm(v, I64)


class KernelBuilder:
    """Collects the parameters of a hand-written PrimFunc for one Relax call (see module docstring)."""

    def __init__(self) -> None:
        self.var_map: Dict[P.PrimVar, P.PrimVar] = {}
        self.params: List[P.PrimVar] = []
        self.buffer_map: List[Tuple[P.PrimVar, tir.Buffer]] = []
        self.call_args: List[rx.Expr] = []
        self.outputs: List[tir.Buffer] = []
        self._names: set = set()
        self._vdevice = None

    def _fresh(self, base: str) -> str:
        name, k = base, 1
        while name in self._names:
            name = f"{base}_{k}"
            k += 1
        self._names.add(name)
        return name

    def local(self, e: P.PrimExpr) -> P.PrimExpr:
        """``e`` with the caller's symbolic variables replaced by kernel-local copies."""
        for v in prim_vars_in(e):
            if v not in self.var_map:
                self.var_map[v] = P.PrimVar(v.name, v.dtype)
        return substitute_prim(e, self.var_map)

    def _add(self, name: str, shape: Sequence[P.PrimExpr], dtype: str) -> tir.Buffer:
        buf = tir.Buffer(self._fresh(name), tuple(shape), dtype)
        h = P.PrimVar("var_" + buf.name, "handle")
        self.params.append(h)
        self.buffer_map.append((h, buf))
        return buf

    def input(self, e: rx.Expr, name: str) -> tir.Buffer:
        """A buffer for the tensor argument ``e`` (its shape must be a ShapeExpr, its dtype known)."""
        s = e.struct_info
        if not isinstance(s, si.TensorStructInfo) or not isinstance(s.shape, rx.ShapeExpr) or s.dtype == "void":
            raise RelaxError("a hand-written kernel needs tensor arguments with a ShapeExpr shape and a known "
                             "dtype", e.span)
        if self._vdevice is None:
            self._vdevice = s.vdevice
        self.call_args.append(e)
        return self._add(name, [self.local(d) for d in s.shape.values], s.dtype)

    def output(self, shape: Sequence[P.PrimExpr], dtype: str, name: str) -> tir.Buffer:
        """An output buffer; ``shape`` is given in kernel-local variables."""
        buf = self._add(name, shape, dtype)
        self.outputs.append(buf)
        return buf

    def call(self, ctx, body: tir.Stmt, name_hint: str, allocs: Sequence[tir.Buffer] = ()) -> rx.Call:
        """Build the PrimFunc (``allocs`` are flat temporaries), add it through ``ctx`` and return the
        ``call_tir`` (TIR.TE.BRIDGE.4-5)."""
        bound = {b.shape[i] for _, b in self.buffer_map[:len(self.call_args)] for i in range(len(b.shape))
                 if isinstance(b.shape[i], P.PrimVar)}
        used: Dict[P.PrimVar, None] = {}
        for _, b in self.buffer_map:
            for d in b.shape:
                prim_vars_in(d, used)
        for b in allocs:
            for d in b.shape:
                prim_vars_in(d, used)
        unbound = [v for v in used if v not in bound]
        stmts = [tir.AllocBuffer(b) for b in allocs] + [body]
        full = stmts[0] if len(stmts) == 1 else tir.SeqStmt(tuple(stmts))
        func = tir.PrimFunc(tuple(self.params) + tuple(unbound), full, tuple(self.buffer_map),
                            attrs={"tir.noalias": True})
        gv = ctx.add_prim_func(func, name_hint)
        inverse = {new: old for old, new in self.var_map.items()}
        out_sinfo = [si.TensorStructInfo(rx.ShapeExpr(tuple(substitute_prim(d, inverse) for d in b.shape)),
                                         b.dtype, vdevice=self._vdevice) for b in self.outputs]
        tir_vars = rx.ShapeExpr(tuple(substitute_prim(v, inverse) for v in unbound)) if unbound else None
        return ctx.call_tir(gv, tuple(self.call_args), out_sinfo, tir_vars)


# ---------------------------------------------------------------------------------------------------
# Loop helpers
# ---------------------------------------------------------------------------------------------------


def loop_nest(extents: Sequence[P.PrimExpr], names: Sequence[str],
              body: Callable[[List[P.PrimVar]], tir.Stmt]) -> tir.Stmt:
    """Serial loops ``for names[i] in range(extents[i])`` around ``body(loop_vars)``."""
    lvs = [P.PrimVar(n, I64) for n in names]
    stmt = body(lvs)
    for lv, ext in reversed(list(zip(lvs, extents))):
        stmt = tir.For(lv, i64(0), ext, "serial", stmt)
    return stmt


def seq(*stmts: tir.Stmt) -> tir.Stmt:
    flat = [s for s in stmts if s is not None]
    return flat[0] if len(flat) == 1 else tir.SeqStmt(tuple(flat))


def unravel(flat: P.PrimExpr, shape: Sequence[P.PrimExpr]) -> List[P.PrimExpr]:
    """Row-major indices of the flat position ``flat`` in ``shape``."""
    idx: List[P.PrimExpr] = []
    rest = flat
    for d in reversed(range(len(shape))):
        if d == 0:
            idx.append(rest)
        else:
            idx.append(te_ops.floormod(rest, shape[d]))
            rest = te_ops.floordiv(rest, shape[d])
    return list(reversed(idx))


def _with_axis(outer: Sequence[P.PrimExpr], axis: int, j: P.PrimExpr) -> Tuple[P.PrimExpr, ...]:
    return tuple(outer[:axis]) + (j,) + tuple(outer[axis:])


# ---------------------------------------------------------------------------------------------------
# Scans
# ---------------------------------------------------------------------------------------------------


def scan_kernel(kb: KernelBuilder, x: tir.Buffer, out: tir.Buffer, axis: Optional[int], op: str,
                exclusive: bool) -> tir.Stmt:
    """OP.STAT.KERNEL.1: ``out[.., j, ..] = out[.., j-1, ..] op cast(x[.., j, ..])`` along ``axis``
    (``op`` is ``"add"`` or ``"mul"``); the first element is ``cast(x[.., 0, ..])``, or the identity
    (0 / 1) when ``exclusive``, in which case element ``j`` combines ``x`` up to ``j - 1``. With
    ``axis=None`` the scan runs over the row-major flattening of ``x`` into the 1-D ``out``."""
    dt = out.dtype
    combine = te_ops.add if op == "add" else te_ops.mul
    ident = te_ops.const(0 if op == "add" else 1, dt)

    def elem(read_idx) -> P.PrimExpr:
        return te_ops.cast(dt, tir.BufferLoad(x, read_idx))

    def step(out_idx, prev_idx, read_cur, read_prev, j) -> tir.Stmt:
        first = tir.BufferStore(out, ident if exclusive else elem(read_cur), out_idx)
        rest_val = combine(tir.BufferLoad(out, prev_idx), elem(read_prev if exclusive else read_cur))
        rest = tir.BufferStore(out, rest_val, out_idx)
        return tir.IfThenElse(te_ops.eq(j, i64(0)), first, rest)

    if axis is None:
        n = out.shape[0]

        def body(lv):
            (j,) = lv
            jm1 = te_ops.sub(j, i64(1))
            return step((j,), (jm1,), tuple(unravel(j, x.shape)), tuple(unravel(jm1, x.shape)), j)

        return loop_nest([n], ["j"], body)

    outer_ext = [d for k, d in enumerate(x.shape) if k != axis]
    names = [f"i{k}" for k in range(len(outer_ext))]

    def body(lv):
        def inner(jv):
            (j,) = jv
            jm1 = te_ops.sub(j, i64(1))
            cur = _with_axis(lv, axis, j)
            prev = _with_axis(lv, axis, jm1)
            return step(cur, prev, cur, prev, j)

        return loop_nest([x.shape[axis]], ["j"], inner)

    return loop_nest(outer_ext, names, body)


# ---------------------------------------------------------------------------------------------------
# Sorting
# ---------------------------------------------------------------------------------------------------


def before(a: P.PrimExpr, b: P.PrimExpr, descending: bool) -> P.PrimExpr:
    """OP.SEARCH.KERNEL.2: whether ``a`` must be placed before ``b``."""
    from ..ir import dtype as _dt

    strict = te_ops.gt(a, b) if descending else te_ops.lt(a, b)
    if not _dt.is_float(a.dtype):
        return strict
    nan_first = te_ops.logical_and(te_ops.isnan(a), te_ops.logical_not(te_ops.isnan(b))) if descending else \
        te_ops.logical_and(te_ops.isnan(b), te_ops.logical_not(te_ops.isnan(a)))
    return te_ops.logical_or(strict, nan_first)


def sort_rows_kernel(x: tir.Buffer, vals: tir.Buffer, idx: tir.Buffer, axis: int, descending: bool,
                     emit: Callable[[List[P.PrimVar]], Optional[tir.Stmt]]) -> tir.Stmt:
    """OP.SEARCH.KERNEL.1: for every position of the dims other than ``axis``, copy the row of ``x``
    into ``vals`` (same shape as ``x``) with the positions ``0 .. n-1`` in ``idx`` (int64, same
    shape), sort the pair stably by value (insertion sort by adjacent swaps), then run
    ``emit(outer_loop_vars)`` -- a statement copying what the operator returns out of the sorted row
    (or None when ``vals``/``idx`` are the outputs themselves)."""
    n = x.shape[axis]
    outer_ext = [d for k, d in enumerate(x.shape) if k != axis]
    names = [f"i{k}" for k in range(len(outer_ext))]
    vt = P.PrimVar("v_tmp", vals.dtype)
    it = P.PrimVar("i_tmp", idx.dtype)

    def row(lv):
        def at(j):
            return _with_axis(lv, axis, j)

        fill = loop_nest([n], ["j"], lambda jv: seq(
            tir.BufferStore(vals, tir.BufferLoad(x, at(jv[0])), at(jv[0])),
            tir.BufferStore(idx, te_ops.cast(idx.dtype, jv[0]), at(jv[0]))))

        def sweep(lvs):
            i, t = lvs
            j = te_ops.sub(i, t)
            jm1 = te_ops.sub(j, i64(1))
            swap = seq(
                tir.Bind(vt, tir.BufferLoad(vals, at(j))),
                tir.BufferStore(vals, tir.BufferLoad(vals, at(jm1)), at(j)),
                tir.BufferStore(vals, vt, at(jm1)),
                tir.Bind(it, tir.BufferLoad(idx, at(j))),
                tir.BufferStore(idx, tir.BufferLoad(idx, at(jm1)), at(j)),
                tir.BufferStore(idx, it, at(jm1)))
            cond = before(tir.BufferLoad(vals, at(j)), tir.BufferLoad(vals, at(jm1)), descending)
            return tir.IfThenElse(cond, swap)

        iv = P.PrimVar("i", I64)
        tv = P.PrimVar("t", I64)
        sort = tir.For(iv, i64(1), te_ops.sub(n, i64(1)), "serial",
                       tir.For(tv, i64(0), iv, "serial", sweep([iv, tv])))
        # the loop above runs i = 1 .. n-1 (extent n - 1); for n <= 1 it does nothing
        return seq(fill, sort, emit(lv))

    return loop_nest(outer_ext, names, row)


__all__ = ["KernelBuilder", "loop_nest", "seq", "unravel", "scan_kernel", "before", "sort_rows_kernel", "i64"]
