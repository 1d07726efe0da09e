"""The TensorIR evaluator: :func:`run_prim_func` (spec chapter TIR).

A PrimFunc is compiled once (cached per function object) into a tree of Python closures, one per
statement, and executed on numpy arrays:

* (TIR.FUNC.2) arguments: one per parameter. A buffer parameter takes a numpy array, which the
  function reads and **mutates in place**; a scalar parameter takes a prim value
  (:class:`~relax_ref.values.PrimScalar`, or a host scalar through :func:`run_prim_func`):
  bool and integer values convert to the parameter's dtype, float values only to a float dtype.
* (TIR.FUNC.3) argument binding: scalar parameters first; then the structure of every buffer
  parameter in order (tensor kind TypeMismatchError, rank NDimMismatchError, dtype
  DTypeMismatchError); then, in parameter order, a dimension that is a bare unbound symbolic variable
  binds it (the first occurrence binds), an immediate or an already-bound variable must equal the
  actual extent; then dimensions given by compound expressions (``n * 2``) are evaluated and compared;
  finally declared strides / ``elem_offset`` against the dense row-major strides and 0. Mismatches
  raise ShapeMismatchError naming the buffer and dimension; every error has ``site="call_tir"``. A
  non-contiguous numpy view is accepted as an argument and accessed through numpy.
* (CALL.TIR.6) a store into a tensor that the caller made read-only (the inputs of ``call_tir``)
  raises OpRuntimeError.
* (TIR.LOOP.1) every loop kind (serial, parallel, vectorized, unrolled, thread-bound) runs serially
  in increasing order of the loop variable; ``min`` and ``extent`` are evaluated once on entry.
* (TIR.BLOCK.1) a block realize runs the block only when its predicate (``T.where``) holds, with the
  iteration variables bound to ``iter_values`` (TIR.BLOCK.2; domains are not checked). The predicate
  is tested first unless it mentions the iteration variables, so that the bindings of a skipped
  instance are never evaluated. (TIR.BLOCK.ALLOC.1) the block's
  ``alloc_buffers`` are fresh zero-filled arrays for each execution; (TIR.BLOCK.MATCH.1)
  ``match_buffers`` are views of the source regions. (TIR.BLOCK.INIT.1) ``T.init()`` runs before the
  body exactly when every reduce-type iteration variable equals the minimum of its domain (always,
  when the block has none).
* (TIR.STMT.1) ``IfThenElse``, ``While``, ``LetStmt``/``Bind`` (the variable is bound for the body / the
  rest of the sequence), ``Evaluate`` (the value is computed and discarded; ``T.assume`` is a no-op),
  ``AssertStmt`` (AssertionFailedError with the message when false), ``AllocBuffer`` and classic
  ``Allocate`` (fresh zero-filled memory, TIR.BUF.5), ``DeclBuffer`` (a view, TIR.BUF.4).
* (TIR.BOUNDS.1) every buffer load and store is bounds-checked: an index outside ``[0, extent)`` raises
  TIRBoundsError with the buffer name, the indices and the shape (TVM would read or corrupt memory).
* (TIR.PACKED.1) ``T.call_packed`` calls a packed function with views of buffers
  (:mod:`relax_ref.interp.tir_packed`); ``packed`` (the calling interpreter's look-up) resolves names.
* Scalar semantics (integer wrapping, division by zero, float rounding, casts, intrinsics) are those
  of chapter PRIM, shared with :func:`relax_ref.arith.evaluate.eval_prim`.

(TIR.VEC.1) With ``vectorize=True`` (the default) perfect loop nests around a block (or around plain
stores) are executed by :mod:`relax_ref.interp.tir_vectorize` as whole-array numpy operations when
that is provably equivalent; otherwise, and always with ``vectorize=False``, the scalar path runs.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from ..arith import semantics as _sem
from ..arith.intrinsics import canonical_name
from ..errors import (
    ArityMismatchError, AssertionFailedError, DTypeMismatchError, NDimMismatchError, OpRuntimeError,
    RelaxError, RelaxRuntimeError, ShapeMismatchError, TypeMismatchError, UnsupportedError,
    WellFormedError,
)
from ..ir import dtype as _dt
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.functor import post_order_visit_stmt, prim_vars_in, stmt_prim_exprs
from ..ir.tir_bfloat16 import compute_in_float32
from ..values import PrimScalar, byte_offset
from .builtins import lookup_packed
from ..limits import DEFAULT_LIMITS, Limits, StepBudget, while_limit_error
from .tir_buffers import (
    LIMITS, STEPS, alloc_array, bind_alloc, bounds_error, buffer_array, match_region, view_of,
)
from .tir_expr import ScalarCompiler
from .tir_packed import PACKED_LOOKUP

Exec = Callable[[Dict], None]

#: key of the environment entry that enables the vectorized path
VECTORIZE = object()


# ---------------------------------------------------------------------------------------------------
# Statement compilation
# ---------------------------------------------------------------------------------------------------


class _Compiler:
    def __init__(self, func: tir.PrimFunc, name: str) -> None:
        self.func = func
        self.name = name
        self.ex = ScalarCompiler()
        # buffers sharing a data variable, so that re-allocation invalidates cached views
        self.users: Dict[P.PrimVar, List[tir.Buffer]] = {}
        if func.body is not None:
            post_order_visit_stmt(func.body, self._collect_buffers)

    def _collect_buffers(self, s: tir.Stmt) -> None:
        bufs = []
        if isinstance(s, (tir.BufferStore, tir.AllocBuffer, tir.DeclBuffer)):
            bufs.append(s.buffer)
        if isinstance(s, tir.Block):
            bufs.extend(s.alloc_buffers)
            bufs.extend(m.buffer for m in s.match_buffers)
        for e in stmt_prim_exprs(s):
            _loads_in(e, bufs)
        for b in bufs:
            lst = self.users.setdefault(b.data, [])
            if all(x is not b for x in lst):
                lst.append(b)

    def expr(self, e: P.PrimExpr):
        return self.ex.compile(e)

    def stmt(self, s: Optional[tir.Stmt]) -> Exec:
        if s is None:
            return lambda env: None
        m = getattr(self, "_" + type(s).__name__, None)
        if m is None:
            raise UnsupportedError(f"TensorIR statement {type(s).__name__} is not supported", s.span)
        return m(s)

    # -- sequencing ------------------------------------------------------------------------------

    def _SeqStmt(self, s: tir.SeqStmt) -> Exec:
        parts = [self.stmt(c) for c in s.seq]
        if len(parts) == 1:
            return parts[0]

        def seq(env):
            for p in parts:
                p(env)
        return seq

    def _Evaluate(self, s: tir.Evaluate) -> Exec:
        v = s.value
        if isinstance(v, (P.IntImm, P.FloatImm, P.PrimStringImm)):
            return lambda env: None
        if isinstance(v, P.PrimCall) and canonical_name(v.op) == "tir.assume":
            return lambda env: None
        if isinstance(v, P.PrimCall) and canonical_name(v.op) == "tir.ret" and len(v.args) == 1:
            fr = self.expr(v.args[0])

            def ret(env):
                raise _Return(fr(env))
            return _spanned(ret, s.span)
        fv = self.expr(v)
        return _spanned(lambda env: fv(env), s.span)

    def _LetStmt(self, s: tir.LetStmt) -> Exec:
        fv, body, var = self.expr(s.value), self.stmt(s.body), s.var

        def let(env):
            env[var] = fv(env)
            body(env)
        return _spanned(let, s.span)

    def _Bind(self, s: tir.Bind) -> Exec:
        fv, var = self.expr(s.value), s.var

        def bind(env):
            env[var] = fv(env)
        return _spanned(bind, s.span)

    def _AssertStmt(self, s: tir.AssertStmt) -> Exec:
        fc, body, msg, span = self.expr(s.condition), self.stmt(s.body), s.message, s.span

        def check(env):
            if not fc(env):
                raise AssertionFailedError(msg or "TensorIR assertion failed", span)
            body(env)
        return check

    def _IfThenElse(self, s: tir.IfThenElse) -> Exec:
        fc, then, other = self.expr(s.condition), self.stmt(s.then_case), self.stmt(s.else_case)

        def branch(env):
            if fc(env):
                then(env)
            else:
                other(env)
        return _spanned(branch, s.span)

    def _While(self, s: tir.While) -> Exec:
        fc, body = self.expr(s.condition), self.stmt(s.body)

        def loop(env):
            steps = env[STEPS]
            limit = env[LIMITS].max_while_steps
            n = 0
            while fc(env):
                steps.take(1, s.span, "while loop")         # RUNTIME.LIMIT.4
                n += 1
                if n > limit:
                    raise while_limit_error(limit, s.span, n)
                body(env)
        return _spanned(loop, s.span)

    # -- loops -------------------------------------------------------------------------------------

    def _For(self, s: tir.For) -> Exec:
        from .tir_vectorize import analyze_nest

        fmin, fext, body, var = self.expr(s.min), self.expr(s.extent), self.stmt(s.body), s.loop_var
        plan = analyze_nest(s, self)

        def scalar(env, lo, n):
            for i in range(lo, lo + n):
                env[var] = i
                body(env)

        def loop(env):
            lo = fmin(env)
            n = fext(env)
            steps = env[STEPS]
            steps.take(n, s.span, "for loop")               # RUNTIME.LIMIT.4: counted on entry
            if plan is not None and env.get(VECTORIZE) and n > 0:
                inner = plan.inner_steps(env, n)            # the nest's inner loops, counted up front
                steps.take(inner, s.span, "for loop")
                steps.paused += 1
                try:
                    done = plan.run(env, lo, n, scalar)
                finally:
                    steps.paused -= 1
                if done:
                    return
                steps.give_back(inner)                      # the scalar path counts them itself
            scalar(env, lo, n)
        return _spanned(loop, s.span)

    # -- blocks ------------------------------------------------------------------------------------

    def _BlockRealize(self, s: tir.BlockRealize) -> Exec:
        blk = s.block
        vals = [self.expr(v) for v in s.iter_values]
        if len(vals) != len(blk.iter_vars):
            raise WellFormedError(
                f"block '{blk.name}' has {len(blk.iter_vars)} iteration variables but {len(vals)} bindings "
                "(WF.TIR.5)", s.span)
        ivars = [iv.var for iv in blk.iter_vars]
        pred = s.predicate
        fpred = None if isinstance(pred, P.IntImm) and pred.value else self.expr(pred)
        # the predicate is tested before the bindings unless it uses them (TIR.BLOCK.1)
        early = fpred is not None and not any(v in prim_vars_in(pred) for v in ivars)
        body = self.stmt(blk.body)
        init = self.stmt(blk.init) if blk.init is not None else None
        reduce_ivs = [(iv.var, self.expr(iv.dom.min)) for iv in blk.iter_vars if iv.iter_type == "reduce"]
        allocs = list(blk.alloc_buffers)
        matches = list(blk.match_buffers)
        name = self.name

        def realize(env):
            if early and not fpred(env):
                return
            for v, f in zip(ivars, vals):
                env[v] = f(env)
            if fpred is not None and not early and not fpred(env):
                return
            for b in allocs:
                bind_alloc(env, b, alloc_array(b, env))
            for mb in matches:
                view = match_region(env, mb.source, mb.buffer, _binder(env, name))
                bind_alloc(env, mb.buffer, view)
            if init is not None and all(env[v] == fm(env) for v, fm in reduce_ivs):
                init(env)
            body(env)
        return _spanned(realize, s.span)

    def _Block(self, s: tir.Block) -> Exec:
        return self._BlockRealize(tir.BlockRealize((), None, s, span=s.span))

    # -- allocation --------------------------------------------------------------------------------

    def _AllocBuffer(self, s: tir.AllocBuffer) -> Exec:
        buf = s.buffer
        users = self.users.get(buf.data, [])

        def alloc(env):
            for b in users:
                env.pop(b, None)
            bind_alloc(env, buf, alloc_array(buf, env))
        return _spanned(alloc, s.span)

    def _DeclBuffer(self, s: tir.DeclBuffer) -> Exec:
        buf, body = s.buffer, self.stmt(s.body)

        def decl(env):
            base = env.get(buf.data)
            if isinstance(base, np.ndarray):
                env[buf] = view_of(base, buf, env)
            else:
                bind_alloc(env, buf, alloc_array(buf, env))
            body(env)
        return _spanned(decl, s.span)

    def _Allocate(self, s: tir.Allocate) -> Exec:
        var, dt = s.buffer_var, _dt.to_numpy(s.dtype)
        exts = [self.expr(e) for e in s.extents]
        body = self.stmt(s.body)
        users = self.users.get(var, [])

        def allocate(env):
            n = 1
            for f in exts:
                n *= int(f(env))
            if n < 0:
                raise RelaxRuntimeError(f"allocation '{var.name}' has negative size {n}")
            for b in users:
                env.pop(b, None)
            env[var] = np.zeros(n, dtype=dt)
            body(env)
        return _spanned(allocate, s.span)

    # -- stores ------------------------------------------------------------------------------------

    def _BufferStore(self, s: tir.BufferStore) -> Exec:
        buf = s.buffer
        fv = self.expr(s.value)
        if s.value.dtype != buf.dtype:
            src, dst, raw = s.value.dtype, buf.dtype, fv
            fv = lambda env: _sem.cast(raw(env), src, dst)  # noqa: E731
        idx = [self.expr(i) for i in s.indices]
        span = s.span

        def get(env):
            try:
                return env[buf]
            except KeyError:
                return buffer_array(env, buf)

        if len(idx) == 1:
            f0 = idx[0]

            def store1(env):
                arr = get(env)
                i = f0(env)
                v = fv(env)
                if not 0 <= i < arr.shape[0]:
                    raise bounds_error(buf, (i,), arr.shape, write=True, span=span)
                try:
                    arr[i] = v
                except ValueError:
                    raise _store_error(buf, arr) from None
            return _spanned(store1, span)

        def store(env):
            arr = get(env)
            ix = tuple(f(env) for f in idx)
            v = fv(env)
            if len(ix) != arr.ndim:
                raise WellFormedError(
                    f"buffer '{buf.name}' of rank {arr.ndim} is written with {len(ix)} indices (WF.TIR.4)", span)
            for i, n in zip(ix, arr.shape):
                if not 0 <= i < n:
                    raise bounds_error(buf, ix, arr.shape, write=True, span=span)
            try:
                arr[ix] = v
            except ValueError:
                raise _store_error(buf, arr) from None
        return _spanned(store, span)


def _loads_in(e: P.PrimExpr, out: list) -> None:
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, tir.BufferLoad):
            out.append(x.buffer)
        stack.extend(P.children(x))


def _store_error(buf: tir.Buffer, arr: np.ndarray) -> RelaxError:
    if not arr.flags.writeable:
        return OpRuntimeError(f"store into buffer '{buf.name}', whose tensor is read-only here (an input of "
                              "call_tir may not be written, CALL.TIR.6)")
    return RelaxRuntimeError(f"cannot store into buffer '{buf.name}'")


def _spanned(fn: Exec, span) -> Exec:
    """Attach the statement's span to errors raised while running it."""
    if span is None:
        return fn

    def run(env):
        try:
            fn(env)
        except RelaxError as e:
            raise e.with_span(span)
    return run


