"""The evaluation rules of Relax expressions, written once for every evaluator (spec chapters EVAL and
CALL): the reference interpreter (:class:`relax_ref.interp.relax.Interpreter`) and the JAX executor's
walker (``relax_jax.walker.Walker``) are both :class:`ExprEvaluator` s.

What is decided here: environments (EVAL.ENV.1), variables and globals (EVAL.VAR.1, EVAL.GLOBAL.1),
strings, data types and externs, tuples and projections (EVAL.TUPLE.1, EVAL.TGI.1), function literals
(EVAL.FUNC.1), ``If`` (EVAL.IF.1-2), ``SeqExpr`` scoping of symbolic variables (EVAL.SEQ.1), bindings
and ``MatchCast`` (EVAL.BIND.1, EVAL.MATCHCAST.1-2), the call-result check (EVAL.CALL.3) and calling a
closure (CALL.FUNC.1-3: arity, parameter checks, body, return check).

What each evaluator decides -- its *value semantics*, kept separate so that one evaluator can check
the other: the representation of values (:meth:`make_closure`, :meth:`make_prim_func`,
:meth:`lookup_packed`, :meth:`is_tuple`, :meth:`describe`), constants, shapes and prim values
(:meth:`_constant`, :meth:`_shape_expr`, :meth:`_prim_value`), the truth of a condition
(:meth:`condition`), struct-info checks (:meth:`check_values`), operator calls (:meth:`call_op`) and
calls of function values (:meth:`call_value`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import ChainMap
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..errors import (
    ArityMismatchError, RelaxError, RelaxRuntimeError, TypeMismatchError, UnsupportedError, no_function,
)
from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir import tir
from ..ir.module import IRModule
from ..limits import CallDepth
from ..values import DTypeValue


class Frame:
    """The state of one function invocation: Relax environment (Var -> value, by identity), symbolic
    environment (PrimVar -> value) and the function's name."""

    __slots__ = ("env", "sym", "function")

    def __init__(self, env, sym, function: str) -> None:
        self.env = env
        self.sym = sym
        self.function = function


#: expression kind -> the name of the method evaluating it
_HANDLER_NAMES = {
    rx.Var: "_var", rx.DataflowVar: "_var", rx.GlobalVar: "_global", rx.Constant: "_constant",
    rx.ShapeExpr: "_shape_expr", rx.PrimValue: "_prim_value", rx.StringImm: "_string",
    rx.DataTypeImm: "_dtype", rx.ExternFunc: "_extern", rx.Op: "_op", rx.Tuple: "_tuple",
    rx.TupleGetItem: "_tuple_get_item", rx.Function: "_function", rx.If: "_if", rx.SeqExpr: "_seq",
    rx.Call: "_call",
}


def point_at_parameter(err: RelaxError, func: rx.Function) -> RelaxError:
    """ERR.1: an error about the parameter ``err.binding`` of ``func`` raised with the span of the
    whole function gets the parameter's own span (its name and annotation)."""
    if err.span is None or err.span == func.span:
        for p in func.params:
            if p.name_hint == err.binding and p.span is not None:
                err.span = p.span
                break
    return err


