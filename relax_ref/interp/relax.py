"""The Relax evaluator: :func:`evaluate` and :class:`Interpreter` (spec chapters EVAL and CALL).

Environments (EVAL.ENV.1). Relax variables are keyed by object identity (names may repeat); each
function invocation gets a fresh environment, layered over the captured environment for closures.
Symbolic variables (PrimVar -> int) live in a per-invocation symbolic environment that starts empty
(closures never capture symbolic variables), extended by parameter checks and ``MatchCast``; symbolic
variables bound inside a ``SeqExpr`` are dropped when it ends (EVAL.SEQ.1). Well-formedness guarantees
that no Relax variable is used outside its scope, so the evaluator does not otherwise delete bindings.

Constructs:

* (EVAL.CONST.1) a ``Constant`` evaluates to a fresh copy of its tensor (tensors are mutable);
* (EVAL.VAR.1) a variable evaluates to its value (aliasing, never copying); (EVAL.GLOBAL.1) a
  ``GlobalVar`` to a closure with an empty environment (Relax function), a
  :class:`~relax_ref.values.PrimFuncRef` (PrimFunc) or a packed function (``ExternFunc``);
* (EVAL.SHAPE.1) ``ShapeExpr`` evaluates each dimension in the symbolic environment (a negative
  result raises ShapeMismatchError); (EVAL.PRIM.1) ``PrimValue`` gives a prim value of the
  expression's dtype; (EVAL.STRING.1, EVAL.DTYPE.1) strings and data types evaluate to themselves;
* (EVAL.TUPLE.1) tuple fields are evaluated left to right; (EVAL.TGI.1) ``TupleGetItem`` projects;
* (EVAL.BIND.1) bindings run in order, in binding blocks and dataflow blocks alike
  (EVAL.DATAFLOW.1); (EVAL.MATCHCAST.1-2) ``MatchCast`` checks the value (binding new symbolic
  variables, EVAL.CHECK.*) and binds the variable to the *same* value;
* (EVAL.SEQ.1) ``SeqExpr`` runs its blocks, then evaluates its body;
* (EVAL.IF.1) ``If`` evaluates the condition, then exactly one branch; (EVAL.IF.2) the condition is a
  bool or integer prim value or a rank-0 bool/integer tensor, nonzero meaning true (see
  :func:`~relax_ref.interp.builtins.condition_value`; TVM reads element 0 of a tensor of any rank and
  this evaluator raises instead);
* (EVAL.FUNC.1) a ``Function`` literal evaluates to a closure capturing the current Relax environment
  by reference (so a binding ``f = R.function(...)`` can call ``f`` recursively);
* (CALL.FUNC.1-3) calling a closure: the argument count must match (ArityMismatchError), every
  parameter is checked against its struct info -- bare symbolic dimensions of *all* parameters bound
  first, compound ones (``n * 2``) compared afterwards (EVAL.CHECK.2) -- then the body runs and the
  result is checked against ``ret_struct_info`` (no new bindings, EVAL.CHECK.4). Every parameter is
  checked, including weights past ``num_input`` (TVM skips statically shaped weights);
* (CALL.PRIMFUNC.1) calling a PrimFunc reference runs it in place on the arguments; the result is unit
  (the value of ``T.ret`` for a PrimFunc with a return type, TIR.FUNC.5);
* (CALL.PACKED.1, CALL.PACKED.3, CALL.PACKED.7) calling a packed function passes the argument values (see :mod:`.builtins`);
* (CALL.OP.1) an operator call evaluates its arguments left to right, runs the registry entry's
  ``check`` and then the interpreter's implementation (:func:`~relax_ref.interp.op_table.apply`); an
  operator without one raises UnsupportedError when a call to it is evaluated;
* (EVAL.CALL.3) the result of every call is checked against the call's struct info (check mode,
  site ``"call_result"``); for inferred struct info this catches operator implementations that
  disagree with their inference, for annotated calls wrong annotations (DIV.19).

Host boundary (VAL.HOST.1, CALL.HOST.1): :meth:`Interpreter.__call__` converts each host argument
using the entry's parameter struct info (a tensor parameter also accepts anything ``numpy.asarray``
converts; an ``R.Prim`` parameter a Python scalar or 0-d array; an ``R.Shape`` parameter a tuple of
ints; an ``R.Tuple`` a tuple or list) and returns the result with
:func:`~relax_ref.values.to_public`.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Dict, List, Mapping, Optional

import numpy as np

from ..arith.evaluate import eval_prim
from ..errors import RelaxError, RelaxRuntimeError, ShapeMismatchError, TypeMismatchError, no_function
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir import tir
from ..ir.module import IRModule
from ..limits import (
    Limits, allocation_error, check_alloc, check_rank, depth_error, is_allocation_failure, python_recursion_limit,
    resolve as resolve_limits,
)
from ..ops.core_calls import allocatable, unknown_output_shape
from ..ops.args import ValueArgs
from ..static.inference import actual_struct_info, check_loose_call, underspecified_tensor_args
from ..static.well_formed import check_well_formed
from ..values import Closure, PackedFunc, PrimFuncRef, PrimScalar, ShapeValue, describe, split_entry, to_public
from . import op_table
from .bounds import check_bounds
from .builtins import bound_builtins, coerce_result, condition_value, from_host, lookup_packed, wrap_host_function
from .checks import Matcher
from .evaluator import ExprEvaluator, Frame, result_hint
from .tir import compiled as _compiled_prim_func


class EvalContext:
    """What an operator's ``reference(args, attrs, call, ctx)`` may use (CALL.OP.1).

    Attributes: ``interp`` (the :class:`Interpreter`), ``call`` (the Call node), ``function`` (the
    name of the function being evaluated), ``sym`` (the symbolic environment, PrimVar -> int) and
    ``env`` (the Relax environment)."""

    __slots__ = ("interp", "frame", "call")

    def __init__(self, interp: "Interpreter", frame: Frame, call: rx.Call):
        self.interp = interp
        self.frame = frame
        self.call = call

    @property
    def function(self) -> str:
        return self.frame.function

    @property
    def sym(self) -> Mapping:
        return self.frame.sym

    @property
    def env(self) -> Mapping:
        return self.frame.env

    def eval_prim(self, e) -> Any:
        """The Python value of a scalar expression in the current symbolic environment."""
        return self.interp._prim(e, self.frame)

    def eval_shape(self, values) -> ShapeValue:
        return self.interp._shape(values, self.frame, self.call.span)

    def alloc(self, sinfo: si.StructInfo) -> np.ndarray:
        """A fresh zero-filled tensor for a ``TensorStructInfo`` with known shape and dtype."""
        return self.interp._alloc(sinfo, self.frame, self.call.span)

    def call_function(self, fn: Any, *args: Any) -> Any:
        """Call a function value (closure, packed function or PrimFunc reference)."""
        return self.interp.call_value(fn, list(args), self.call)

    def call_packed(self, fn: Any, args: List[Any]) -> Any:
        """Call a function value, using the call's ``sinfo_args`` as the result hint."""
        return self.interp.call_value(fn, args, self.call)

    def run_prim_func(self, ref: PrimFuncRef, args: List[Any], readonly=()) -> None:
        """Run a PrimFunc in place; the tensors in ``readonly`` may not be stored to (CALL.TIR.6)."""
        self.interp._run_prim_func(ref, args, self.call.span, readonly)

    def lookup_packed(self, name: str) -> PackedFunc:
        return self.interp.lookup_packed(name)

    def print(self, text: str) -> None:
        self.interp._print(text)