def _binder(env: Dict, fname: str):
    """A callback binding (or checking) a symbolic buffer field against an actual integer."""

    def bind(expr: P.PrimExpr, actual: int, what: str) -> None:
        actual = int(actual)
        if isinstance(expr, P.PrimVar) and expr not in env:
            env[expr] = _sem.wrap(actual, expr.dtype) if _dt.is_integer(expr.dtype) else actual
            return
        from ..arith.evaluate import eval_prim

        want = int(eval_prim(expr, env))
        if want != actual:
            raise ShapeMismatchError(
                f"{what} is {actual}, expected {P.to_str(expr)} = {want}", site="call_tir",
                expected=str(want), actual=str(actual), function=fname)
    return bind


# ---------------------------------------------------------------------------------------------------
# Compiled functions and argument binding
# ---------------------------------------------------------------------------------------------------


class _Return(Exception):
    """``T.ret(value)`` (TIR.FUNC.5): ends the PrimFunc with ``value``."""

    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value


class CompiledPrimFunc:
    """A PrimFunc compiled to closures; :meth:`__call__` binds arguments and runs the body, returning
    the value of ``T.ret`` for a function with a return type (TIR.FUNC.5), else None."""

    def __init__(self, func: tir.PrimFunc, name: str) -> None:
        self.func = func
        self.name = name
        run = compute_in_float32(func)      # bfloat16 arithmetic in float32 (TIR.BF16.1-3)
        self.body = _Compiler(run, name).stmt(run.body)

    def __call__(self, args: Sequence[Any], vectorize: bool = True, packed: Callable = lookup_packed,
                 limits: Optional[Limits] = None) -> Any:
        """Run on ``args`` and return what ``T.ret`` returns (None for a void function); ``packed``
        resolves the names of ``T.call_packed`` (the calling evaluator's look-up; by default the
        global one); ``limits`` the budgets of RUNTIME.LIMIT.3-4."""
        lim = DEFAULT_LIMITS if limits is None else limits
        env: Dict = {VECTORIZE: vectorize, PACKED_LOOKUP: packed, LIMITS: lim, STEPS: StepBudget(lim.max_steps)}
        bind_arguments(self.func, list(args), env, self.name)
        with np.errstate(all="ignore"):
            try:
                self.body(env)
            except _Return as r:
                return r.value
        if self.func.ret_type not in (None, "void", ""):
            raise UnsupportedError(f"{self.name}: the function ends without T.ret")
        return None


