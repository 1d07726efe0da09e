"""The Relax evaluator of the JAX executor (spec chapters EVAL and CALL, as the reference).

One :class:`Walker` evaluates Relax functions over executor values (:mod:`relax_jax.values`) in one of
two modes:

* ``"traced"`` -- inside ``jax.jit``: tensors hold tracers, symbolic sizes may be traced under
  bucketing. Every operator becomes its JAX lowering, a ``call_tir`` the PrimFunc's lowering
  (:mod:`relax_jax.tir`), nested function calls and closures are inlined, an ``If`` whose condition is
  traced becomes ``lax.cond`` (one whose condition is static is decided while tracing). Run-time
  checks become check sites (:mod:`relax_jax.errors`). Constructs that need the host -- packed
  functions, ``R.print``, data-dependent shapes, recursion, closures escaping the call, branches with
  differently shaped results -- abort tracing (:class:`~relax_jax.errors.TraceAbort`).
* ``"host"`` -- eagerly on concrete JAX arrays: conditions are read on the host, run-time checks are
  the reference interpreter's :class:`~relax_ref.interp.checks.Matcher`, packed functions receive numpy
  copies (written back, so in-place packed functions work), PrimFuncs run as compiled kernels.

The evaluation rules are those of :mod:`relax_ref.interp.relax` (EVAL.*, CALL.*): left-to-right
argument evaluation, parameter checks binding symbolic variables (CALL.FUNC.2), return checks, the
call-result check of EVAL.CALL.3, scoping of symbolic variables to a ``SeqExpr`` (EVAL.SEQ.1), closures
capturing their environment by reference (EVAL.FUNC.1), aliasing through boxes (EVAL.VAR.1).
"""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np

from relax_ref import values as rv
from relax_ref.arith.evaluate import eval_prim
from relax_ref.errors import LimitExceededError, RelaxError, ShapeMismatchError, TypeMismatchError, UnsupportedError
from relax_ref.interp.bounds import bound_error, declared_bounds, violates
from relax_ref.interp.builtins import check_condition, coerce_result
from relax_ref.interp.evaluator import ExprEvaluator, Frame, result_hint
from relax_ref.ir import dtype as _dt
from relax_ref.ir import expr as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.functor import prim_vars_in
from relax_ref.limits import CallDepth, check_alloc, check_rank
from relax_ref.ops import registry
from relax_ref.static.inference import (
    actual_struct_info, check_loose_call, inference_key, operator_struct_info, underspecified_tensor_args,
)

from .dims import dim_value, is_symbolic_dim
from .errors import ErrorSink, NeedsExact, TraceAbort
from .float_rules import PRODUCT_OPS, factor_only_products, plain_products
from .guard import check_jaxpr
from .lowering import LOWERINGS, LowerCtx
from .matcher import TracedMatcher, host_check
from .op_args import JaxArgs
from .op_memo import MEMO_OPS, OpMemo
from .prim_jax import is_static
from .pytree import flatten, unflatten
from .storage import StorageTVal, write_through
from .symbolic import eval_sym, eval_value, is_monotone, is_nonnegative, upper_bound
from .tir.call import call_prim_func_in_place
from .views import propagate
from .values import ClosureV, PackedV, PrimFuncV, PrimV, ShapeV, SymInt, TVal, describe

#: deepest nesting of inlined calls while tracing before giving up (runaway recursion)
MAX_INLINE_DEPTH = 64


