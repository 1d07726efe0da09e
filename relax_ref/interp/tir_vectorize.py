"""The vectorized fast path of the TensorIR evaluator (TIR.VEC.1-TIR.VEC.5).

A *nest* is a perfect chain of ``For`` loops whose innermost body is either one block realize or a
tree of plain statements. When the nest qualifies (below), it is executed with numpy operations over
the whole iteration domain instead of one point at a time; the result is the one the scalar path
produces, with the single exception stated in TIR.VEC.4.

**(TIR.VEC.2) What qualifies** (checked statically, when the PrimFunc is compiled):

* the leaf (the block body and ``T.init``, or the statements under the loops) consists only of
  ``BufferStore``, ``Bind``/``LetStmt``, ``IfThenElse`` and no-op ``Evaluate`` statements; the block has
  no ``alloc_buffers`` or ``match_buffers``;
* every store to a buffer ``X`` uses one and the same index tuple ``I_X``, and every load of ``X``
  anywhere in the leaf uses exactly ``I_X`` (structural equality); ``I_X``, the block bindings, the
  predicate and the loop bounds never load a written buffer, and ``I_X`` does not use variables bound
  inside the leaf;
* the bounds of the inner loops do not depend on the nest's loop variables and do not load buffers;
* every expression is supported on arrays (all of chapter PRIM; unknown intrinsics disqualify).

**(TIR.VEC.3) Run-time conditions** (checked before anything is written; if one fails the nest runs
on the scalar path): the arrays of written buffers share no memory with any other buffer of the nest;
each ``I_X`` (which depends only on the *spatial* loops ``A`` -- those the written indices depend on;
the others are the *reduction* loops ``R``) maps the points of ``A`` to pairwise distinct elements.

Execution then treats every written element as a private register of its point of ``A``: registers
are gathered, the leaf is run for each point of ``R`` in loop order (vectorized over ``A``, with masks
for the predicate, ``T.init`` and ``IfThenElse``), and the registers are scattered back. Because the
points of ``A`` touch disjoint state, this is the scalar execution order up to reordering of
independent operations (*scan* strategy: bit-identical to the scalar path).

**(TIR.VEC.4)** For a recognised reduction (``X[I] = X[I] op e`` with ``op`` one of ``+ * min max``,
``e`` not reading written buffers, optional ``T.init`` storing to ``X[I]``) over a small spatial domain
the *full* strategy evaluates ``e`` over ``A x R`` at once (in chunks) and reduces it with numpy. Integer
results are exact; **floating-point sums and products may be reassociated** (numpy's pairwise summation
inside a chunk), so they agree with the scalar order only up to rounding. Float ``min``/``max`` follow
TVM's select semantics exactly (a NaN falls back to the scan strategy).

**(TIR.VEC.5)** Errors are the scalar path's: an out-of-bounds access of a point that executes raises
TIRBoundsError (with that point's indices), an integer division by zero at an executing point raises
DivisionByZeroError; points masked out by a predicate, a branch or ``if_then_else`` never raise. When
several points fail, the vectorized path may report a different one than the scalar path would.
"""

from __future__ import annotations

import itertools
from typing import Callable, Dict, Optional

import numpy as np

from ..analysis.loop_nest import LoopNest, Reduction, analyze_loop_nest
from ..errors import RelaxError, UnsupportedError
from ..ir import dtype as _dt
from ..ir import tir
from ..ir.functor import prim_vars_in
from .tir_array import ArrayCompiler, ArrayEnv, Register, and_mask, any_in, first_point, np_scalar
from .tir_buffers import bounds_error, buffer_array

#: the largest number of points materialised at once
LIMIT = 1 << 21
#: the full strategy is used for recognised reductions when the spatial domain is at most this big
FULL_MAX_M = 1024
#: nests with fewer points than this run on the scalar path (vectorizing would not pay off)
MIN_POINTS = 4


class _Retry(Exception):
    """The full strategy met a case it does not reproduce exactly: use the scan strategy."""


# ---------------------------------------------------------------------------------------------------
# Static analysis
# ---------------------------------------------------------------------------------------------------