class ExprEvaluator(ABC):
    """Evaluates the Relax functions of ``self.mod`` (see the module docstring for the division of
    work). A subclass sets ``mod`` and ``_globals`` (the cache of global values)."""

    mod: IRModule
    _globals: Dict[str, Any]
    _handlers: Dict[type, Any] = {}

    def __init_subclass__(cls, **kw) -> None:
        super().__init_subclass__(**kw)
        cls._handlers = {t: getattr(cls, name) for t, name in _HANDLER_NAMES.items()}

    # -- value semantics (each evaluator) ------------------------------------------------------------

    @abstractmethod
    def make_closure(self, func: rx.Function, env: Any, name: str, global_name: Optional[str] = None) -> Any:
        """The value of a function literal or of a global Relax function (``global_name``)."""
        raise NotImplementedError

    @abstractmethod
    def make_prim_func(self, name: str, func: tir.PrimFunc) -> Any:
        """The value of a global bound to a PrimFunc (VAL.PRIMFUNC.1)."""
        raise NotImplementedError

    @abstractmethod
    def lookup_packed(self, name: str, span=None) -> Any:
        """The packed function ``name`` (CALL.PACKED.1)."""
        raise NotImplementedError

    @abstractmethod
    def is_tuple(self, v: Any) -> bool:
        """Whether ``v`` is a tuple value (not a shape)."""
        raise NotImplementedError

    @abstractmethod
    def describe(self, v: Any) -> str:
        raise NotImplementedError

    @abstractmethod
    def condition(self, v: Any) -> Any:
        """EVAL.IF.2: the truth of an ``If`` condition (a bool, or the evaluator's run-time value)."""
        raise NotImplementedError

    @abstractmethod
    def check_values(self, pairs: Sequence[Tuple[Any, Any, str]], frame: Frame, *, site: str, bind: bool,
                     span) -> None:
        """EVAL.CHECK.1-4 over ``(value, struct info, binding)`` pairs; ``bind`` binds symbolic
        variables in ``frame.sym``."""
        raise NotImplementedError

    @abstractmethod
    def check_bounds(self, func: rx.Function, frame: Frame, span) -> None:
        """CALL.FUNC.7: the declared bounds (``tir_var_upper_bound``/``tir_var_lower_bound``) of the
        symbolic variables the parameter check bound in ``frame.sym``."""
        raise NotImplementedError

    @abstractmethod
    def call_op(self, e: rx.Call, frame: Frame) -> Any:
        """An operator call (CALL.OP.1)."""
        raise NotImplementedError

    @abstractmethod
    def call_value(self, fn: Any, args: List[Any], call: Optional[rx.Call]) -> Any:
        """Call a function value (closure, PrimFunc, packed function)."""
        raise NotImplementedError

    @abstractmethod
    def _constant(self, e: rx.Constant, frame: Frame) -> Any:
        raise NotImplementedError

    @abstractmethod
    def _shape_expr(self, e: rx.ShapeExpr, frame: Frame) -> Any:
        raise NotImplementedError

    @abstractmethod
    def _prim_value(self, e: rx.PrimValue, frame: Frame) -> Any:
        raise NotImplementedError

    # -- hooks with a default ------------------------------------------------------------------------

    def closure_args(self, cl: Any, args: List[Any]) -> List[Any]:
        """The arguments a closure's function receives (after any captured ones are appended)."""
        return list(args)

    def enter_function(self, cl: Any, args: List[Any], call: Optional[rx.Call]) -> Any:
        """Called before a closure's body runs; a value other than NotImplemented is the call's result."""
        return NotImplemented

    def run_body(self, func: rx.Function, frame: Frame) -> Any:
        return self._seq(func.body, frame)

    def branch(self, taken: Any, e: rx.If, frame: Frame) -> Any:
        """Evaluate the branch of ``e`` that ``taken`` (from :meth:`condition`) selects."""
        return self._seq(e.true_branch if taken else e.false_branch, frame)

    # -- functions -----------------------------------------------------------------------------------

    def call_closure(self, cl: Any, args: List[Any], call: Optional[rx.Call]) -> Any:
        """CALL.FUNC.1-3: the arity, the parameters checked together (binding symbolic variables in a
        fresh symbolic environment: closures never capture them, EVAL.ENV.1), their declared bounds
        (CALL.FUNC.7), the body in the closure's environment, the return check."""
        func: rx.Function = cl.func
        name = cl.name
        span = call.span if call is not None else func.span
        args = self.closure_args(cl, args)
        if len(args) != len(func.params):
            raise ArityMismatchError(
                f"function '{name}' takes {len(func.params)} arguments, got {len(args)}", span, site="param",
                expected=str(len(func.params)), actual=str(len(args)), function=name)
        depth = self.call_depth()
        depth.enter(name, span)                 # RUNTIME.LIMIT.7
        try:
            return self._call_entered(cl, args, call, span)
        finally:
            depth.leave()

    def call_depth(self) -> CallDepth:
        """The active calls of this evaluation (RUNTIME.LIMIT.7), counted against ``max_depth``."""
        depth = self.__dict__.get("_call_depth")
        if depth is None:
            depth = self._call_depth = CallDepth(self.limits.max_depth)
        return depth

    def _call_entered(self, cl: Any, args: List[Any], call: Optional[rx.Call], span) -> Any:
        func: rx.Function = cl.func
        name = cl.name
        done = self.enter_function(cl, args, call)
        if done is not NotImplemented:
            return done
        env = ChainMap({}, cl.env) if cl.env else {}
        frame = Frame(env, {}, name)
        pairs = []
        for p, a in zip(func.params, args):
            pairs.append((a, p.struct_info, p.name_hint))
            env[p] = a
        try:
            self.check_values(pairs, frame, site="param", bind=True, span=span)
        except RelaxError as e:
            if call is None:  # a call from the host: point at the parameter, not at the whole def
                point_at_parameter(e, func)
            raise
        self.check_bounds(func, frame, span)
        return self.run_function(func, frame)

    def run_function(self, func: rx.Function, frame: Frame) -> Any:
        """The body of ``func`` in ``frame`` and the check of its result (EVAL.CHECK.4)."""
        result = self.run_body(func, frame)
        if func.ret_struct_info is not None:
            self.check_values([(result, func.ret_struct_info, "return")], frame, site="return", bind=False,
                              span=func.span)
        return result

    def global_value(self, name: str, span=None) -> Any:
        """EVAL.GLOBAL.1: the value of the global ``name`` (cached)."""
        v = self._globals.get(name)
        if v is not None:
            return v
        if name not in self.mod:
            raise RelaxRuntimeError(no_function(name, self.mod), span)
        fn = self.mod[name]
        if isinstance(fn, rx.Function):
            v = self.make_closure(fn, {}, name, name)
        elif isinstance(fn, tir.PrimFunc):
            v = self.make_prim_func(name, fn)
        elif isinstance(fn, rx.ExternFunc):
            v = self.lookup_packed(fn.global_symbol, span)
        else:
            raise UnsupportedError(f"global '{name}' is bound to {type(fn).__name__}", span)
        self._globals[name] = v
        return v

    # -- expressions ---------------------------------------------------------------------------------

    def eval(self, e: rx.Expr, frame: Frame) -> Any:
        h = self._handlers.get(type(e))
        if h is None:
            raise UnsupportedError(f"cannot evaluate expression {type(e).__name__}", e.span)
        return h(self, e, frame)

    def _var(self, e: rx.Var, frame: Frame) -> Any:
        try:
            return frame.env[e]
        except KeyError:
            raise RelaxRuntimeError(f"variable '{e.name_hint}' has no value", e.span,
                                    function=frame.function, binding=e.name_hint) from None

    def _global(self, e: rx.GlobalVar, frame: Frame) -> Any:
        return self.global_value(e.name_hint, e.span)

    def _string(self, e: rx.StringImm, frame: Frame) -> Any:
        return e.value

    def _dtype(self, e: rx.DataTypeImm, frame: Frame) -> Any:
        return DTypeValue(e.value)

    def _extern(self, e: rx.ExternFunc, frame: Frame) -> Any:
        try:
            return self.lookup_packed(e.global_symbol, e.span)
        except RelaxError as err:
            raise err.with_span(e.span)

    def _op(self, e: rx.Op, frame: Frame) -> Any:
        raise UnsupportedError(f"operator '{e.name}' is not a value; it can only be called", e.span)

    def _tuple(self, e: rx.Tuple, frame: Frame) -> Any:
        return tuple(self.eval(f, frame) for f in e.fields)

    def _tuple_get_item(self, e: rx.TupleGetItem, frame: Frame) -> Any:
        t = self.eval(e.tuple_value, frame)
        if not self.is_tuple(t):
            raise TypeMismatchError(f"cannot take field {e.index} of {self.describe(t)}: not a tuple", e.span,
                                    function=frame.function)
        if not 0 <= e.index < len(t):
            raise ArityMismatchError(f"tuple index {e.index} out of range for {self.describe(t)}", e.span,
                                     function=frame.function)
        return t[e.index]

    def _function(self, e: rx.Function, frame: Frame) -> Any:
        return self.make_closure(e, frame.env, e.global_symbol or "<closure>")

    def _if(self, e: rx.If, frame: Frame) -> Any:
        c = self.eval(e.cond, frame)
        try:
            taken = self.condition(c)
        except RelaxError as err:
            raise err.with_span(e.span).with_context(function=frame.function)
        return self.branch(taken, e, frame)

    def _seq(self, e: rx.SeqExpr, frame: Frame) -> Any:
        sym = frame.sym
        before = set(sym)
        for block in e.blocks:
            for b in block.bindings:
                self._binding(b, frame)
        result = self.eval(e.body, frame)
        for k in [k for k in sym if k not in before]:
            del sym[k]
        return result

    def _binding(self, b: rx.Binding, frame: Frame) -> None:
        if isinstance(b, rx.MatchCast):
            v = self.eval(b.value, frame)
            self.check_values([(v, b.struct_info, b.var.name_hint)], frame, site="match_cast", bind=True,
                              span=b.span or b.value.span)
            frame.env[b.var] = v
            return
        value = b.value
        if isinstance(value, rx.Function):
            frame.env[b.var] = self.make_closure(value, frame.env, b.var.name_hint)
            return
        try:
            v = self.eval(value, frame)
            if isinstance(value, rx.Call) and value.struct_info is not None:
                # (EVAL.CALL.3) every call result is checked against the call's struct info
                self.check_values([(v, value.struct_info, b.var.name_hint)], frame, site="call_result",
                                  bind=False, span=b.span or value.span)
            frame.env[b.var] = v
        except RelaxError as err:
            raise err.with_span(b.span or value.span).with_context(function=frame.function,
                                                                    binding=b.var.name_hint)

    def _call(self, e: rx.Call, frame: Frame) -> Any:
        if isinstance(e.op, rx.Op):
            return self.call_op(e, frame)
        fn = self.eval(e.op, frame)
        args = [self.eval(a, frame) for a in e.args]
        return self.call_value(fn, args, e)


def result_hint(call: Optional[rx.Call]) -> Optional[si.StructInfo]:
    """The struct info a packed function's result is converted with: the call's ``sinfo_args``
    (several become a tuple), else the call's struct info."""
    if call is None:
        return None
    if call.sinfo_args:
        if len(call.sinfo_args) == 1:
            return call.sinfo_args[0]
        return si.TupleStructInfo(tuple(call.sinfo_args))
    return call.struct_info


__all__ = ["ExprEvaluator", "Frame", "result_hint"]