class Walker(ExprEvaluator):
    """Evaluates Relax functions of ``exe.mod`` (see the module docstring)."""

    def __init__(self, exe, mode: str, sink: ErrorSink) -> None:
        self.exe = exe
        self.mod = exe.mod
        self.mode = mode
        self.sink = sink
        self.level = 0
        self.stack: List[Any] = []
        #: RUNTIME.LIMIT.7: host walkers share the executable's count of active calls; a traced walker
        #: counts the calls it inlines from its entry (depth 1, as the entry call on the reference)
        if self.traced:
            self._call_depth = CallDepth(exe.limits.max_depth)
            self._call_depth.depth = 1
        self._globals: Dict[str, Any] = {}
        #: static upper bounds of the entry function's symbolic variables under bucketing
        #: (``symbolic.upper_bound``); empty when shapes are exact
        self.var_bounds: Dict[Any, int] = {}
        #: ids of the entry's variables bound by tensor extents or shape values (never negative,
        #: VAL.SHAPE.1): a shape entry built from them needs no run-time sign check
        self.size_vars: FrozenSet[int] = frozenset()
        #: traced ``repeat`` results by id: ``(result, source, repeats, axis)``, so that a consumer that
        #: can read the source directly (grouped-query attention) need not materialize the copy
        self.repeats: Dict[int, tuple] = {}
        self._factor_only: Optional[FrozenSet[int]] = None
        #: :meth:`eval_sym`'s values of this trace
        self._sym_memo: Dict[Any, Any] = {}
        #: repeated operator calls of this trace (:mod:`relax_jax.op_memo`)
        self.op_memo = OpMemo()

    @property
    def traced(self) -> bool:
        return self.mode == "traced"

    @property
    def factor_only(self) -> FrozenSet[int]:
        """The products no consumer can contract (``float_rules.factor_only_products``)."""
        if self._factor_only is None:            # once per executable: the module does not change
            hit = getattr(self.exe, "_factor_only", None)
            if hit is None or hit[0] is not self.mod:
                hit = self.exe._factor_only = (self.mod, factor_only_products(self.mod))
            self._factor_only = hit[1]
        return self._factor_only

    def sink_check(self, bad, make, mask=None) -> None:
        self.sink.check(bad, make, mask)

    def eval_sym(self, e: P.PrimExpr, sym: Dict) -> SymInt:
        """:func:`relax_jax.symbolic.eval_sym` (with the run-time checks of its arithmetic): once per
        trace for one expression over the same values of its variables, so that the layers of a model
        evaluating ``n + 1`` share one traced value (and compare it with itself while tracing) instead
        of emitting the arithmetic again. Entries are made outside traced branches only (whose values
        may not leave them)."""
        if not self.traced or type(e) is P.IntImm or type(e) is P.PrimVar:
            return eval_sym(e, sym, check=self.sink_check)
        fv = prim_vars_in(e)
        ss = tuple(sym.get(v) for v in fv)
        key = (e, tuple(map(id, ss)))
        try:
            hit = self._sym_memo.get(key)
        except TypeError:                   # an unhashable expression
            return eval_sym(e, sym, check=self.sink_check)
        if hit is not None and all(a is b for a, b in zip(hit[0], ss)):
            return hit[1]
        r = eval_sym(e, sym, check=self.sink_check)
        if self.level == 0 and all(x is not None for x in ss):
            self._sym_memo[key] = (ss, r)
        return r

    # -- checks ----------------------------------------------------------------------------------------

    def check_values(self, pairs, frame: Frame, *, site: str, bind: bool, span) -> None:
        """EVAL.CHECK.1-4 over ``(value, struct info, binding)`` pairs."""
        if self.traced:
            m = TracedMatcher(self, frame.sym, site=site, function=frame.function, bind=bind, env=frame.env,
                              span=span)
            for p in pairs:
                m.match(*p)
            m.finish()
        else:
            host_check(pairs, frame.sym, site=site, function=frame.function, bind=bind, env=frame.env, span=span)

    # -- functions -------------------------------------------------------------------------------------

    def run_entry(self, func: rx.Function, name: str, params: Sequence[Any], sym: Dict) -> Any:
        """Evaluate ``func``'s body with parameter values already checked on the host and the
        symbolic environment ``sym`` (traced entry of a compiled function)."""
        return self.run_function(func, Frame({p: v for p, v in zip(func.params, params)}, sym, name))

    def closure_args(self, cl: ClosureV, args: List[Any]) -> List[Any]:
        return list(args) + list(cl.captured)

    def call_depth(self) -> CallDepth:
        return self._call_depth if self.traced else self.exe.call_depth

    def enter_function(self, cl: ClosureV, args: List[Any], call: Optional[rx.Call]) -> Any:
        """Traced: calls are inlined, so recursion aborts tracing; host: a global function runs in its
        compiled form when it has one, and when the calls it may inline fit under ``max_depth``
        (RUNTIME.LIMIT.7: its compiled form counted them from its entry)."""
        if self.traced:
            if any(f is cl.func for f in self.stack):
                raise TraceAbort(f"function '{cl.name}' is recursive", permanent=True)
            if len(self.stack) > MAX_INLINE_DEPTH:
                raise TraceAbort("calls nest too deeply to inline", permanent=True)
        elif cl.global_name is not None and call is not None and self.call_depth().room() > MAX_INLINE_DEPTH + 2:
            return self.exe._host_call_global(cl.global_name, args, self)
        return NotImplemented

    def run_body(self, func: rx.Function, frame: Frame) -> Any:
        self.stack.append(func)
        try:
            return self._seq(func.body, frame)
        finally:
            self.stack.pop()

    def check_bounds(self, func: rx.Function, frame: Frame, span) -> None:
        """CALL.FUNC.7: the declared bounds of the parameters' symbolic variables."""
        for b in declared_bounds(func):
            s = frame.sym.get(b.var)
            if s is None:
                continue
            val = s.val if isinstance(s, SymInt) else s
            if is_static(val):
                if violates(b, int(val)):
                    raise bound_error(b, int(val), function=frame.function, span=span)
                continue
            bad = False
            if b.upper is not None:
                bad = jnp.logical_or(bad, val > b.upper)
            if b.lower is not None:
                bad = jnp.logical_or(bad, val < b.lower)
            self.sink_check(bad, lambda b=b: bound_error(b, None, function=frame.function, span=span))

    def call_value(self, fn: Any, args: List[Any], call: Optional[rx.Call]) -> Any:
        if isinstance(fn, ClosureV):
            return self.call_closure(fn, args, call)
        if isinstance(fn, PrimFuncV):
            call_prim_func_in_place(self, fn, args, call)
            return ()
        if isinstance(fn, PackedV):
            return self.call_packed(fn, args, call)
        raise TypeMismatchError(f"cannot call {describe(fn)}: it is not a function",
                                call.span if call is not None else None)

    # -- packed functions (host only) ----------------------------------------------------------------

    def call_packed(self, fn: PackedV, args: List[Any], call: Optional[rx.Call]) -> Any:
        if self.traced and not getattr(fn.fn, "traceable", False):
            raise TraceAbort(f"packed function '{fn.name}' is called", permanent=True)
        args = list(args) + list(fn.captured)
        if getattr(fn.fn, "native", False):
            return fn.fn(self, args, call)
        copies: List[Tuple[TVal, np.ndarray]] = []
        ref_args = [self._to_host(a, copies) for a in args]
        try:
            r = fn.fn(*ref_args)
        except RelaxError as e:
            raise e.with_span(call.span if call is not None else None)
        for box, arr in copies:
            self.mutate(box, jnp.asarray(arr))
        r = coerce_result(r, result_hint(call))
        return self._from_host(r, {id(a): b for b, a in copies})

    def _to_host(self, v: Any, copies: list) -> Any:
        if isinstance(v, TVal):
            for box, arr in copies:
                if box is v:            # one tensor passed twice is one host array (CALL.IPACKED.1)
                    return arr
            arr = np.array(v.data)
            copies.append((v, arr))
            return arr
        if isinstance(v, ShapeV):
            return rv.ShapeValue(int(d.val) for d in v)
        if isinstance(v, PrimV):
            val = v.val if is_static(v.val) else np.asarray(v.val).item()
            return rv.PrimScalar(val, v.dtype)
        if isinstance(v, tuple):
            return tuple(self._to_host(x, copies) for x in v)
        if isinstance(v, PackedV):
            return rv.PackedFunc(v.name, v.fn)
        if isinstance(v, (ClosureV, PrimFuncV)):
            w = self

            def host_fn(*xs, _fn=v):
                vals = [w._from_host(x, {}) for x in xs]
                return w._to_host(w.call_value(_fn, vals, None), [])
            return rv.PackedFunc(getattr(v, "name", "function"), host_fn)
        return v

    def _from_host(self, v: Any, boxes: Dict[int, TVal]) -> Any:
        if isinstance(v, np.ndarray):
            b = boxes.get(id(v))
            if b is not None:
                return b
            return TVal(jnp.asarray(v), None, self.level)
        if isinstance(v, rv.ShapeValue):
            return ShapeV(v)
        if isinstance(v, rv.PrimScalar):
            return PrimV(v.value, v.dtype, SymInt.static(v.value) if _dt.is_integer(v.dtype) else None)
        if isinstance(v, tuple):
            return tuple(self._from_host(x, boxes) for x in v)
        if isinstance(v, rv.PackedFunc):
            return PackedV(v.name, v.fn)
        if isinstance(v, rv.Closure):
            return ClosureV(v.func, {}, v.name)
        return v

    # -- mutation --------------------------------------------------------------------------------------

    def mutate(self, box: TVal, data: Any, valid: Any = "keep") -> None:
        """Replace the contents of a tensor box (in-place semantics)."""
        if self.traced and box.level < self.level:
            raise TraceAbort("a tensor created outside a traced branch is mutated inside it")
        box.data = data
        if valid != "keep":
            box.valid = valid
        if isinstance(box, StorageTVal):
            write_through(self, box)        # tensors of one storage alias (CALL.ALLOC.2)
        if box.view is not None:
            propagate(self, box)            # views of one tensor alias (VAL.TENSOR.VIEW.2)

    # -- struct info dims --------------------------------------------------------------------------------

    def sinfo_dims(self, s: Any, frame: Frame) -> Optional[Tuple[SymInt, ...]]:
        """Logical extents of a tensor struct info in ``frame`` (None when unknown)."""
        if not isinstance(s, si.TensorStructInfo):
            return None
        if isinstance(s.shape, rx.ShapeExpr):
            return tuple(self.eval_sym(v, frame.sym) for v in s.shape.values)
        if s.shape is not None:
            v = frame.env.get(s.shape)
            if isinstance(v, ShapeV):
                return tuple(v)
        return None

    def tensor_from(self, data: Any, dims: Optional[Tuple[SymInt, ...]]) -> TVal:
        """A box for ``data`` whose logical extents are ``dims`` (physical shape must agree)."""
        if dims is None:
            return TVal(data, None, self.level)
        valid = []
        for a, d in enumerate(dims):
            if d.is_static:
                valid.append(None)
            else:
                if d.phys != data.shape[a]:
                    ub = upper_bound(d, self.var_bounds)
                    if ub is None or ub > data.shape[a]:
                        raise NeedsExact(f"a result extent ({data.shape[a]}) differs from its bucket ({d.phys})")
                    # a tighter buffer than the expression's bound (e.g. a cache of ``L + 1`` rows kept in
                    # L's bucket): the extent's physical bound becomes the buffer's
                    d = SymInt(int(data.shape[a]), d.val, d.expr)
                valid.append(d)
        return TVal(data, tuple(valid), self.level)

    # -- value semantics (ExprEvaluator) ------------------------------------------------------------------

    def make_closure(self, func: rx.Function, env: Any, name: str, global_name: Optional[str] = None) -> ClosureV:
        return ClosureV(func, env, name, (), global_name)

    def make_prim_func(self, name: str, func: tir.PrimFunc) -> PrimFuncV:
        return PrimFuncV(name, func)

    def lookup_packed(self, name: str, span=None) -> PackedV:
        f = self.exe.lookup_packed(name, span)
        if self.traced and not getattr(f.fn, "traceable", False):
            raise TraceAbort(f"packed function '{name}' is referenced", permanent=True)
        return f

    def is_tuple(self, v: Any) -> bool:
        return isinstance(v, tuple) and not isinstance(v, ShapeV)

    def describe(self, v: Any) -> str:
        return describe(v)

    def condition(self, v: Any) -> Any:
        return _condition(v)

    def _constant(self, e: rx.Constant, frame: Frame) -> Any:
        if self.traced:
            return TVal(jnp.asarray(e.data), None, self.level)
        # host mode: a constant's array is made once per executable (recursion evaluates it per call)
        hit = self.exe.host_constants.get(id(e))
        if hit is None or hit[0] is not e:
            hit = self.exe.host_constants[id(e)] = (e, jnp.asarray(e.data))
        return TVal(hit[1], None, self.level)

    def _shape_expr(self, e: rx.ShapeExpr, frame: Frame) -> Any:
        dims = []
        for v in e.values:
            d = self.eval_sym(v, frame.sym)
            if d.is_static:
                if dim_value(d.val) < 0:
                    raise ShapeMismatchError(f"shape dimension {v} evaluates to the negative value {d.val}", e.span,
                                             function=frame.function)
            elif d.phys is not None and dim_value(d.phys) < 0:   # an upper bound: negative for the whole bucket
                raise ShapeMismatchError(f"shape dimension {v} evaluates to a negative value", e.span,
                                         function=frame.function)
            elif not (d.expr is not None and is_nonnegative(d.expr, self.size_vars)):
                mv = v

                def neg(mv=mv):
                    return ShapeMismatchError(f"shape dimension {mv} evaluates to a negative value", e.span,
                                              function=frame.function)
                self.sink.check(d.val < 0, neg)
            dims.append(d)
        return ShapeV(dims)

    def _prim_value(self, e: rx.PrimValue, frame: Frame) -> Any:
        dt = e.value.dtype
        if _dt.is_integer(dt):
            s = self.eval_sym(e.value, frame.sym)
            return PrimV(s.val, dt, s)
        return PrimV(eval_value(e.value, frame.sym, check=self.sink_check), dt)

    # -- control flow ----------------------------------------------------------------------------------

    def branch(self, taken: Any, e: rx.If, frame: Frame) -> Any:
        """A static condition is decided while tracing; a traced one becomes ``lax.cond``."""
        if is_static(taken):
            return self._seq(e.true_branch if bool(taken) else e.false_branch, frame)
        return self._traced_if(taken, e, frame)

    def _traced_if(self, pred: Any, e: rx.If, frame: Frame) -> Any:
        """``lax.cond`` over both branches; their results must have one layout."""
        outer_code = self.sink.code
        specs: List[Any] = [None, None]

        def branch(k: int, seq: rx.SeqExpr):
            def f(code):
                saved = self.sink.code
                self.sink.code = code
                self.level += 1
                try:
                    r = self._seq(seq, frame)
                finally:
                    self.level -= 1
                leaves, spec = flatten(r)
                specs[k] = spec
                out = (leaves, jnp.asarray(self.sink.code, jnp.int32))
                self.sink.code = saved
                return out
            return f

        code_in = jnp.asarray(outer_code, jnp.int32)
        try:
            leaves, code = jax.lax.cond(pred, branch(0, e.true_branch), branch(1, e.false_branch), code_in)
        except (TypeError, ValueError) as err:
            if isinstance(err, RelaxError):
                raise
            raise TraceAbort(f"the branches of an If produce differently shaped values ({err})")
        if specs[0] != specs[1]:
            raise TraceAbort("the branches of an If produce values of different kinds")
        self.sink.code = code
        return unflatten(specs[0], list(leaves), self.level)

    # -- calls -----------------------------------------------------------------------------------------

    def call_op(self, e: rx.Call, frame: Frame) -> Any:
        name = e.op.name
        if not self.traced or self.level or name not in MEMO_OPS:
            return self._call_op(e, frame)
        args = [self.eval(a, frame) for a in e.args]
        k = self.op_memo.key(e, args, frame, name in PRODUCT_OPS and id(e) in self.factor_only)
        if k is None:
            return self._call_op(e, frame, args)
        hit = self.op_memo.get(k[0])       # the same operator on the same values (relax_jax.op_memo)
        if hit is not None:
            return hit
        r = self._call_op(e, frame, args)
        self.op_memo.put(k[0], k[1], r)
        return r

    def _call_op(self, e: rx.Call, frame: Frame, args: Optional[List[Any]] = None) -> Any:
        name = e.op.name
        opdef = registry.lookup(name)
        if opdef is None:
            raise UnsupportedError(f"unknown operator '{name}'", e.span)
        low = LOWERINGS.get(name)
        if low is None:
            raise UnsupportedError(f"operator '{name}' has no JAX lowering", e.span)
        if self.traced and getattr(low, "host_only", False):
            raise TraceAbort(f"operator '{name}' runs on the host", permanent=True)
        if args is None:
            args = [self.eval(a, frame) for a in e.args]
        padding = getattr(low, "padding", "none")
        if self.traced and padding == "none" and any(_padded(a) for a in args):
            raise NeedsExact(f"operator '{name}' does not support padded operands")
        if self.traced and padding == "elementwise" and not _aligned(args):
            raise NeedsExact(f"operator '{name}': a padded size is broadcast against a different size")
        ctx = LowerCtx(self, e, args, frame)
        try:
            loose = underspecified_tensor_args(e)
            if loose:
                check_loose_call(e, lambda: opdef.check is not None and opdef.check(JaxArgs(e, args, self.sink.check, self.exe.limits)),
                                 actual_struct_info(args, lambda a: _value_sinfo(a) if isinstance(a, TVal) else None),
                                 self.mod)
            # the result's size before the operator's run-time checks, as the reference (whose
            # checks run with the operator): a check may build a host-side plan as large as the result
            self._check_result_size(e.struct_info, frame, e.span)
            if not loose and opdef.check is not None:
                opdef.check(JaxArgs(e, args, self.sink.check, self.exe.limits))
            if not self.traced and _host_guarded(name, low):
                self._guard_host_op(low, e, args, frame)
            if self.traced and name in PRODUCT_OPS and id(e) in self.factor_only:
                with plain_products():                                  # PRIM.FLOAT.1: used as a factor
                    r = low(ctx, *[_lowering_arg(a) for a in args])
            else:
                r = low(ctx, *[_lowering_arg(a) for a in args])
        except RelaxError as err:
            raise err.with_span(e.span)
        padded_in = any(_padded(a) for a in args)
        if padding == "elementwise" and padded_in and self.traced and hasattr(r, "shape") and \
                not isinstance(r, (TVal, PrimV)):
            return self.tensor_from(jnp.asarray(r), _broadcast_dims(args, tuple(r.shape)))
        return self._wrap_result(r, self.inferred(e), frame, padded_in)

    def _guard_host_op(self, low, e: rx.Call, args: List[Any], frame: Frame) -> None:
        """RUNTIME.LIMIT.1/3 in host mode, as the compiled path (:func:`relax_jax.guard.check_jaxpr`):
        the lowering is traced on abstract copies of its tensor arguments and every array of that
        computation -- intermediates included -- is checked before it runs eagerly (an intermediate
        past int64 would abort the process, one past ``max_bytes`` break the budget). A lowering that
        cannot be traced apart from its values runs unchecked, as it would have in the compiled path
        (which then ran in host mode). Checked once per call site and argument signature."""
        tensors: List[TVal] = []
        _collect_tvals(tuple(args), tensors)
        if not tensors or not all(_plain_arg(a) for a in args):
            return
        key = (id(e), tuple((t.shape, str(t.data.dtype)) for t in tensors), _static_signature(args))
        guarded = self.exe.host_guarded
        if key in guarded:
            return
        tw = Walker(self.exe, "traced", ErrorSink(True))

        def abstract(*arrays):
            it = iter(arrays)
            targs = [_with_data(a, it) for a in args]
            low(LowerCtx(tw, e, targs, frame), *[_lowering_arg(a) for a in targs])
            return ()
        try:
            jaxpr = jax.make_jaxpr(abstract)(*[t.data for t in tensors])
        except Exception:  # noqa: BLE001 - not traceable apart from its values: the eager run decides
            return
        check_jaxpr(jaxpr, self.exe.limits)
        if len(guarded) > 4096:
            guarded.clear()
        guarded.add(key)

    def _check_result_size(self, s: Any, frame: Frame, span) -> None:
        """RUNTIME.LIMIT.1/3 before an operator is lowered, as the reference checks it: a result whose
        shape its struct info determines must fit the limits (XLA would abort on an element count
        past int64). Under bucketing the bound of a padded size is checked; past the budget the
        function compiles for exact shapes, where the logical sizes are checked."""
        if isinstance(s, si.TupleStructInfo):
            for f in s.fields:
                self._check_result_size(f, frame, span)
            return
        if isinstance(s, si.TensorStructInfo):
            check_rank(s.ndim, "result", span)
        if not isinstance(s, si.TensorStructInfo) or s.shape is None:
            return                      # (an unknown dtype is checked at one byte per element)
        dims = []
        exact = True
        if isinstance(s.shape, rx.ShapeExpr):
            for v in s.shape.values:
                d = _static_bound(v, frame.sym)
                if d is None:
                    return
                dims.append(d[0])
                exact = exact and d[1]
        else:
            shape = frame.env.get(s.shape)              # a shape variable
            if not isinstance(shape, ShapeV):
                return
            for d in shape:
                if d.is_static:
                    dims.append(int(d.val))
                elif d.phys is not None:
                    dims.append(int(d.phys))
                    exact = False
                else:
                    return
        if exact:
            check_alloc(dims, s.dtype, self.exe.limits, "result", span)
            return
        try:
            check_alloc(dims, s.dtype, self.exe.limits, "result", span)
        except LimitExceededError:
            raise NeedsExact("a padded result would exceed the limits") from None

    def inferred(self, call: rx.Call) -> Any:
        """The operator's own struct info for ``call`` (an annotation on the binding may replace the
        call's struct info with a less precise or possibly wrong one, checked at run time:
        EVAL.CALL.3); falls back to the call's struct info. Inferred once per call node and
        executable."""
        cache = self.exe._inferred
        hit = cache.get(id(call))
        if hit is not None and hit[0] is call:
            return hit[1]
        key = inference_key(call)
        by_key = self.exe._inferred_by_key
        s = by_key.get(key, _MISS) if key is not None else _MISS
        if s is _MISS:
            s = operator_struct_info(call, self.mod)
            if key is not None:
                if len(by_key) > 100000:
                    by_key.clear()
                by_key[key] = s
        if s is None:
            s = call.struct_info
        cache[id(call)] = (call, s)
        return s

    def _wrap_result(self, r: Any, s: Any, frame: Frame, padded_in: bool) -> Any:
        if isinstance(r, (TVal, PrimV, ShapeV, str, rv.DTypeValue, ClosureV, PackedV, PrimFuncV)) or r is None:
            return r
        if isinstance(r, tuple):
            fields = s.fields if isinstance(s, si.TupleStructInfo) and len(s.fields) == len(r) else [None] * len(r)
            return tuple(self._wrap_result(x, f, frame, padded_in) for x, f in zip(r, fields))
        if isinstance(r, (jax.Array, np.ndarray)) or hasattr(r, "shape"):
            dims = self.sinfo_dims(s, frame) if s is not None else None
            if dims is None or len(dims) != len(r.shape):
                if padded_in and self.traced:
                    raise NeedsExact("the padding of a result cannot be derived from its struct info")
                return TVal(jnp.asarray(r), None, self.level)
            if all(d.is_static for d in dims):
                return TVal(jnp.asarray(r), None, self.level)
            return self.tensor_from(jnp.asarray(r), dims)
        return r


