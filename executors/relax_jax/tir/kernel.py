"""TensorIR PrimFuncs as JAX computations (spec chapter TIR).

A :class:`Kernel` executes a PrimFunc *functionally*: buffers are JAX arrays held in a state that each
statement updates; nothing runs element by element in Python.

* Perfect loop nests that qualify (:func:`~relax_jax.tir.analysis.analyze_nest`) become array
  operations over the iteration domain (:mod:`relax_jax.tir.nest`): gathers/slices for loads,
  reductions for the init/update pattern, ``dot_general`` for sums of products,
  ``conv_general_dilated`` for window sums of products.
* Other loops become ``lax.fori_loop`` (``lax.while_loop`` for ``while``) carrying the buffers; the
  loop body is lowered the same way, so inner nests may still vectorize.
* Conditionals are *predicated*: both branches are lowered with complementary masks, stores are
  ``where(mask, new, old)``, checks only consider executing points (so an untaken branch never fails).
* Blocks bind their iteration variables, apply ``T.where``, allocate ``alloc_buffers`` (zero-filled,
  TIR.BUF.5), bind ``match_buffer`` windows (:mod:`relax_jax.tir.window`) and run ``T.init`` when
  every reduction variable is at its minimum (TIR.BLOCK.INIT.1).

**Bounds (TIR.BOUNDS.1).** JAX clamps or drops out-of-bounds accesses silently. Each load and store is
therefore either proven in bounds statically (:class:`~relax_jax.tir.analysis.Ranges`: loop ranges,
block bindings and the conditions of enclosing ``if_then_else`` arms, with relax_ref's arithmetic
analyzer) or gets a run-time check site: out-of-range indices at executing points set the error code
(TIRBoundsError), and the access itself uses clamped indices (reads) or is masked (writes). Bounds
are the buffer's *logical* extents, so padding never hides an error.

``T.call_packed`` of TVM's sort kernels is lowered to ``lax.sort``, of any other packed function a host
callback (:mod:`relax_jax.tir.packed`).

Other run-time errors: integer division by zero (DivisionByZeroError), ``T.Assert``
(AssertionFailedError) and stores into ``call_tir`` inputs (OpRuntimeError, CALL.TIR.6) are check
sites too.
"""

from __future__ import annotations

import copy
import weakref
from typing import Any, Dict, Optional, Sequence, Tuple

import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.arith.evaluate import eval_prim
from relax_ref.arith.intrinsics import canonical_name
from relax_ref.errors import (
    AssertionFailedError, LimitExceededError, OpRuntimeError, RelaxRuntimeError, TIRBoundsError, UnsupportedError,
    WellFormedError,
)
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.functor import prim_vars_in
from relax_ref.limits import DEFAULT_LIMITS, Limits, check_alloc, while_limit_error

from ..errors import ErrorSink, NeedsExact
from ..prim_jax import PrimLowering, and_mask, cast, const, is_static, not_, np_dtype
from ..symbolic import is_monotone
from .analysis import Nest, Ranges, analyze_nest
from .memory import View, gather, scatter
from .products import plain_stores
from .nest import run_nest
from .packed import is_packed_call, lower_packed_call
from .window import bind_window, window_index

_NESTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_NO_NEST = object()


def nest_of(s: tir.For) -> Optional[Nest]:
    hit = _NESTS.get(s)
    if hit is None:
        hit = analyze_nest(s) or _NO_NEST
        _NESTS[s] = hit
    return None if hit is _NO_NEST else hit



def _check_reinterpretable(buf: tir.Buffer, arr) -> None:
    """A view reading another dtype's memory (TIR.BUF.4) as the reference does: whole-byte dtypes
    only here (a boolean or sub-byte view is unsupported on relax_jax), the memory's byte size a
    multiple of the view's element size (unsupported on both evaluators otherwise)."""
    from relax_ref.ir.dtype import bits

    vdt = np_dtype(buf.dtype)
    for d in (str(buf.dtype), str(np.dtype(arr.dtype))):
        if d == "bool" or bits(d) < 8:
            raise UnsupportedError(f"buffer '{buf.name}' reinterprets {arr.dtype} memory as {buf.dtype} "
                                   "(a boolean or sub-byte reinterpretation)")
    nbytes = int(np.prod(arr.shape, dtype=np.int64)) * np.dtype(arr.dtype).itemsize
    if nbytes % vdt.itemsize:
        raise UnsupportedError(f"buffer '{buf.name}' reinterprets {np.dtype(arr.dtype)} memory as {vdt} with a "
                               "size that does not divide")