def _base_depth(a: np.ndarray) -> int:
    """How many arrays ``a`` views through (0 for an array that owns its data or views a buffer)."""
    n = 0
    while isinstance(a.base, np.ndarray):
        a, n = a.base, n + 1
    return n


class Interpreter(ExprEvaluator):
    """Reference interpreter for one module.

    ``Interpreter(mod, vectorize=True, stdout=None)``: ``vectorize`` selects the TensorIR fast path
    (TIR.VEC.1); ``stdout`` is the stream ``R.print`` writes to (default ``sys.stdout``).
    ``interp(entry, *args)`` / ``interp.run(entry, *args)`` evaluate a function of the module on host
    values; ``interp.register_func(name, fn)`` adds a packed function visible to this interpreter only.
    ``limits`` / ``max_bytes`` / ``max_steps`` / ``max_while_steps`` / ``max_depth``: the budgets of
    RUNTIME.LIMIT.3, RUNTIME.LIMIT.4 and RUNTIME.LIMIT.7
    (:mod:`relax_ref.limits`; default :data:`~relax_ref.limits.DEFAULT_LIMITS`).
    """

    def __init__(self, mod: IRModule, *, vectorize: bool = True, stdout=None, limits: Optional[Limits] = None,
                 max_bytes: Optional[int] = None, max_steps: Optional[int] = None,
                 max_while_steps: Optional[int] = None, max_depth: Optional[int] = None) -> None:
        if not isinstance(mod, IRModule):
            raise TypeMismatchError(f"Interpreter expects an IRModule, got {type(mod).__name__}")
        check_well_formed(mod)      # (EVAL.PROG.2, TEXT.MOD.3) once per module object
        self.mod = mod
        self.vectorize = vectorize
        self.stdout = stdout
        self.limits = resolve_limits(limits, max_bytes=max_bytes, max_steps=max_steps,
                                     max_while_steps=max_while_steps, max_depth=max_depth)
        self._local: Dict[str, PackedFunc] = {}
        self._bound = bound_builtins(lambda fn, *a: self.call_value(fn, list(a), None), self._print)
        self._globals: Dict[str, Any] = {}

    # -- public API --------------------------------------------------------------------------------

    def register_func(self, name: str, fn: Optional[Callable[..., Any]] = None):
        """Register a host function as packed function ``name`` for this interpreter; decorator-friendly."""
        if fn is None:
            return lambda f: self.register_func(name, f)
        self._local[name] = wrap_host_function(name, fn)
        return fn

    def lookup_packed(self, name: str, span=None) -> PackedFunc:
        """The packed function ``name`` (CALL.PACKED.1): this interpreter's, the global registry's,
        then the built-ins (:func:`~relax_ref.interp.builtins.lookup_packed`)."""
        return lookup_packed(name, self._local, self._bound, span)

    def __call__(self, *args: Any, entry: Optional[str] = None) -> Any:
        return self.run(*args, entry=entry)

    def run(self, *args: Any, entry: Optional[str] = None) -> Any:
        """Evaluate function ``entry`` on host values and return the host value of the result:
        ``run("main", x, y)`` or ``run(x, y, entry="main")`` (:func:`relax_ref.values.split_entry`)."""
        entry, args = split_entry(args, entry)
        if entry not in self.mod:
            raise RelaxRuntimeError(no_function(entry, self.mod))
        fn = self.mod[entry]
        old = sys.getrecursionlimit()
        need = python_recursion_limit(self.limits.max_depth)
        if old < need:
            sys.setrecursionlimit(need)         # RUNTIME.LIMIT.7: max_depth calls fit on Python's stack
        try:
            if isinstance(fn, rx.Function):
                host = [_host_arg(a, p, entry) for a, p in zip(args, fn.params)] + \
                    [from_host(a) for a in args[len(fn.params):]]
                value = self.call_closure(Closure(fn, {}, {}, entry), host, None)
            elif isinstance(fn, tir.PrimFunc):
                value = self.call_value(PrimFuncRef(entry, fn), [from_host(a) for a in args], None)
            else:
                value = self.call_value(self.global_value(entry), [from_host(a) for a in args], None)
        except RecursionError:
            raise depth_error(self.limits.max_depth) from None
        except (MemoryError, ValueError) as err:       # numpy could not allocate (RUNTIME.LIMIT.3)
            if not is_allocation_failure(err):
                raise
            raise allocation_error(err) from None
        finally:
            sys.setrecursionlimit(old)
        return to_public(value)

    # -- services for operators ------------------------------------------------------------------------

    def _print(self, text: str) -> None:
        out = self.stdout if self.stdout is not None else sys.stdout
        out.write(text + "\n")

    def _prim(self, e, frame: Frame) -> Any:
        try:
            v = eval_prim(e, frame.sym)
        except RelaxError as err:
            raise err.with_context(function=frame.function)
        return v.item() if isinstance(v, np.generic) else v

    def _shape(self, values, frame: Frame, span) -> ShapeValue:
        dims = []
        for e in values:
            d = int(self._prim(e, frame))
            if d < 0:
                raise ShapeMismatchError(f"shape dimension {e} evaluates to the negative value {d}", span,
                                         function=frame.function)
            dims.append(d)
        return ShapeValue(dims)

    def _alloc(self, s: si.StructInfo, frame: Frame, span) -> np.ndarray:
        s = allocatable(s, span)
        if isinstance(s.shape, rx.ShapeExpr):
            shape = self._shape(s.shape.values, frame, span)
        elif s.shape is not None and isinstance(frame.env.get(s.shape), ShapeValue):
            shape = frame.env[s.shape]
        else:
            raise unknown_output_shape(span)
        check_alloc(shape, s.dtype, self.limits, "output tensor", span)
        return np.zeros(tuple(shape), dtype=_dt.to_numpy(s.dtype))

    def _run_prim_func(self, ref: PrimFuncRef, args: List[Any], span, readonly=()) -> Any:
        locked = []
        try:
            for t in readonly:
                if isinstance(t, np.ndarray) and t.flags.writeable and all(t is not x for x in locked):
                    t.flags.writeable = False
                    locked.append(t)
            return _compiled_prim_func(ref.func, ref.name)(args, self.vectorize, self.lookup_packed, self.limits)
        except RelaxError as e:
            raise e.with_span(span).with_context(function=ref.name)
        finally:
            # bases first: numpy makes a view writeable again only once the array it views is
            for t in sorted(locked, key=_base_depth):
                t.flags.writeable = True

    # -- value semantics (ExprEvaluator) -------------------------------------------------------------------

    def call_value(self, fn: Any, args: List[Any], call: Optional[rx.Call]) -> Any:
        if isinstance(fn, Closure):
            return self.call_closure(fn, args, call)
        if isinstance(fn, PrimFuncRef):
            r = self._run_prim_func(fn, args, call.span if call is not None else None)
            rt = fn.func.ret_type
            return () if rt in (None, "void", "") else PrimScalar(r, rt)
        if isinstance(fn, PackedFunc):
            try:
                r = fn(*args)
            except RelaxError as e:
                raise e.with_span(call.span if call is not None else None)
            return coerce_result(r, result_hint(call))
        raise TypeMismatchError(f"cannot call {describe(fn)}: it is not a function",
                                call.span if call is not None else None)

    def check_values(self, pairs, frame: Frame, *, site: str, bind: bool, span) -> None:
        m = Matcher(frame.sym, site=site, function=frame.function, bind=bind, env=frame.env, span=span)
        for p in pairs:
            m.match(*p)
        m.finish()

    def check_bounds(self, func: rx.Function, frame: Frame, span) -> None:
        check_bounds(func, frame.sym, function=frame.function, span=span)

    def make_closure(self, func: rx.Function, env: Any, name: str, global_name: Optional[str] = None) -> Closure:
        return Closure(func, env, {}, name)

    def make_prim_func(self, name: str, func: tir.PrimFunc) -> PrimFuncRef:
        return PrimFuncRef(name, func)

    def is_tuple(self, v: Any) -> bool:
        return isinstance(v, tuple) and not isinstance(v, ShapeValue)

    def describe(self, v: Any) -> str:
        return describe(v)

    def condition(self, v: Any) -> bool:
        return condition_value(v)

    def _constant(self, e: rx.Constant, frame: Frame) -> Any:
        return np.array(e.data, copy=True)

    def _shape_expr(self, e: rx.ShapeExpr, frame: Frame) -> Any:
        return self._shape(e.values, frame, e.span)

    def _prim_value(self, e: rx.PrimValue, frame: Frame) -> Any:
        return PrimScalar(self._prim(e.value, frame), e.value.dtype)

    def call_op(self, e: rx.Call, frame: Frame) -> Any:
        opdef, impl = op_table.resolve(e)   # an unknown or unimplemented operator fails before its arguments
        args = [self.eval(a, frame) for a in e.args]
        try:
            loose = underspecified_tensor_args(e)
            if loose:
                check_loose_call(e, lambda: opdef.check is not None and opdef.check(ValueArgs(e, args, self.limits)),
                                 actual_struct_info(args, lambda a: _value_sinfo(a) if isinstance(a, np.ndarray) else None),
                                 self.mod)
            self._check_result_size(e.struct_info, frame, e.span)
            r = op_table.run(opdef, impl, e, args, EvalContext(self, frame, e))
        except RelaxError as err:
            raise err.with_span(e.span)
        except (MemoryError, ValueError) as err:
            if not is_allocation_failure(err):
                raise
            raise allocation_error(err, f"{e.op.name}: result", e.span) from None
        return _normalize_op_result(r, e.struct_info)

    def _check_result_size(self, s: Any, frame: Frame, span) -> None:
        """RUNTIME.LIMIT.1/3 before an operator runs: a result whose shape its struct info determines
        (symbolic sizes taken from the environment) must fit the limits."""
        if isinstance(s, si.TensorStructInfo):
            check_rank(s.ndim, "result", span)
            if s.shape is None:
                return                                  # (an unknown dtype: one byte per element)
            if isinstance(s.shape, rx.ShapeExpr):
                try:
                    dims = [self._prim(v, frame) for v in s.shape.values]
                except RelaxError:
                    return                              # a size bound only by the result itself
            else:
                dims = frame.env.get(s.shape)           # a shape variable
                if not isinstance(dims, ShapeValue):
                    return
            check_alloc(dims, s.dtype, self.limits, "result", span)
        elif isinstance(s, si.TupleStructInfo):
            for f in s.fields:
                self._check_result_size(f, frame, span)