# ---------------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------------


_MISS = object()

def _value_sinfo(v: TVal) -> si.TensorStructInfo:
    """The struct info of a tensor value: its static shape, or its rank where a size is padded."""
    dt = _dt.from_numpy(np.dtype(v.data.dtype))
    dims = v.dims()
    if all(d.is_static for d in dims):
        return si.TensorStructInfo(rx.ShapeExpr(tuple(P.IntImm(int(d.val), "int64") for d in dims)), dt)
    return si.TensorStructInfo(None, dt, len(dims))


def _static_bound(e: Any, sym: Dict) -> Optional[Tuple[int, bool]]:
    """``(value, True)`` of a size expression whose variables are static, ``(bound, False)`` from the
    buckets of padded ones, None when unknown."""
    if isinstance(e, P.IntImm):
        return int(e.value), True
    fv = prim_vars_in(e)
    vals = {}
    exact = True
    for v in fv:
        x = sym.get(v)
        if x is None or is_symbolic_dim(x.val) or is_symbolic_dim(x.phys):
            return None  # unknown, or a jax.export dimension expression (no integer bound while tracing)
        if x.is_static:
            vals[v] = int(x.val)
        elif x.phys is not None:
            vals[v] = int(x.phys)
            exact = False
        else:
            return None
    if not exact and not is_monotone(e):
        return None
    try:
        r = eval_prim(e, vals)
    except RelaxError:
        return None
    return (int(r), exact) if isinstance(r, (int, np.integer)) else None


