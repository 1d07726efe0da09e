"""Dataflow patterns: the pattern language of TVM's ``tvm.relax.dpl`` (PASS.DPL.PAT.*).

A pattern describes a Relax expression: :func:`is_op` ``("relax.add")(wildcard(), is_const())``
matches a call of ``relax.add`` whose second argument is a constant. Patterns are immutable and
compare by identity, so a pattern object used twice in a larger pattern must match the same
expression both times (PASS.DPL.MATCH.2). Combinators: ``p | q`` (either), ``p & q`` (both), ``~p``
(not ``p``), ``p(args...)`` (a call of what ``p`` matches), ``p.has_dtype(...)``,
``p.has_shape(...)``, ``p.has_attr({...})``, ``p.has_struct_info(si)``; ``p ^ q`` / ``p.used_by(q)``
and ``p >> q`` / ``p.only_used_by(q)`` build :class:`PatternSeq` graph constraints used by block
matching. Matching is in :mod:`relax_ref.dpl.matcher`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import StructInfo


@dataclass(frozen=True, eq=False)
class DFPattern:
    """Base of all patterns (identity-compared)."""

    def __call__(self, *args: "DFPattern", varg_default_wildcard: bool = False,
                 add_constraint: bool = True) -> "CallPattern":
        return CallPattern(self, tuple(_as_pattern(a) for a in args), varg_default_wildcard)

    def __or__(self, other: "DFPattern") -> "OrPattern":
        return OrPattern(self, _as_pattern(other))

    def __and__(self, other: "DFPattern") -> "AndPattern":
        return AndPattern(self, _as_pattern(other))

    def __invert__(self) -> "NotPattern":
        return NotPattern(self)

    def has_attr(self, attrs: Dict[str, Any]) -> "AttrPattern":
        return AttrPattern(self, dict(attrs))

    def has_struct_info(self, struct_info: StructInfo) -> "StructInfoPattern":
        return StructInfoPattern(self, struct_info)

    def has_dtype(self, dtype: str) -> "DataTypePattern":
        return DataTypePattern(self, str(dtype))

    def has_shape(self, shape) -> "ShapePattern":
        if isinstance(shape, P.PrimExpr):
            shape = (shape,)
        if not isinstance(shape, (list, tuple)):
            raise RelaxError("has_shape takes a list or tuple of dimensions")
        return ShapePattern(self, tuple(_as_dim(d) for d in shape))

    def match(self, expr: rx.Expr, var2val: Optional[Dict[rx.Var, rx.Expr]] = None) -> bool:
        return _matcher("match")(self, expr, var2val)

    def extract_matched_expr(self, expr: rx.Expr, var2val: Optional[Dict[rx.Var, rx.Expr]] = None):
        return _matcher("extract_matched_expr")(self, expr, var2val)

    def used_by(self, other, index: int = -1) -> "PatternSeq":
        return _chain(self, other, index, only=False)

    def __xor__(self, other) -> "PatternSeq":
        return self.used_by(other)

    def only_used_by(self, other, index: int = -1) -> "PatternSeq":
        return _chain(self, other, index, only=True)

    def __rshift__(self, other) -> "PatternSeq":
        return self.only_used_by(other)

    def same_shape_as(self, *others: "DFPattern") -> "SameShapeConstraint":
        return SameShapeConstraint((self,) + tuple(others))


@dataclass(frozen=True, eq=False)
class ExprPattern(DFPattern):
    """Matches an expression structurally equal to ``expr`` (an ``Op`` for :func:`is_op`)."""

    expr: rx.Expr = None  # type: ignore[assignment]


@dataclass(frozen=True, eq=False)
class VarPattern(DFPattern):
    """Matches a variable (one not bound in the matched scope: a parameter); ``name_hint`` "" is any."""

    name_hint: str = ""


@dataclass(frozen=True, eq=False)
class DataflowVarPattern(VarPattern):
    pass


@dataclass(frozen=True, eq=False)
class GlobalVarPattern(DFPattern):
    """Matches a GlobalVar whose name contains ``name_hint``."""

    name_hint: str = ""


@dataclass(frozen=True, eq=False)
class ExternFuncPattern(DFPattern):
    global_symbol: str = ""


@dataclass(frozen=True, eq=False)
class ConstantPattern(DFPattern):
    pass


@dataclass(frozen=True, eq=False)
class CallPattern(DFPattern):
    """``op(args...)``; with ``varg_default_wildcard`` the call may have more arguments."""

    op: DFPattern = None  # type: ignore[assignment]
    args: Optional[Tuple[DFPattern, ...]] = ()
    varg_default_wildcard: bool = False


@dataclass(frozen=True, eq=False)
class FunctionPattern(DFPattern):
    params: Optional[Tuple[DFPattern, ...]] = None
    body: DFPattern = None  # type: ignore[assignment]


@dataclass(frozen=True, eq=False)
class TuplePattern(DFPattern):
    fields: Tuple[DFPattern, ...] = ()

    def __getitem__(self, index: Optional[int]) -> "TupleGetItemPattern":
        return TupleGetItemPattern(self, -1 if index is None else int(index))

    def __len__(self) -> int:
        return len(self.fields)


@dataclass(frozen=True, eq=False)
class UnorderedTuplePattern(DFPattern):
    fields: Tuple[DFPattern, ...] = ()

    def __len__(self) -> int:
        return len(self.fields)


@dataclass(frozen=True, eq=False)
class TupleGetItemPattern(DFPattern):
    """``tuple[index]``; index -1 is any index."""

    tuple_value: DFPattern = None  # type: ignore[assignment]
    index: int = -1


@dataclass(frozen=True, eq=False)
class OrPattern(DFPattern):
    left: DFPattern = None  # type: ignore[assignment]
    right: DFPattern = None  # type: ignore[assignment]


@dataclass(frozen=True, eq=False)
class AndPattern(DFPattern):
    left: DFPattern = None  # type: ignore[assignment]
    right: DFPattern = None  # type: ignore[assignment]


@dataclass(frozen=True, eq=False)
class NotPattern(DFPattern):
    reject: DFPattern = None  # type: ignore[assignment]


@dataclass(frozen=True, eq=False)
class WildcardPattern(DFPattern):
    pass


@dataclass(frozen=True, eq=False)
class StructInfoPattern(DFPattern):
    pattern: DFPattern = None  # type: ignore[assignment]
    struct_info: StructInfo = None  # type: ignore[assignment]


@dataclass(frozen=True, eq=False)
class DataTypePattern(DFPattern):
    pattern: DFPattern = None  # type: ignore[assignment]
    dtype: str = ""


@dataclass(frozen=True, eq=False)
class ShapePattern(DFPattern):
    pattern: DFPattern = None  # type: ignore[assignment]
    shape: Tuple[P.PrimExpr, ...] = ()


@dataclass(frozen=True, eq=False)
class PrimArrPattern(DFPattern):
    fields: Tuple[P.PrimExpr, ...] = ()

    def __getitem__(self, index: int) -> P.PrimExpr:
        return self.fields[index]

    def __len__(self) -> int:
        return len(self.fields)


@dataclass(frozen=True, eq=False)
class AttrPattern(DFPattern):
    pattern: DFPattern = None  # type: ignore[assignment]
    attrs: Dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class SameShapeConstraint:
    """The expressions matched by ``args`` have provably equal shapes (used by block matching)."""

    args: Tuple[DFPattern, ...] = ()


@dataclass(frozen=True, eq=False)
class PatternSeq:
    """Patterns linked by use relations: ``patterns[i]`` is used by ``patterns[i + 1]`` (only by it
    when ``only_use``)."""

    patterns: Tuple[DFPattern, ...] = ()
    only_use: bool = False
    edges: Tuple[Tuple[DFPattern, DFPattern, int, bool], ...] = ()

    def used_by(self, other, index: int = -1) -> "PatternSeq":
        return _chain(self, other, index, only=False)

    def only_used_by(self, other, index: int = -1) -> "PatternSeq":
        return _chain(self, other, index, only=True)

    def __xor__(self, other) -> "PatternSeq":
        return self.used_by(other)

    def __rshift__(self, other) -> "PatternSeq":
        return self.only_used_by(other)

    def __getitem__(self, index: int) -> DFPattern:
        return self.patterns[index]


def _chain(lhs, rhs, index: int, only: bool) -> PatternSeq:
    lp = lhs.patterns if isinstance(lhs, PatternSeq) else (lhs,)
    rp = rhs.patterns if isinstance(rhs, PatternSeq) else (rhs,)
    edges = (lhs.edges if isinstance(lhs, PatternSeq) else ()) + (rhs.edges if isinstance(rhs, PatternSeq) else ())
    edges += ((lp[-1], rp[0], index, only),)
    return PatternSeq(lp + rp, only, edges)


# ---------------------------------------------------------------------------------------------------
# Constructors (TVM's ``tvm.relax.dpl`` functions)
# ---------------------------------------------------------------------------------------------------


def _as_pattern(x) -> DFPattern:
    if isinstance(x, DFPattern):
        return x
    if isinstance(x, rx.Expr):
        return ExprPattern(x)
    raise RelaxError(f"expected a dataflow pattern, got {type(x).__name__}")


#: The matcher's entry points (``match``, ``extract_matched_expr``), filled by
#: :mod:`relax_ref.dpl.matcher` when it is imported (it builds on this module, so this is a hook)
MATCHER: Dict[str, Any] = {}


def _matcher(name: str) -> Any:
    fn = MATCHER.get(name)
    if fn is None:
        raise RelaxError("pattern matching needs relax_ref.dpl.matcher (import relax_ref.dpl)")
    return fn


def _as_dim(d) -> P.PrimExpr:
    if isinstance(d, P.PrimExpr):
        return d
    if isinstance(d, int) and not isinstance(d, bool):
        return P.IntImm(d, "int64")
    raise RelaxError(f"a shape dimension must be an integer or a scalar expression, got {type(d).__name__}")


def is_var(name: str = "") -> VarPattern:
    return VarPattern(name)


def is_dfv(name: str = "") -> DataflowVarPattern:
    return DataflowVarPattern(name)


def is_gv(name: str = "") -> GlobalVarPattern:
    return GlobalVarPattern(name)


def is_const() -> ConstantPattern:
    return ConstantPattern()


def is_expr(expr: rx.Expr) -> ExprPattern:
    return ExprPattern(expr)


def is_op(op_name: str) -> ExprPattern:
    """The operator ``op_name`` (it must be registered)."""
    from ..ops import registry

    if registry.lookup(op_name) is None:
        raise RelaxError(f"is_op: unknown operator '{op_name}'")
    return ExprPattern(rx.Op(op_name))


def is_tuple(fields: Sequence[DFPattern], unordered: bool = False) -> Union[TuplePattern, UnorderedTuplePattern]:
    if not isinstance(fields, (list, tuple)):
        raise RelaxError("is_tuple takes a list or tuple of patterns")
    fs = tuple(_as_pattern(f) for f in fields)
    return UnorderedTuplePattern(fs) if unordered else TuplePattern(fs)


def is_tuple_get_item(tuple_value: DFPattern, index: Optional[int] = None) -> TupleGetItemPattern:
    return TupleGetItemPattern(_as_pattern(tuple_value), -1 if index is None else int(index))


def wildcard() -> WildcardPattern:
    return WildcardPattern()


def has_dtype(dtype: str, pattern: Optional[DFPattern] = None) -> DataTypePattern:
    return DataTypePattern(pattern if pattern is not None else wildcard(), str(dtype))


def has_attr(attrs: Dict[str, Any], pattern: Optional[DFPattern] = None) -> AttrPattern:
    return AttrPattern(pattern if pattern is not None else wildcard(), dict(attrs))


def is_shape(shape: Sequence) -> PrimArrPattern:
    if not isinstance(shape, (list, tuple)):
        raise RelaxError("is_shape takes a list or tuple of dimensions")
    return PrimArrPattern(tuple(_as_dim(d) for d in shape))


def reject(pattern: DFPattern) -> NotPattern:
    return NotPattern(pattern)


def _call_args(args) -> DFPattern:
    if args is None:
        return wildcard()
    if isinstance(args, (list, tuple)):
        return TuplePattern(tuple(_as_pattern(a) for a in args))
    return _as_pattern(args)


def is_call_tir(func_name: str, args=None, tir_vars: Optional[DFPattern] = None) -> CallPattern:
    """``R.call_tir`` of a GlobalVar whose name contains ``func_name``."""
    extra = () if tir_vars is None else (tir_vars,)
    return is_op("relax.call_tir")(GlobalVarPattern(func_name), _call_args(args), *extra)


def is_call_dps_packed(func_name: str, args=None) -> CallPattern:
    return is_op("relax.call_dps_packed")(ExternFuncPattern(func_name), _call_args(args))


def is_call_packed(func_name: str, args: Optional[Sequence[DFPattern]] = None) -> CallPattern:
    if args is None:
        return ExternFuncPattern(func_name)(varg_default_wildcard=True)
    return ExternFuncPattern(func_name)(*args)


def make_fused_bias_activation_pattern(op_name: str, with_bias: bool = False, activation: Optional[str] = None,
                                       allow_reshape: bool = False) -> DFPattern:
    """``op(lhs, rhs)``, then ``+ bias`` (optionally through a reshape), then ``activation(...)``."""
    out: DFPattern = is_op(op_name)(wildcard(), wildcard())
    if with_bias:
        bias: DFPattern = wildcard()
        if allow_reshape:
            bias = is_op("relax.reshape")(bias, wildcard(), varg_default_wildcard=True)
            out = is_op("relax.add")(out, bias, varg_default_wildcard=True)
        else:
            out = is_op("relax.add")(out, bias)
    if activation:
        return is_op(activation)(out)
    return out


__all__ = [
    "DFPattern", "ExprPattern", "VarPattern", "DataflowVarPattern", "GlobalVarPattern", "ExternFuncPattern",
    "ConstantPattern", "CallPattern", "FunctionPattern", "TuplePattern", "UnorderedTuplePattern",
    "TupleGetItemPattern", "OrPattern", "AndPattern", "NotPattern", "WildcardPattern", "StructInfoPattern",
    "DataTypePattern", "ShapePattern", "PrimArrPattern", "AttrPattern", "SameShapeConstraint", "PatternSeq",
    "is_var", "is_dfv", "is_gv", "is_const", "is_expr", "is_op", "is_tuple", "is_tuple_get_item", "wildcard",
    "has_dtype", "has_attr", "is_shape", "reject", "is_call_tir", "is_call_dps_packed", "is_call_packed",
    "make_fused_bias_activation_pattern",
]