_CACHE: "weakref.WeakKeyDictionary[tir.PrimFunc, CompiledPrimFunc]" = weakref.WeakKeyDictionary()


def compiled(func: tir.PrimFunc, name: Optional[str] = None) -> CompiledPrimFunc:
    c = _CACHE.get(func)
    if c is None:
        c = CompiledPrimFunc(func, name or func.global_symbol or "<prim_func>")
        _CACHE[func] = c
    return c


def _scalar_arg(v: Any, dtype: str, fname: str, pname: str) -> Any:
    """A scalar argument (TIR.FUNC.2): a bool or integer prim value converts to the parameter's dtype
    (wrapped, nonzero-is-true or rounded); a float prim value only to a float dtype (else
    DTypeMismatchError); anything else is a TypeMismatchError. Host scalars given to
    :func:`run_prim_func` directly count as prim values of their kind."""
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v[()]
    if isinstance(v, PrimScalar):
        src, val = v.dtype, _sem.to_value(v.value, v.dtype)
    elif isinstance(v, (bool, np.bool_)):
        src, val = "bool", bool(v)
    elif isinstance(v, (int, np.integer)):
        src, val = None, int(v)          # a host integer: any width
    elif isinstance(v, (float, np.floating)):
        src, val = "float64", np.float64(v)
    else:
        raise TypeMismatchError(
            f"scalar parameter '{pname}' of type {dtype} received {type(v).__name__}", site="call_tir",
            expected=dtype, actual=type(v).__name__, function=fname, binding=pname)
    if src is not None and _dt.is_float(src) and not _dt.is_float(dtype):
        raise DTypeMismatchError(
            f"scalar parameter '{pname}' of type {dtype} received a {src} value", site="call_tir",
            expected=dtype, actual=src, function=fname, binding=pname)
    if src is None:
        if dtype == "bool":
            return val != 0
        return _sem.int_to_float(val, dtype) if _dt.is_float(dtype) else _sem.wrap(val, dtype)
    return _sem.cast(val, src, dtype)