def _padded(v: Any) -> bool:
    if isinstance(v, TVal):
        return v.valid is not None
    if isinstance(v, ShapeV):
        return not v.is_static
    if isinstance(v, tuple):
        return any(_padded(x) for x in v)
    return False


def _aligned(args) -> bool:
    """Whether the padded operands of an elementwise operator line up physically: on every axis a
    padded size meets only sizes of the same bucket or a static 1 (anything else -- a static size
    other than its bucket, another bucket -- is decided on exact shapes)."""
    cols = []
    for a in args:
        if isinstance(a, TVal):
            cols.append(a.dims())
    if not any(not d.is_static for c in cols for d in c):
        return True
    nd = max(len(c) for c in cols)
    cols = [(None,) * (nd - len(c)) + tuple(c) for c in cols]
    for ax in range(nd):
        col = [c[ax] for c in cols if c[ax] is not None]
        padded = {d.phys for d in col if not d.is_static}
        if not padded:
            continue
        statics = {int(d.val) for d in col if d.is_static} - {1}
        if len(padded) > 1 or any(k not in padded for k in statics):
            return False
    return True


def _broadcast_dims(args, shape: Tuple[int, ...]) -> Tuple[SymInt, ...]:
    """Logical extents of an elementwise result: per axis, those of an operand spanning it."""
    nd = len(shape)
    out = []
    cols = []
    for a in args:
        if isinstance(a, TVal):
            d = a.dims()
        elif isinstance(a, PrimV):
            d = (SymInt.static(1),)
        else:
            continue
        cols.append((None,) * (nd - len(d)) + tuple(d))
    for ax in range(nd):
        pick = None
        for col in cols:
            d = col[ax]
            if d is None:
                continue
            ph = d.phys if not d.is_static else dim_value(d.val)
            if ph != shape[ax]:
                continue
            if pick is None or (pick.is_static and not d.is_static):
                pick = d
        out.append(pick if pick is not None else SymInt.static(shape[ax]))
    return tuple(out)