def analyze_nest(s: tir.For, comp) -> Optional["NestPlan"]:
    """The vectorization plan of the nest rooted at ``s`` (TIR.VEC.2, :mod:`relax_ref.analysis.loop_nest`)
    compiled to array form, or None."""
    nest = analyze_loop_nest(s)
    if nest is None:
        return None
    try:
        return NestPlan(nest, comp, ArrayCompiler(registers=nest.written))
    except UnsupportedError:
        return None


# ---------------------------------------------------------------------------------------------------
# Compiled leaf statements (array form)
# ---------------------------------------------------------------------------------------------------


def _compile_leaf(s: Optional[tir.Stmt], ac: ArrayCompiler):
    if s is None:
        return lambda ae, m: None
    if isinstance(s, tir.SeqStmt):
        parts = [_compile_leaf(c, ac) for c in s.seq]

        def seq(ae, m):
            for p in parts:
                p(ae, m)
        return seq
    if isinstance(s, tir.BufferStore):
        buf = s.buffer
        fv = ac.compile(s.value)
        src, dst = s.value.dtype, buf.dtype
        nt = _dt.to_numpy(dst)
        from .tir_array import _cast_array

        def store(ae, m):
            val = fv(ae, m)
            if src != dst:
                val = _cast_array(val, src, dst)
            reg = ae.regs[buf]
            if reg.oob is not None and any_in(reg.oob, m):
                raise bounds_error(buf, first_point(reg.oob, m, reg.index), buffer_array(ae.env, buf).shape,
                                   write=True, span=s.span)
            if m is None:
                # registers are never modified in place, so a read-only broadcast view is enough
                v = np.broadcast_to(val, reg.acc.shape)
                reg.acc = v if v.dtype == nt else v.astype(nt)
                reg.written = np.ones(reg.acc.shape, bool)
            else:
                reg.acc = np.where(m, val, reg.acc).astype(nt, copy=False)
                reg.written = np.logical_or(reg.written, m)
        return store
    if isinstance(s, tir.Bind):
        fv, var = ac.compile(s.value), s.var

        def bind(ae, m):
            ae.vars[var] = fv(ae, m)
        return bind
    if isinstance(s, tir.LetStmt):
        fv, var, body = ac.compile(s.value), s.var, _compile_leaf(s.body, ac)

        def let(ae, m):
            ae.vars[var] = fv(ae, m)
            body(ae, m)
        return let
    if isinstance(s, tir.IfThenElse):
        fc = ac.compile(s.condition)
        then, other = _compile_leaf(s.then_case, ac), _compile_leaf(s.else_case, ac)

        def branch(ae, m):
            c = fc(ae, m)
            if not isinstance(c, np.ndarray):
                (then if c else other)(ae, m)
                return
            then(ae, and_mask(m, c))
            other(ae, and_mask(m, np.logical_not(c)))
        return branch
    if isinstance(s, tir.Evaluate):
        return lambda ae, m: None
    raise UnsupportedError(f"statement {type(s).__name__} in a vectorized nest")


def _as_mask(c):
    """Normalise a condition value: None (all points), False (none) or a bool array."""
    if isinstance(c, np.ndarray):
        if c.ndim == 0:
            return None if bool(c) else False
        return c
    return None if bool(c) else False


# ---------------------------------------------------------------------------------------------------
# The plan
# ---------------------------------------------------------------------------------------------------