def bind_arguments(func: tir.PrimFunc, args: List[Any], env: Dict, fname: str) -> None:
    """Bind PrimFunc arguments into ``env`` (TIR.FUNC.4); errors carry ``site="call_tir"``.

    Phases: arity; structure of every parameter in order (tensor kind, rank, dtype; scalar kind and
    dtype, binding the scalar's variable); binding of bare variables and comparison of immediates in
    the buffer shapes; comparison of the remaining shape expressions. Declared strides must be the
    dense row-major ones and a declared ``elem_offset`` must be 0 (TIR.FUNC.7)."""
    if len(args) != len(func.params):
        raise ArityMismatchError(
            f"PrimFunc '{fname}' takes {len(func.params)} arguments, got {len(args)}", site="call_tir",
            expected=str(len(func.params)), actual=str(len(args)), function=fname)
    buffers = []
    for p, a in zip(func.params, args):
        buf = func.buffer_of(p)
        if buf is None:
            if p.dtype == "handle":     # (TIR.FUNC.6) a handle nothing accesses as a buffer
                env[p] = a
                continue
            env[p] = _scalar_arg(a, p.dtype, fname, p.name)
            continue
        if not isinstance(a, np.ndarray):
            raise TypeMismatchError(
                f"buffer parameter '{buf.name}' expects a tensor, got {type(a).__name__}", site="call_tir",
                expected=f"T.Buffer({buf.dtype})", actual=type(a).__name__, function=fname, binding=buf.name)
        if a.ndim != len(buf.shape):
            raise NDimMismatchError(
                f"buffer '{buf.name}' has {len(buf.shape)} dimensions, the argument has {a.ndim}",
                site="call_tir", expected=str(len(buf.shape)), actual=str(a.ndim), function=fname,
                binding=buf.name)
        try:
            adt = _dt.from_numpy(a.dtype)
        except RelaxError:
            adt = str(a.dtype)
        if adt != buf.dtype:
            raise DTypeMismatchError(
                f"buffer '{buf.name}' has dtype {buf.dtype}, the argument has {adt}", site="call_tir",
                expected=buf.dtype, actual=adt, function=fname, binding=buf.name)
        buffers.append((p, buf, a))
    pending = []
    for p, buf, a in buffers:
        for d, (dim, n) in enumerate(zip(buf.shape, a.shape)):
            what = f"{buf.name}.shape[{d}]"
            if isinstance(dim, P.PrimVar):
                if dim in env:
                    if int(env[dim]) != n:
                        raise ShapeMismatchError(
                            f"{what} is {n}, expected {dim.name} = {env[dim]} (bound earlier)",
                            site="call_tir", expected=str(env[dim]), actual=str(n), function=fname,
                            binding=buf.name, symbol=dim.name)
                else:
                    env[dim] = _sem.wrap(int(n), dim.dtype) if _dt.is_integer(dim.dtype) else int(n)
            elif isinstance(dim, P.IntImm):
                if dim.value != n:
                    raise ShapeMismatchError(
                        f"{what} is {n}, expected {dim.value}", site="call_tir", expected=str(dim.value),
                        actual=str(n), function=fname, binding=buf.name)
            else:
                pending.append((dim, n, what, buf))
        env[p] = a
        env[buf] = a
        env[buf.data] = a
    for dim, n, what, buf in pending:
        try:
            _binder(env, fname)(dim, n, what)
        except RelaxError as e:
            raise e.with_context(binding=buf.name)
    for p, buf, a in buffers:
        _check_layout(buf, a, env, fname)