#: operators whose host-mode lowering runs code of its own -- a PrimFunc's kernel (compiled through
#: :func:`relax_jax.guard.guarded_compile`), a packed or builtin function, a closure (its operators are
#: guarded one by one) -- rather than one computation on its arguments
_HOST_GUARD_EXEMPT = frozenset({
    "relax.call_tir", "relax.call_tir_with_grad", "relax.call_tir_inplace", "relax.vm.call_tir_dyn",
    "relax.dist.call_tir_local_view", "relax.call_dps_packed", "relax.call_pure_packed",
    "relax.call_inplace_packed", "relax.call_builtin_with_ctx", "relax.call_py_func", "relax.invoke_closure",
    "relax.invoke_pure_closure", "relax.make_closure",
})


#: operator families whose lowerings share state beyond their arguments (storages and their views,
#: device meshes, builtins): never traced apart from their run
_HOST_GUARD_EXEMPT_PREFIXES = ("relax.memory.", "relax.vm.", "relax.builtin.", "relax.dist.")


def _plain_arg(v: Any) -> bool:
    """Whether ``v`` is a value a lowering can be traced on apart from its run: a plain tensor (no
    storage, no view of another), a prim value, a shape, a string, or a tuple of them."""
    if isinstance(v, TVal):
        return type(v) is TVal and v.view is None
    if isinstance(v, tuple) and not isinstance(v, ShapeV):
        return all(_plain_arg(x) for x in v)
    return v is None or isinstance(v, (PrimV, ShapeV, str, rv.DTypeValue))