class NestPlan:
    def __init__(self, nest: LoopNest, comp, ac: ArrayCompiler):
        loops, bindings, pred, reduce_ivs = nest.loops, nest.bindings, nest.predicate, nest.reduce_ivs
        body, init, written, reduction = nest.body, nest.init, nest.written, nest.reduction
        self.loops = loops
        self.loop_vars = [lp.loop_var for lp in loops]
        self.inner_bounds = [(comp.expr(lp.min), comp.expr(lp.extent)) for lp in loops[1:]]
        self.bindings = [(v, ac.compile(e)) for v, e in bindings]
        self.pred = ac.compile(pred) if pred is not None else None
        iv_set = {v for v, _ in bindings}
        self.pred_uses_iters = pred is not None and any(v in iv_set for v in prim_vars_in(pred))
        self.reduce_ivs = [(v, comp.expr(m)) for v, m in reduce_ivs]
        self.body = _compile_leaf(body, ac)
        self.init = _compile_leaf(init, ac) if init is not None else None
        self.written = written
        self.index = {id(b): [ac.compile(i) for i in nest.index_of[b.data]] for b in written}
        self.dep = nest.spatial
        self.outer_vars = nest.outer_vars
        self.read_bufs = nest.read_bufs
        self.reduction = reduction
        if reduction is not None:
            self.red_operand = ac.compile(reduction.operand)
            self.red_init = ac.compile(reduction.init_value) if reduction.init_value is not None else None

    # -- entry ---------------------------------------------------------------------------------------

    def inner_steps(self, env: Dict, n: int) -> int:
        """The iterations of the nest's inner loops for ``n`` iterations of the outer one
        (RUNTIME.LIMIT.4: ``n*e1 + n*e1*e2 + ...``; their bounds do not depend on the nest's variables)."""
        total, prod = 0, int(n)
        for fmin, fext in self.inner_bounds:
            prod *= max(int(fext(env)), 0)
            total += prod
        return total

    def run(self, env: Dict, lo: int, n: int, scalar: Callable[[Dict, int, int], None]) -> bool:
        """Execute the nest for outer loop range ``[lo, lo + n)``; False = run the scalar path.
        ``scalar(env, lo, n)`` runs a sub-range of the outer loop on the scalar path (used when one
        chunk of a chunked nest does not qualify)."""
        ranges = [(int(lo), int(n))]
        for fmin, fext in self.inner_bounds:
            ranges.append((int(fmin(env)), int(fext(env))))
        if any(r[1] <= 0 for r in ranges):
            return True
        total = 1
        for _, e in ranges:
            total *= e
        if total < MIN_POINTS:
            return False
        try:
            arrays = self._arrays(env)
        except RelaxError:
            return False
        if arrays is None:
            return False
        m_size = 1
        for k in self.dep:
            m_size *= ranges[k][1]
        if m_size > LIMIT:
            if 0 not in self.dep:
                return False
            per = m_size // ranges[0][1]
            if per > LIMIT:
                return False
            step = max(1, LIMIT // per)
            for start in range(ranges[0][0], ranges[0][0] + ranges[0][1], step):
                sub = [(start, min(step, ranges[0][0] + ranges[0][1] - start))] + ranges[1:]
                if not self._run_ranges(env, sub, arrays):
                    scalar(env, sub[0][0], sub[0][1])
            return True
        return self._run_ranges(env, ranges, arrays)

    def _arrays(self, env):
        """Arrays of the written and read buffers, or None if written memory aliases other memory."""
        w = [buffer_array(env, b) for b in self.written]
        r = [buffer_array(env, b) for b in self.read_bufs]
        for i, a in enumerate(w):
            if a.size == 0 or not a.flags.writeable:
                return None
            for j, b in enumerate(w):
                if j != i and np.may_share_memory(a, b):
                    return None
            for b in r:
                if np.may_share_memory(a, b):
                    return None
        return w

    # -- one range ------------------------------------------------------------------------------------

    def _run_ranges(self, env, ranges, arrays) -> bool:
        dep = self.dep
        rax = [k for k in range(len(ranges)) if k not in dep]
        na = len(dep)
        a_shape = tuple(ranges[k][1] for k in dep)
        m_size = int(np.prod(a_shape, dtype=np.int64)) if a_shape else 1
        r_size = int(np.prod([ranges[k][1] for k in rax], dtype=np.int64)) if rax else 1
        vars_: Dict = {}
        for v in self.outer_vars:
            if v not in env:
                return False
            val = env[v]
            if isinstance(val, (bool, int, float, np.generic)):
                vars_[v] = np_scalar(val, v.dtype)
            else:
                return False
        ae = ArrayEnv(vars_, env, {}, na + 1)
        for j, k in enumerate(dep):
            lo, n = ranges[k]
            shape = [1] * (na + 1)
            shape[j] = n
            arr = np.arange(lo, lo + n, dtype=_dt.to_numpy(self.loop_vars[k].dtype)).reshape(shape)
            vars_[self.loop_vars[k]] = arr
            ae.axes[id(arr)] = (arr, j, lo, n)
        # registers: evaluate each written index over A (reduction loops at their first value)
        for k in rax:
            vars_[self.loop_vars[k]] = np_scalar(ranges[k][0], self.loop_vars[k].dtype)
        try:
            for v, f in self.bindings:
                vars_[v] = f(ae, None)
            full = a_shape + (1,)
            for buf, arr in zip(self.written, arrays):
                idx = [np.broadcast_to(np.asarray(f(ae, None)), full) for f in self.index[id(buf)]]
                if len(idx) != arr.ndim:
                    return False
                oob = None
                for i, n in zip(idx, arr.shape):
                    b = (i < 0) | (i >= n)
                    oob = b if oob is None else (oob | b)
                if oob is not None and not oob.any():
                    oob = None
                clipped = [np.clip(i, 0, n - 1) if oob is not None else i for i, n in zip(idx, arr.shape)]
                if m_size > 1:
                    if arr.ndim == 0:
                        return False
                    loc = np.ravel_multi_index(tuple(c.astype(np.int64).ravel() for c in clipped), arr.shape)
                    if arr.size <= 8 * m_size + 4096:
                        distinct = np.bincount(loc).max() <= 1
                    else:
                        distinct = np.unique(loc).size == loc.size
                    if not distinct:
                        return False
                acc = np.array(arr[tuple(clipped)]) if arr.ndim else np.full(full, arr[()])
                acc = np.broadcast_to(acc, full).copy()
                ae.regs[buf] = Register(buf, acc, oob, idx, np.zeros(full, bool))
        except RelaxError:
            return False
        use_full = self.reduction is not None and m_size <= FULL_MAX_M and r_size > 1
        if use_full:
            try:
                self._full(ae, ranges, dep, rax, a_shape, m_size, r_size)
            except _Retry:
                for reg in ae.regs.values():
                    reg.written = np.zeros(reg.acc.shape, bool)
                for buf, arr in zip(self.written, arrays):
                    reg = ae.regs[buf]
                    clipped = [np.clip(i, 0, max(n - 1, 0)) for i, n in zip(reg.index, arr.shape)]
                    reg.acc = np.broadcast_to(np.array(arr[tuple(clipped)]), reg.acc.shape).copy()
                self._scan(ae, ranges, rax)
        else:
            self._scan(ae, ranges, rax)
        # write the registers back
        for buf, arr in zip(self.written, arrays):
            reg = ae.regs[buf]
            w = reg.written
            if w.any():
                if arr.ndim == 0:       # a single element: the domain of A has one point
                    arr[()] = reg.acc.reshape(-1)[0]
                    continue
                sel = tuple(i[w] for i in reg.index)
                arr[sel] = reg.acc[w]
        return True

    # -- the leaf at one set of points -------------------------------------------------------------

    def _header(self, ae):
        """Predicate and bindings (TIR.BLOCK.1); returns the mask of executing points (None = all,
        False = none, or a bool array). As on the scalar path, a predicate that does not mention the
        iteration variables is evaluated first and the bindings only at the points it admits."""
        m = None
        if self.pred is not None and not self.pred_uses_iters:
            m = _as_mask(self.pred(ae, None))
            if m is False:
                return False
        for v, f in self.bindings:
            ae.vars[v] = f(ae, m)
        if self.pred is not None and self.pred_uses_iters:
            m = _as_mask(self.pred(ae, None))
        return m

    def _init_mask(self, ae, m):
        c = None
        for v, fmin in self.reduce_ivs:
            lo = np_scalar(fmin(ae.env), v.dtype)
            eq = np.equal(ae.vars[v], lo)
            c = eq if c is None else np.logical_and(c, eq)
        if c is None:
            return m
        c = _as_mask(c)
        if c is False:
            return False
        if m is None:
            return c
        return m if c is None else np.logical_and(m, c)

    def _scan(self, ae, ranges, rax):
        vars_ = ae.vars
        rvars = [self.loop_vars[k] for k in rax]
        for point in itertools.product(*[range(ranges[k][0], ranges[k][0] + ranges[k][1]) for k in rax]):
            for v, val in zip(rvars, point):
                vars_[v] = np_scalar(val, v.dtype)
            m = self._header(ae)
            if m is False:
                continue
            if self.init is not None:
                mi = self._init_mask(ae, m)
                if mi is not False:
                    self.init(ae, mi)
            self.body(ae, m)

    # -- the full reduction strategy ---------------------------------------------------------------

    def _full(self, ae, ranges, dep, rax, a_shape, m_size, r_size):
        red = self.reduction
        reg = ae.regs[red.buffer]
        nt = reg.acc.dtype
        na = len(dep)
        is_float = _dt.is_float(red.buffer.dtype)
        chunk = max(1, min(r_size, LIMIT // max(m_size, 1)))
        r_ext = [ranges[k][1] for k in rax]
        for start in range(0, r_size, chunk):
            cnt = min(chunk, r_size - start)
            coords = np.unravel_index(np.arange(start, start + cnt), r_ext) if rax else ()
            for k, c in zip(rax, coords):
                v = self.loop_vars[k]
                arr = (c + ranges[k][0]).astype(_dt.to_numpy(v.dtype)).reshape([1] * na + [cnt])
                ae.vars[v] = arr
                if len(rax) == 1:
                    ae.axes[id(arr)] = (arr, na, ranges[k][0] + start, cnt)
            full = a_shape + (cnt,)
            m = self._header(ae)
            if m is False:
                continue
            act = np.ones(full, bool) if m is None else np.broadcast_to(m, full)
            if reg.oob is not None and any_in(reg.oob, act):
                raise bounds_error(red.buffer, first_point(reg.oob, act, reg.index),
                                   buffer_array(ae.env, red.buffer).shape, write=False)
            e = np.broadcast_to(self.red_operand(ae, m), full)
            base = reg.acc[..., 0]
            has_init = None
            if self.red_init is not None:
                mi = self._init_mask(ae, m)
                if mi is not False:
                    ini = np.ones(full, bool) if mi is None else np.broadcast_to(mi, full)
                    has_init = ini.any(axis=-1)
                    if has_init.any():
                        last = cnt - 1 - np.argmax(ini[..., ::-1], axis=-1)
                        last = np.where(has_init, last, 0)
                        iv = np.broadcast_to(self.red_init(ae, mi), full)
                        first_val = np.take_along_axis(iv, last[..., None], axis=-1)[..., 0]
                        base = np.where(has_init, first_val.astype(nt, copy=False), base)
                        act = np.logical_and(act, np.arange(cnt) >= last[..., None])
                    else:
                        has_init = None
            keep_any = act.any(axis=-1)
            combined = self._reduce(red, e, act, base, is_float, nt)
            touched = keep_any if has_init is None else np.logical_or(keep_any, has_init)
            reg.acc = np.where(touched, combined, reg.acc[..., 0]).astype(nt, copy=False)[..., None]
            reg.written = np.logical_or(reg.written, touched[..., None])

    @staticmethod
    def _reduce(red: Reduction, e, act, base, is_float, nt):
        op = red.op
        if op in ("add", "mul"):
            ident = (np.array(-0.0 if op == "add" else 1.0).astype(nt) if is_float
                     else np.array(0 if op == "add" else 1).astype(nt))
            vals = np.where(act, e, ident)
            uf = np.add if op == "add" else np.multiply
            r = uf.reduce(vals, axis=-1, dtype=nt)
            return (uf(base, r) if red.acc_first else uf(r, base)).astype(nt, copy=False)
        if is_float:
            if np.isnan(base).any() or np.isnan(e[act]).any():
                raise _Retry()
            ident = np.array(np.inf if op == "min" else -np.inf).astype(nt)
        else:
            info = np.iinfo(nt)
            ident = np.array(info.max if op == "min" else info.min).astype(nt)
        vals = np.where(act, e, ident)
        uf = np.minimum if op == "min" else np.maximum
        r = uf.reduce(vals, axis=-1)
        return uf(base, r).astype(nt, copy=False)


__all__ = ["analyze_nest", "NestPlan", "LIMIT", "FULL_MAX_M"]