def dense_strides(shape: Sequence[int]) -> List[int]:
    """The element strides of a dense row-major tensor of ``shape`` (TIR.FUNC.3 step 4)."""
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= int(n)
    return out[::-1]


def check_zero_offset(buf: tir.Buffer, offset: int, fname: str) -> None:
    """(TIR.FUNC.7) a tensor made by ``memory.view`` at a nonzero byte offset binds no buffer:
    ShapeMismatchError for a buffer of the default layout, UnsupportedError for one that declares an
    ``elem_offset`` (the offset would have to be bound to the view's position in its storage)."""
    if not offset:
        return
    if buf.elem_offset is not None:
        raise UnsupportedError(f"buffer '{buf.name}' declares elem_offset and the argument is a view at byte "
                               f"offset {offset}", function=fname, binding=buf.name)
    raise ShapeMismatchError(f"{buf.name}.byte_offset is {offset}, expected 0 (a view passed to a PrimFunc must "
                             "go through memory.ensure_zero_offset)", site="call_tir", expected="0",
                             actual=str(offset), function=fname, binding=buf.name)


def _check_layout(buf: tir.Buffer, a: np.ndarray, env: Dict, fname: str) -> None:
    """(TIR.FUNC.3 step 4) the tensor's byte offset must be 0; declared strides are bound / compared
    against the dense row-major strides of the tensor, a declared ``elem_offset`` against 0
    (ShapeMismatchError)."""
    check_zero_offset(buf, byte_offset(a), fname)
    bind = _binder(env, fname)
    if buf.strides:
        for d, (st, want) in enumerate(zip(buf.strides, dense_strides(a.shape))):
            try:
                bind(st, want, f"{buf.name}.strides[{d}]")
            except RelaxError as e:
                raise e.with_context(binding=buf.name)
    if buf.elem_offset is not None:
        try:
            bind(buf.elem_offset, 0, f"{buf.name}.elem_offset")
        except RelaxError as e:
            raise e.with_context(binding=buf.name)


def run_prim_func(func: tir.PrimFunc, args: list, *, vectorize: bool = True,
                  name: Optional[str] = None, limits: Optional[Limits] = None) -> None:
    """Run ``func`` on ``args`` (numpy arrays for buffer parameters, mutated in place; scalars for
    scalar parameters). Returns None (TIR.FUNC.2). ``vectorize=False`` forces the scalar path
    (TIR.VEC.1). ``name`` names the function in error messages (default: its ``global_symbol``)."""
    if not isinstance(func, tir.PrimFunc):
        raise TypeMismatchError(f"run_prim_func expects a PrimFunc, got {type(func).__name__}")
    compiled(func, name)(args, vectorize, lookup_packed, limits)


__all__ = ["run_prim_func", "bind_arguments", "CompiledPrimFunc", "compiled", "VECTORIZE"]