def _host_guarded(name: str, low) -> bool:
    """Whether host mode checks the arrays of the lowering ``low`` of operator ``name``
    (:meth:`Walker._guard_host_op`): not for host-only lowerings (they need values), nor elementwise
    ones (every array they make has the result's shape, checked before), nor :data:`_HOST_GUARD_EXEMPT`."""
    return not (getattr(low, "host_only", False) or getattr(low, "padding", "none") == "elementwise"
                or name in _HOST_GUARD_EXEMPT or name.startswith(_HOST_GUARD_EXEMPT_PREFIXES))


def _collect_tvals(v: Any, out: List[TVal]) -> None:
    if isinstance(v, TVal):
        out.append(v)
    elif isinstance(v, tuple) and not isinstance(v, ShapeV):
        for x in v:
            _collect_tvals(x, out)


def _with_data(v: Any, arrays) -> Any:
    """``v`` with the data of its tensors taken from ``arrays`` in :func:`_collect_tvals`'s order."""
    if isinstance(v, TVal):
        return TVal(next(arrays), v.valid, v.level)
    if isinstance(v, tuple) and not isinstance(v, ShapeV):
        return tuple(_with_data(x, arrays) for x in v)
    return v


def _static_signature(args: Sequence[Any]) -> Tuple[Any, ...]:
    """What besides the tensors' shapes and dtypes a lowering's arrays may depend on: prim values
    and shapes."""
    out: List[Any] = []
    for a in args:
        if isinstance(a, PrimV):
            out.append((a.dtype, repr(np.asarray(a.val).tolist()) if is_static(a.val) else None))
        elif isinstance(a, ShapeV):
            out.append(tuple(repr(d) for d in a))
        elif isinstance(a, tuple):
            out.append(_static_signature(a))
        elif not isinstance(a, TVal):
            out.append(type(a).__name__)
    return tuple(out)


def _lowering_arg(v: Any) -> Any:
    if isinstance(v, TVal):
        return v.data
    if isinstance(v, tuple) and not isinstance(v, ShapeV):
        return tuple(_lowering_arg(x) for x in v)
    return v


def _condition(v: Any) -> Any:
    """EVAL.IF.2 (:func:`relax_ref.interp.builtins.check_condition`): the truth value, a static bool
    or a traced bool scalar."""
    if isinstance(v, PrimV):
        check_condition("prim", v.dtype, 0, describe(v))
        return bool(v.val) if is_static(v.val) else (v.val != 0)
    if isinstance(v, TVal):
        check_condition("tensor", _dt.from_numpy(np.dtype(v.data.dtype)), v.ndim, describe(v))
        d = v.data
        if isinstance(d, jax.core.Tracer):
            return d != 0
        return bool(np.asarray(d))
    check_condition("other", "", 0, describe(v))


__all__ = ["Walker", "Frame", "flatten", "unflatten", "MAX_INLINE_DEPTH"]  # flatten/unflatten: .pytree