def _value_sinfo(a: np.ndarray) -> si.TensorStructInfo:
    from ..ir import prim_expr as P

    return si.TensorStructInfo(rx.ShapeExpr(tuple(P.IntImm(int(d), "int64") for d in a.shape)),
                               _dt.from_numpy(a.dtype))


def _host_arg(a: Any, p: rx.Var, entry: str) -> Any:
    """Convert one host argument for parameter ``p`` (VAL.HOST.1); errors name the parameter."""
    try:
        return from_host(a, p.struct_info)
    except RelaxError as e:
        if getattr(e, "site", "") is None:
            e.site = "param"
        raise e.with_context(function=entry, binding=p.name_hint)


def _normalize_op_result(r: Any, s: Optional[si.StructInfo]) -> Any:
    """Operator results as values: numpy scalars become 0-d tensors (or prim values when the
    struct info says so), lists become tuples."""
    if isinstance(r, np.generic):
        if isinstance(s, si.PrimStructInfo):
            return PrimScalar(r.item(), s.dtype if s.dtype != "void" else _dt.from_numpy(r.dtype))
        return np.asarray(r)
    if isinstance(r, list):
        return tuple(r)
    return r


def evaluate(mod: IRModule, *args: Any, entry: Optional[str] = None, vectorize: bool = True,
             limits: Optional[Limits] = None) -> Any:
    """Evaluate ``entry`` of ``mod`` on host values (VAL.HOST.1) and return the host result:
    ``evaluate(mod, "main", x)`` or ``evaluate(mod, x, entry="main")``; ``limits``: RUNTIME.LIMIT.3-4."""
    return Interpreter(mod, vectorize=vectorize, limits=limits)(*args, entry=entry)


__all__ = ["Interpreter", "EvalContext", "Frame", "evaluate"]