class _CondScope:
    def __init__(self, ranges: Ranges, cond, positive: bool) -> None:
        self.ranges, self.cond, self.positive = ranges, cond, positive

    def __enter__(self):
        self.mark = self.ranges.mark()
        self.ranges.push_condition(self.cond, self.positive)
        return self

    def __exit__(self, *a):
        self.ranges.pop_to(self.mark)
        return False


class KExec:
    """The state of one PrimFunc execution."""

    def __init__(self, func: tir.PrimFunc, name: str, sink: ErrorSink, lookup=None,
                 limits: Optional[Limits] = None) -> None:
        self.func = func
        self.lookup = lookup        # name -> packed function, for T.call_packed (relax_jax.tir.packed)
        self.name = name
        self.sink = sink
        self.limits = DEFAULT_LIMITS if limits is None else limits
        #: loop iterations so far (RUNTIME.LIMIT.4): a Python int while static, else a traced int64
        self.steps: Any = 0
        #: a static upper bound of ``steps`` (from the physical extents of padded sizes), None if unknown
        self.steps_bound: Optional[int] = 0
        self.env: Dict[Any, Any] = {}
        self.phys: Dict[P.PrimVar, int] = {}
        self.arrays: Dict[P.PrimVar, Any] = {}
        self.owner: Dict[P.PrimVar, tir.Buffer] = {}
        self.logical: Dict[P.PrimVar, Tuple[Any, ...]] = {}
        self.readonly: set = set()
        self.windows: Dict[P.PrimVar, Any] = {}   # block-level match_buffer windows (window.Window)
        self.pad_sources: Dict[P.PrimVar, Any] = {}   # buffers written by a pad nest (pad.PadSource)
        self.ranges = Ranges()
        self.grid = None            # the active vectorized grid (grid.Grid) or None
        self.pl = PrimLowering(load=self.load, check=self.check, scope=self.scope)
        self.plain = plain_stores(func)     # stores of products no consumer can contract (PRIM.FLOAT.1)
        #: a statement that certainly executes failed unconditionally (a buffer past the limits): the
        #: call fails, so the statements after it are not lowered
        self.halted = False
        #: the traced loop bodies being lowered (a statement inside one may run any number of times)
        self.loop_depth = 0

    # -- errors ----------------------------------------------------------------------------------------

    def check(self, bad: Any, mask: Any, make) -> None:
        name = self.name

        def build(make=make):
            e = make()
            return e.with_context(function=name)
        self.sink.check(bad, build, mask)

    def take_steps(self, n: Any, mask: Any, span, what: str, bound: Optional[int] = None) -> Any:
        """Count ``n`` loop iterations (RUNTIME.LIMIT.4, as the reference: on entry of a loop, one per
        ``while`` iteration). Past ``max_steps``: a LimitExceededError check site at the loop's
        position in program order (RUNTIME.LIMIT.5), one that fails unconditionally when everything
        is static, so that a check site of an earlier statement that fails (an out-of-bounds read, an
        assertion) still gives its error first, as on the reference; returns whether the budget is
        exceeded (``True`` when static, else traced), so that the caller skips the loop, and the
        count stays past the budget, which stops every enclosing loop. ``bound``: a static upper
        bound of a traced ``n`` (the count at the physical extents of padded sizes); when the bounds
        of the count so far and of ``n`` stay within the budget, the budget cannot be exceeded and no
        check site is needed."""
        limit = self.limits.max_steps
        nb = max(int(n), 0) if is_static(n) else (None if bound is None else max(int(bound), 0))
        prior = self.steps_bound
        self.steps_bound = None if nb is None or prior is None else prior + nb
        if mask is not None and not is_static(mask):
            n = jnp.where(mask, jnp.asarray(n, jnp.int64), jnp.int64(0))
        if is_static(n) and is_static(self.steps):
            total = int(self.steps) + max(int(n), 0)
            self.steps = total
            if total <= limit:
                return False
            self.check(np.bool_(True), mask, lambda: LimitExceededError(
                f"{what}: {total} loop iterations in one PrimFunc call exceed max_steps = {limit}", span,
                limit="max_steps", value=total))
            return True
        total = jnp.asarray(self.steps, jnp.int64) + jnp.maximum(jnp.asarray(n, jnp.int64), 0)
        self.steps = total
        if self.steps_bound is not None and self.steps_bound <= limit:
            return False                # within the budget at every size the compilation serves
        over = total > limit
        self.check(over, mask, lambda: LimitExceededError(
            f"{what}: the loop iterations of one PrimFunc call exceed max_steps = {limit}", span,
            limit="max_steps"))
        return over

    def within_budget(self) -> Any:
        return jnp.asarray(self.steps, jnp.int64) <= self.limits.max_steps

    # -- scalar expressions ----------------------------------------------------------------------------

    def ev(self, e: P.PrimExpr, mask: Any = None) -> Any:
        return self.pl.lower(e, self.env, mask)

    def ev_stored(self, st: tir.BufferStore, mask: Any = None) -> Any:
        """The value of the store ``st`` (a product that only factors and sums read needs no barrier,
        :mod:`relax_jax.tir.products`)."""
        if id(st) in self.plain:
            return self.pl.lower_factor(st.value, self.env, mask)
        return self.pl.lower(st.value, self.env, mask)

    def static_int(self, e: P.PrimExpr) -> Optional[int]:
        v = self.ev(e)
        if is_static(v):
            return int(v)
        return None

    def phys_of(self, e: P.PrimExpr) -> Optional[int]:
        """A static upper bound of an integer expression (its value when static)."""
        v = self.ev(e)
        if is_static(v):
            return int(v)
        fv = prim_vars_in(e)
        vals = {}
        for var in fv:
            cur = self.env.get(var)
            if is_static(cur):
                vals[var] = int(cur)
            elif var in self.phys:
                vals[var] = self.phys[var]
            else:
                return None
        if not is_monotone(e):
            return None
        try:
            return int(eval_prim(e, vals))
        except Exception:  # noqa: BLE001 - no bound
            return None

    # -- buffers ---------------------------------------------------------------------------------------

    def bind_buffer(self, buf: tir.Buffer, array: Any, logical: Tuple[Any, ...], readonly: bool) -> None:
        dv = buf.data
        self.arrays[dv] = array
        self.owner[dv] = buf
        self.logical[dv] = logical
        if readonly:
            self.readonly.add(dv)

    def alloc(self, buf: tir.Buffer, mask: Any = None) -> None:
        """Allocate ``buf`` zero-filled (TIR.BUF.5). A buffer past the limits (RUNTIME.LIMIT.3) at a
        statement that certainly executes (no traced mask, outside compiled loop bodies) is a check
        site in program order (RUNTIME.LIMIT.5): an earlier failing check still gives its error
        first, and nothing after it runs (the call fails either way); elsewhere the
        LimitExceededError is raised while compiling."""
        shape = []
        logical = []
        for d in buf.shape:
            ph = self.phys_of(d)
            if ph is None:
                raise NeedsExact(f"buffer '{buf.name}' has an extent without a static bound")
            if ph < 0:
                raise RelaxRuntimeError(f"buffer '{buf.name}' has negative extent {ph}")
            shape.append(ph)
            lv = self.ev(d)
            logical.append(int(lv) if is_static(lv) else lv)
        try:
            check_alloc(shape, buf.dtype, self.limits, f"buffer '{buf.name}'", getattr(buf, "span", None))
        except LimitExceededError as e:
            exact = all(isinstance(v, int) for v in logical)        # not a padded size
            reached = mask is None or (is_static(mask) and bool(mask))
            if not (exact and reached and self.sink.traced and self.loop_depth == 0 and self.grid is None):
                raise
            self.check(np.bool_(True), None, lambda err=e: copy.copy(err))
            self.halted = True
            return
        dv = buf.data
        self.arrays[dv] = jnp.zeros(tuple(shape), np_dtype(buf.dtype))
        self.owner[dv] = buf
        self.logical[dv] = tuple(logical)

    def resolve(self, buf: tir.Buffer) -> Tuple[Any, Optional[View]]:
        dv = buf.data
        if dv not in self.arrays:
            raise RelaxRuntimeError(f"buffer '{buf.name}' is accessed but was never allocated or bound")
        owner = self.owner[dv]
        if buf is owner:
            return dv, None
        shape = tuple(self.static_int(s) for s in buf.shape)
        arr = self.arrays[dv]
        if None in shape:
            raise UnsupportedError(f"buffer view '{buf.name}' with a non-static shape")
        off = 0 if buf.elem_offset is None else self.static_int(buf.elem_offset)
        if off is None:
            raise UnsupportedError(f"buffer view '{buf.name}' with a non-static offset")
        vdt = np_dtype(buf.dtype)
        reinterpret = vdt != np.dtype(arr.dtype)
        if reinterpret:
            _check_reinterpretable(buf, arr)
        elif not buf.strides and off == 0 and shape == tuple(arr.shape) and \
                all(is_static(x) for x in self.logical[dv]):
            return dv, None
        if any(not is_static(x) or int(x) != n for x, n in zip(self.logical[dv], arr.shape)):
            raise NeedsExact(f"buffer view '{buf.name}' of a padded buffer")
        if buf.strides:
            strides = tuple(self.static_int(s) for s in buf.strides)
            if None in strides:
                raise UnsupportedError(f"buffer view '{buf.name}' with non-static strides")
        else:
            strides, acc = [], 1
            for n in reversed(shape):
                strides.append(acc)
                acc *= n
            strides = tuple(reversed(strides))
        size = int(np.prod(arr.shape, dtype=np.int64)) if arr.shape else 1
        if reinterpret:
            size = size * np.dtype(arr.dtype).itemsize // vdt.itemsize
        last = off + sum((n - 1) * s for n, s in zip(shape, strides) if n > 0)
        if any(n > 0 for n in shape) and (off < 0 or last >= size):
            raise TIRBoundsError(f"buffer '{buf.name}' (shape {list(shape)}, offset {off}) exceeds its memory of "
                                 f"{size} elements", buffer=buf.name, shape=shape)
        return dv, View(shape, strides, off, vdt if reinterpret else None)

    def buffer_extents(self, buf: tir.Buffer, dv, view: Optional[View]) -> Tuple[Any, ...]:
        if view is not None:
            return view.shape
        return self.logical[dv]

    # -- loads and stores ------------------------------------------------------------------------------

    def _proven(self, buf: tir.Buffer, exprs: Sequence[P.PrimExpr]) -> bool:
        if len(exprs) != len(buf.shape):
            return False
        return all(self.ranges.in_bounds(i, n) for i, n in zip(exprs, buf.shape))

    def _bounds(self, buf, dv, view, idx, exprs, mask, write: bool) -> None:
        ext = self.buffer_extents(buf, dv, view)
        if len(idx) != len(ext):
            raise WellFormedError(f"buffer '{buf.name}' of rank {len(ext)} is accessed with {len(idx)} indices "
                                  "(WF.TIR.4)")
        if self._proven(buf, exprs):
            return
        bad = None
        for i, n in zip(idx, ext):
            b = jnp.logical_or(jnp.less(i, 0), jnp.greater_equal(i, n)) if not (is_static(i) and is_static(n)) \
                else np.bool_(int(i) < 0 or int(i) >= int(n))
            bad = b if bad is None else jnp.logical_or(bad, b)
        if bad is None:
            return
        kind = "write to" if write else "read of"
        shape = [int(n) if is_static(n) else "?" for n in ext]
        name = buf.name

        def make():
            return TIRBoundsError(f"out-of-bounds {kind} buffer '{name}' (shape {shape})", buffer=name)
        self.check(bad, mask, make)

    def load(self, node: tir.BufferLoad, index, mask: Any) -> Any:
        """The value of ``node``; ``index()`` lowers its indices. Over a grid, a load proven in bounds
        whose indices cannot fail (:meth:`Grid.quiet`) is read as a slice without lowering them."""
        buf = node.buffer
        win = self.windows.get(buf.data)
        if win is not None:
            dv, sidx = window_index(self, buf, win, index(), node.indices, mask, write=False)
            return gather(self.arrays[dv], sidx, None)
        if self.grid is not None:
            reg = self.grid.register_load(self, node, mask)
            if reg is not None:
                return reg
        dv, view = self.resolve(buf)
        arr = self.arrays[dv]
        grid = self.grid
        if grid is not None and view is None and grid.quiet(node) and self._proven(buf, node.indices):
            v = grid.structured_load(self, arr, node, None)
            if v is not None:
                return v
        idx = index()
        self._bounds(buf, dv, view, idx, node.indices, mask, write=False)
        if grid is not None and view is None:
            v = grid.structured_load(self, arr, node, idx)
            if v is not None:
                return v
        return gather(arr, idx, view)

    def store(self, st: tir.BufferStore, mask: Any) -> None:
        buf = st.buffer
        win = self.windows.get(buf.data)
        if self.grid is not None and win is None:
            self.grid.register_store(self, st, mask)
            return
        val = cast(self.ev_stored(st, mask), st.value.dtype, buf.dtype)
        idx = [self.ev(i, mask) for i in st.indices]
        if win is not None:
            dv, idx = window_index(self, buf, win, idx, st.indices, mask, write=True)
            self._check_writable(dv, buf, mask)
            self.arrays[dv] = scatter(self.arrays[dv], idx, val, mask, None)
            return
        dv, view = self.resolve(buf)
        self._check_writable(dv, buf, mask)
        self._bounds(buf, dv, view, idx, st.indices, mask, write=True)
        self.arrays[dv] = scatter(self.arrays[dv], idx, val, mask, view)

    def _check_writable(self, dv, buf: tir.Buffer, mask: Any) -> None:
        if dv in self.readonly:
            name = buf.name
            self.check(np.bool_(True), mask, lambda: OpRuntimeError(
                f"store into buffer '{name}', whose tensor is read-only here (an input of call_tir may not be "
                "written, CALL.TIR.6)"))

    # -- statements ------------------------------------------------------------------------------------

    def exec(self, s: Optional[tir.Stmt], mask: Any = None) -> None:
        if s is None or self.halted:
            return
        if mask is not None and is_static(mask) and not bool(mask):
            return
        m = getattr(self, "_" + type(s).__name__, None)
        if m is None:
            raise UnsupportedError(f"TensorIR statement {type(s).__name__} is not supported", s.span)
        m(s, mask)

    def _SeqStmt(self, s: tir.SeqStmt, mask) -> None:
        for c in s.seq:
            self.exec(c, mask)

    def _Evaluate(self, s: tir.Evaluate, mask) -> None:
        v = s.value
        if isinstance(v, (P.IntImm, P.FloatImm, P.PrimStringImm)):
            return
        if isinstance(v, P.PrimCall) and canonical_name(v.op) == "tir.assume":
            return
        if is_packed_call(v):
            lower_packed_call(self, v, mask)
            return
        self.ev(v, mask)

    def _LetStmt(self, s: tir.LetStmt, mask) -> None:
        self.env[s.var] = self.ev(s.value, mask)
        mark = self.ranges.mark()
        self.ranges.push_bind(s.var, s.value)
        try:
            self.exec(s.body, mask)
        finally:
            self.ranges.pop_to(mark)

    def _Bind(self, s: tir.Bind, mask) -> None:
        self.env[s.var] = self.ev(s.value, mask)
        self.ranges.push_bind(s.var, s.value)

    def _AssertStmt(self, s: tir.AssertStmt, mask) -> None:
        c = self.ev(s.condition, mask)
        msg = s.message or "TensorIR assertion failed"
        span = s.span
        self.check(not_(c), mask, lambda: AssertionFailedError(msg, span))
        self.exec(s.body, mask)

    def _IfThenElse(self, s: tir.IfThenElse, mask) -> None:
        c = self.ev(s.condition, mask)
        if is_static(c):
            self.exec(s.then_case if bool(c) else s.else_case, mask)
            return
        mark = self.ranges.mark()
        self.ranges.push_condition(s.condition, True)
        self.exec(s.then_case, and_mask(mask, c))
        self.ranges.pop_to(mark)
        if s.else_case is not None:
            self.ranges.push_condition(s.condition, False)
            self.exec(s.else_case, and_mask(mask, not_(c)))
            self.ranges.pop_to(mark)

    def scope(self, cond: P.PrimExpr, positive: bool):
        """The bounds facts of an ``if_then_else`` arm (a context manager for PrimLowering)."""
        return _CondScope(self.ranges, cond, positive)

    def _While(self, s: tir.While, mask) -> None:
        keys = list(self.arrays)
        probe = len(self.sink.builders)
        c_in = self.ev(s.condition, mask)       # the condition on entry (traced; unused when unchecked)
        if len(self.sink.builders) != probe:
            self._checked_while(s, mask, keys, c_in)
            return
        code0 = jnp.asarray(self.sink.code, jnp.int32)
        steps0 = jnp.asarray(self.steps, jnp.int64)
        limit = self.limits.max_while_steps     # RUNTIME.LIMIT.4: the iterations of this execution

        def cond_fn(carry):
            arrays, code, steps, n = carry
            arrays = dict(zip(keys, arrays))
            saved = dict(self.arrays)
            self.arrays.update(arrays)
            c = self.ev(s.condition, mask)
            self.arrays.clear()
            self.arrays.update(saved)
            c = jnp.logical_and(jnp.asarray(c), jnp.logical_and(steps <= self.limits.max_steps, n <= limit))
            if mask is not None:
                c = jnp.logical_and(c, mask)
            return c

        def body_fn(carry):
            arrays, code, steps, n = carry
            return self._while_body(s, mask, keys, arrays, code, steps, n)[:4]

        init = ([self.arrays[k] for k in keys], code0, steps0, jnp.int64(0))
        arrays, code, steps, _ = lax.while_loop(cond_fn, body_fn, init)
        self.arrays.update(dict(zip(keys, arrays)))
        self.sink.code = code
        self.steps, self.steps_bound = steps, None

    def _checked_while(self, s: tir.While, mask, keys, c_in) -> None:
        """A while loop whose condition can fail (an out-of-bounds load, a division by zero): the
        condition is evaluated where the reference evaluates it, on entry and after each iteration,
        with its check sites recorded into the carried error code (a ``lax.while_loop`` condition
        cannot record one), and the loop stops at the first error, as the reference does."""
        limit = self.limits.max_while_steps

        def cond_fn(carry):
            _, code, steps, n, c = carry
            go = jnp.logical_and(jnp.logical_and(c, code == 0),
                                 jnp.logical_and(steps <= self.limits.max_steps, n <= limit))
            return go if mask is None else jnp.logical_and(go, mask)

        def body_fn(carry):
            arrays, code, steps, n, _ = carry
            return self._while_body(s, mask, keys, arrays, code, steps, n, with_condition=True)

        init = ([self.arrays[k] for k in keys], jnp.asarray(self.sink.code, jnp.int32),
                jnp.asarray(self.steps, jnp.int64), jnp.int64(0), jnp.asarray(c_in, jnp.bool_))
        arrays, code, steps, _, _ = lax.while_loop(cond_fn, body_fn, init)
        self.arrays.update(dict(zip(keys, arrays)))
        self.sink.code = code
        self.steps, self.steps_bound = steps, None

    def _while_body(self, s: tir.While, mask, keys, arrays, code, steps, n, with_condition: bool = False):
        """One traced iteration of a while loop: the carried state out (arrays, error code, steps,
        iterations, and the condition after the body when ``with_condition``)."""
        limit = self.limits.max_while_steps
        arrays = dict(zip(keys, arrays))
        saved = dict(self.arrays)
        self.arrays.update(arrays)
        self.sink.code = code
        self.steps, self.steps_bound = steps, None
        env_saved = dict(self.env)
        self.take_steps(1, mask, s.span, "while loop")
        n = n + 1
        self.check(n > limit, mask, lambda: while_limit_error(limit, s.span))
        self.loop_depth += 1
        try:
            self.exec(s.body, mask)
        finally:
            self.loop_depth -= 1
        c = jnp.asarray(self.ev(s.condition, mask), jnp.bool_) if with_condition else None
        out = self._carry_out(keys, saved, env_saved) + (n,)
        return out + (c,) if with_condition else out

    def _For(self, s: tir.For, mask) -> None:
        nest = nest_of(s)
        if self.windows and nest is not None and any(b.data in self.windows for b in nest.written + nest.read_bufs):
            nest = None         # a match_buffer window is accessed element by element (relax_jax.tir.window)
        if nest is not None and self.grid is None:
            saved = self.steps, self.steps_bound
            n, bound = self._nest_steps(nest)
            if self.take_steps(n, mask, s.span, "for loop", bound) is True:
                return                                    # past the budget: the nest does not run
            if run_nest(self, nest, mask):
                return
            self.steps, self.steps_bound = saved          # the loops count themselves
        self._sequential(s, mask)

    def _nest_steps(self, nest: Nest) -> Tuple[Any, Optional[int]]:
        """The iterations of a perfect nest, ``e0 + e0*e1 + ...`` (RUNTIME.LIMIT.4), and a static upper
        bound of them (the same sum over the physical extents; None without one)."""
        total: Any = 0
        prod: Any = 1
        bound: Optional[int] = 0
        pb: Optional[int] = 1
        for lp in nest.loops:
            ext = self.ev(lp.extent)
            ext = int(ext) if is_static(ext) else jnp.asarray(ext, jnp.int64)
            prod = prod * (max(ext, 0) if is_static(ext) else jnp.maximum(ext, 0))
            total = total + prod
            ph = max(ext, 0) if is_static(ext) else self.phys_of(lp.extent)
            pb = None if ph is None or pb is None else pb * max(ph, 0)
            bound = None if pb is None or bound is None else bound + pb
        return total, bound

    def _sequential(self, s: tir.For, mask) -> None:
        lo = self.ev(s.min)
        ext = self.ev(s.extent)
        var = s.loop_var
        keys = list(self.arrays)
        over = self.take_steps(ext, mask, s.span, "for loop", None if is_static(ext) else self.phys_of(s.extent))
        if over is True:
            return                                        # past the budget: the loop does not run
        if is_static(lo) and is_static(ext):
            if int(ext) <= 0:
                return
            if int(ext) == 1:
                self.env[var] = const(int(lo), var.dtype)
                self._exec_in_range(var, s, mask)
                self._restrict(keys)
                return
        code0 = jnp.asarray(self.sink.code, jnp.int32)
        steps0 = jnp.asarray(self.steps, jnp.int64)

        def body(i, carry):
            arrays, code, steps = carry
            arrays = dict(zip(keys, arrays))
            saved = dict(self.arrays)
            env_saved = dict(self.env)
            self.arrays.update(arrays)
            self.sink.code = code
            self.steps, self.steps_bound = steps, None
            self.env[var] = i.astype(np_dtype(var.dtype))
            self.loop_depth += 1
            try:
                self._exec_in_range(var, s, mask)
            finally:
                self.loop_depth -= 1
            return self._carry_out(keys, saved, env_saved)

        lo_a = jnp.asarray(lo, jnp.int64)
        hi_a = lo_a + jnp.asarray(ext, jnp.int64)
        if not is_static(over):
            hi_a = jnp.where(over, lo_a, hi_a)      # past the budget: the loop does not run

        def cond_fn(carry):
            i, _, _, steps = carry
            return jnp.logical_and(i < hi_a, steps <= self.limits.max_steps)

        def body_fn(carry):
            i, arrays, code, steps = carry
            out, code_out, steps_out = body(i, (arrays, code, steps))
            return i + 1, out, code_out, steps_out

        _, arrays, code, steps = lax.while_loop(cond_fn, body_fn, (lo_a, [self.arrays[k] for k in keys], code0, steps0))
        self.arrays.update(dict(zip(keys, arrays)))
        self.sink.code = code
        self.steps, self.steps_bound = steps, None

    def _exec_in_range(self, var, s: tir.For, mask) -> None:
        """The body of the loop ``s`` with ``var`` known to lie in its range."""
        mark = self.ranges.mark()
        self.ranges.push_range(var, s.min, s.extent)
        try:
            self.exec(s.body, mask)
        finally:
            self.ranges.pop_to(mark)

    def _carry_out(self, keys, saved, env_saved):
        """The state a traced loop iteration carries out (the arrays of ``keys``, the error code, the
        step count), the arrays and the environment of before the iteration restored."""
        out = [self.arrays[k] for k in keys]
        code_out = jnp.asarray(self.sink.code, jnp.int32)
        steps_out = jnp.asarray(self.steps, jnp.int64)
        self.arrays.clear()
        self.arrays.update(saved)
        self.env.clear()
        self.env.update(env_saved)
        return out, code_out, steps_out

    def _restrict(self, keys) -> None:
        for k in list(self.arrays):
            if k not in keys:
                del self.arrays[k]

    def _BlockRealize(self, s: tir.BlockRealize, mask) -> None:
        blk = s.block
        if len(s.iter_values) != len(blk.iter_vars):
            raise WellFormedError(
                f"block '{blk.name}' has {len(blk.iter_vars)} iteration variables but {len(s.iter_values)} "
                "bindings (WF.TIR.5)", s.span)
        pred = s.predicate
        ivars = [iv.var for iv in blk.iter_vars]
        m = mask
        if not (isinstance(pred, P.IntImm) and pred.value) and not any(v in prim_vars_in(pred) for v in ivars):
            m = and_mask(m, self.ev(pred, m))
        for iv, v in zip(blk.iter_vars, s.iter_values):
            self.env[iv.var] = cast(self.ev(v, m), v.dtype, iv.var.dtype)
        mark = self.ranges.mark()
        for iv, v in zip(blk.iter_vars, s.iter_values):
            self.ranges.push_bind(iv.var, v)
        try:
            if not (isinstance(pred, P.IntImm) and pred.value) and any(v in prim_vars_in(pred) for v in ivars):
                m = and_mask(m, self.ev(pred, m))
            keys = list(self.arrays)
            for b in blk.alloc_buffers:
                self.alloc(b, m)
            if self.halted:
                return
            for mb in blk.match_buffers:
                bind_window(self, mb, m)
            if blk.init is not None:
                c = None
                for iv in blk.iter_vars:
                    if iv.iter_type == "reduce":
                        eq = jnp.equal(self.env[iv.var], self.ev(iv.dom.min)) if not (
                            is_static(self.env[iv.var]) and is_static(self.ev(iv.dom.min))) else \
                            np.bool_(int(self.env[iv.var]) == int(self.ev(iv.dom.min)))
                        c = eq if c is None else jnp.logical_and(c, eq)
                self.exec(blk.init, and_mask(m, c) if c is not None else m)
            self.exec(blk.body, m)
            self._restrict(keys)
        finally:
            self.ranges.pop_to(mark)
            for mb in blk.match_buffers:
                self.windows.pop(mb.buffer.data, None)

    def _Block(self, s: tir.Block, mask) -> None:
        self._BlockRealize(tir.BlockRealize((), None, s, span=s.span), mask)

    def _AllocBuffer(self, s: tir.AllocBuffer, mask) -> None:
        self.alloc(s.buffer, mask)

    def _DeclBuffer(self, s: tir.DeclBuffer, mask) -> None:
        if s.buffer.data not in self.arrays:
            self.alloc(s.buffer, mask)
        self.exec(s.body, mask)

    def _Allocate(self, s: tir.Allocate, mask) -> None:
        n = 1
        for e in s.extents:
            v = self.static_int(e)
            if v is None:
                raise NeedsExact("an allocation with a non-static size")
            n *= v
        if n < 0:
            raise RelaxRuntimeError(f"allocation '{s.buffer_var.name}' has negative size {n}")
        self.arrays[s.buffer_var] = jnp.zeros((n,), np_dtype(s.dtype))
        self.owner[s.buffer_var] = tir.Buffer(s.buffer_var.name, (P.IntImm(n, "int64"),), s.dtype, s.buffer_var)
        self.logical[s.buffer_var] = (n,)
        self.exec(s.body, mask)

    def _BufferStore(self, s: tir.BufferStore, mask) -> None:
        self.store(s, mask)


# ---------------------------------------------------------------------------------------------------
# Element access helpers
# ---------------------------------------------------------------------------------------------------


__all__ = ["KExec", "nest_of"]
