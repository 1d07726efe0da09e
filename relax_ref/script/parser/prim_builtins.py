"""Handlers for the ``T.*`` scalar vocabulary used in both Relax and TensorIR code (TEXT.TIR.5, TEXT.EXPR.8):
dtype constructors (``T.int64()``, ``T.int64(4)``, ``T.float32("inf")``), casts, min/max, selects,
integer divisions, ``T.abs``/``T.ceildiv``, limits, ``T.Let``, and Python's ``float("inf")``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir import prim_expr as P
from . import prim
from .calls import HANDLERS, REQUIRED, CallInfo, bind_params
from .values import TypeVarDecl, VarDecl

if TYPE_CHECKING:
    from .evaluator import Evaluator


def _dtype_ctor(dtype: str):
    def handler(ev: Evaluator, info: CallInfo):
        b = bind_params(ev, info, (("value", None),), varkw=True)
        extra = b["**"]
        for k in extra:
            if k not in ("is_size_var",):
                raise ev.error(info.kw_nodes.get(k, info.node), f"{info.path} got an unexpected keyword "
                                                                f"argument '{k}'")
        v = b["value"]
        span = ev.span(info.node)
        if v is None:
            return VarDecl(dtype)
        if isinstance(v, str):
            if not prim._dt.is_float(dtype):  # noqa: SLF001
                raise ev.error(info.node, f"{info.path} of a string is only allowed for floating-point types")
            return P.FloatImm(prim.parse_float_string(v, span), dtype)
        if prim.is_num(v):
            return prim.lit(v, dtype, span)
        if isinstance(v, P.PrimExpr):
            return prim.cast(dtype, v)
        raise ev.error(info.node, f"{info.path} expects a literal or a scalar expression, got {prim.describe(v)}")
    return handler


for _name, _dt in prim.DTYPE_CTORS.items():
    HANDLERS[f"T.{_name}"] = _dtype_ctor(_dt)


def _cast(ev: Evaluator, info: CallInfo, b: dict):
    """PRIM.CAST.3: the target of a cast is bool, an integer or a float dtype (a cast to ``void``,
    written ``""``, or to ``handle`` has no value to give)."""
    dtype = prim.check_dtype(b["dtype"], ev.span(info.node))
    if dtype in ("void", "handle"):
        raise ev.error(info.node, f"{info.path} to '{dtype}': a cast gives a bool, integer or float value")
    value = prim.as_prim(b["value"], ev.span(info.node), info.path, ev.int_dtype)
    if isinstance(value, P.FloatImm) and prim._dt.is_float(dtype) and dtype != value.dtype:  # noqa: SLF001
        # kept as written, as TVM's ``T.Cast`` does: the constant is rounded to its own dtype first
        # (PRIM.CAST.1), and the printed ``T.Cast(d, T.f(c))`` parses back to the same node (TEXT.RT.1)
        return P.Cast(dtype, value)
    return prim.cast(dtype, value)


def _cast_lower(ev: Evaluator, info: CallInfo):
    return _cast(ev, info, bind_params(ev, info, (("value", REQUIRED), ("dtype", REQUIRED))))


def _cast_upper(ev: Evaluator, info: CallInfo):
    return _cast(ev, info, bind_params(ev, info, (("dtype", REQUIRED), ("value", REQUIRED))))


HANDLERS["T.cast"] = _cast_lower
HANDLERS["T.Cast"] = _cast_upper


def _scalar_operands(ev: Evaluator, info: CallInfo):
    """The operands ``a``, ``b`` of a binary builtin, each a number or a scalar expression."""
    b = bind_params(ev, info, (("a", REQUIRED), ("b", REQUIRED)))
    a, c = b["a"], b["b"]
    for v, i in ((a, 0), (c, 1)):
        if not (prim.is_num(v) or isinstance(v, P.PrimExpr)):
            raise ev.error(info.node_of(i), f"{info.path} expects scalar operands, got {prim.describe(v)}")
    return a, c


def _binary(op: str):
    def handler(ev: Evaluator, info: CallInfo):
        a, c = _scalar_operands(ev, info)
        span = ev.span(info.node)
        if op in ("truncdiv", "truncmod", "floordiv", "floormod") and prim.is_num(a) and prim.is_num(c):
            if isinstance(a, float) or isinstance(c, float):
                raise ev.error(info.node, f"{info.path} needs integer operands")
        return prim.binary(op, a, c, span)
    return handler


for _p, _op in (("T.max", "max"), ("T.min", "min"), ("T.truncdiv", "truncdiv"), ("T.truncmod", "truncmod"),
                ("T.floordiv", "floordiv"), ("T.floormod", "floormod")):
    HANDLERS[_p] = _binary(_op)

#: TVM's node classes, spelled as constructors: they build the node as written, without folding
#: (the printer uses them where the operator spelling would fold, e.g. ``T.Add(x, 0)``)
_NODE_BUILDERS = {
    "T.Add": P.add, "T.Sub": P.sub, "T.Mul": P.mul, "T.Div": P.div, "T.Mod": P.truncmod,
    "T.FloorDiv": P.floordiv, "T.FloorMod": P.floormod, "T.Min": P.min_, "T.Max": P.max_,
    "T.EQ": P.eq, "T.NE": P.ne, "T.LT": P.lt, "T.LE": P.le, "T.GT": P.gt, "T.GE": P.ge,
    "T.And": P.logical_and, "T.Or": P.logical_or,
}


def _node(builder):
    def handler(ev: Evaluator, info: CallInfo):
        a, c = _scalar_operands(ev, info)
        span = ev.span(info.node)
        if info.path in ("T.And", "T.Or"):
            a, c = prim.lit(a, "bool", span) if prim.is_num(a) else a, prim.lit(c, "bool", span) if prim.is_num(c) \
                else c
        elif not isinstance(a, P.PrimExpr) and not isinstance(c, P.PrimExpr):
            a = prim.lit(a, span=span, int_dtype=ev.int_dtype)
        return builder(a, c)
    return handler


for _p, _b in _NODE_BUILDERS.items():
    HANDLERS[_p] = _node(_b)


def _select(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("condition", REQUIRED), ("true_value", REQUIRED), ("false_value", REQUIRED)))
    span = ev.span(info.node)
    c = prim.as_prim(b["condition"], span, "condition", ev.int_dtype)
    t, f = b["true_value"], b["false_value"]
    if not isinstance(t, P.PrimExpr) and not isinstance(f, P.PrimExpr):
        t = prim.as_prim(t, span, "value", ev.int_dtype)
    return P.select(c, t, f)


def _if_then_else(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("cond", REQUIRED), ("t", REQUIRED), ("f", REQUIRED), ("dtype", None)))
    span = ev.span(info.node)
    c = prim.as_prim(b["cond"], span, "condition", ev.int_dtype)
    t, f = b["t"], b["f"]
    if not isinstance(t, P.PrimExpr) and not isinstance(f, P.PrimExpr):
        t = prim.as_prim(t, span, "value", ev.int_dtype)
    t, f = P._promote(t, f)  # noqa: SLF001
    return P.PrimCall(t.dtype, "tir.if_then_else", (c, t, f))


HANDLERS["T.Select"] = _select
HANDLERS["T.if_then_else"] = _if_then_else


def _abs(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("x", REQUIRED),))
    return prim.abs_(b["x"], ev.span(info.node))


def _ceildiv(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("a", REQUIRED), ("b", REQUIRED)))
    return prim.ceildiv(b["a"], b["b"], ev.span(info.node))


HANDLERS["T.abs"] = _abs
HANDLERS["T.ceildiv"] = _ceildiv


def _limit(which: str):
    def handler(ev: Evaluator, info: CallInfo):
        b = bind_params(ev, info, (("dtype", REQUIRED),))
        span = ev.span(info.node)
        return prim.limit_value(which, prim.check_dtype(b["dtype"], span, allow_handle=False), span)
    return handler


for _w in ("max_value", "min_value", "infinity"):
    HANDLERS[f"T.{_w}"] = _limit(_w)


def _let_expr(ev: Evaluator, info: CallInfo):
    """``T.Let(body, where={v: value})``."""
    b = bind_params(ev, info, (("expr", REQUIRED), ("where", REQUIRED)))
    where = b["where"]
    span = ev.span(info.node)
    if not isinstance(where, dict) or len(where) != 1:
        raise ev.error(info.node, "T.Let needs where={var: value} with exactly one entry")
    (var, value), = where.items()
    if not isinstance(var, P.PrimVar):
        raise ev.error(info.node, "the key of T.Let's where= must be a scalar variable")
    return P.Let(var, prim.as_prim(value, span, "value", ev.int_dtype),
                 prim.as_prim(b["expr"], span, "value", ev.int_dtype))


HANDLERS["T.Let"] = _let_expr


def _not(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("a", REQUIRED),))
    a = prim.as_prim(b["a"], ev.span(info.node), "T.Not", ev.int_dtype)
    return P.Not(a)


HANDLERS["T.Not"] = _not


def _py_float(ev: Evaluator, info: CallInfo):
    """``float("inf")`` / ``float("-inf")`` / ``float("nan")`` / ``float(3)`` as a literal."""
    b = bind_params(ev, info, (("x", REQUIRED),))
    x = b["x"]
    if isinstance(x, str):
        return prim.parse_float_string(x, ev.span(info.node))
    if prim.is_num(x):
        return float(x)
    raise ev.error(info.node, f"float() of {prim.describe(x)} is not supported")


HANDLERS["float"] = _py_float


def _type_var(ev: Evaluator, info: CallInfo):
    """``n = TypeVar("n")``: tvm-0.27's module-level declaration of an int64 symbolic variable
    (TEXT.DIALECT.3). Constraints and bounds are not allowed (as in TVM)."""
    if ev.mode == "tir":
        raise ev.error(info.node, "TypeVar(...) declares a symbolic variable at the top level of the text or in "
                                  "a Relax function body")
    if info.kwargs or len(info.args) != 1 or not isinstance(info.args[0], str):
        raise ev.error(info.node, "a symbolic TypeVar is declared as n = TypeVar(\"n\"), without constraints "
                                  "or a bound")
    if not info.args[0].isidentifier():
        raise ev.error(info.node, f"TypeVar: {info.args[0]!r} is not a name")
    return TypeVarDecl("int64", info.args[0])


HANDLERS["TypeVar"] = _type_var

__all__ = []
