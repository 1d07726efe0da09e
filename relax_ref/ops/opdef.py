"""An operator definition (spec rule OP.0): :class:`OpDef`, one per operator, and the generic
construction of a script-level call from its parameters. The table of all of them is
:mod:`relax_ref.ops.registry`.

An entry holds

* ``name`` (``"relax.add"``) and ``script`` (``"R.add"``, ``"R.nn.softmax"``): the TVMScript callee;
* ``params``: the script-level signature in TVM's Python API order. ``kind="arg"`` parameters become
  ``Call.args`` (converted by ``conv``), ``kind="attr"`` parameters become ``Call.attrs`` entries and
  ``kind="sinfo"`` parameters become ``Call.sinfo_args``;
* ``infer(call, ctx) -> StructInfo``: symbolic struct-info inference; raises ``StructInfoError``;
* ``check(args)``: the operator's run-time constraints (``OP.<op>.C<n>``) over the evaluated
  arguments, seen through :class:`relax_ref.ops.checks.OpArgs`; every evaluator calls it before the
  operator's own implementation, which then only computes;
* ``reference(args, attrs, call, ctx) -> value``: the reference semantics over the values of
  :mod:`relax_ref.values`; ``args`` are the evaluated ``Call.args``. The reference interpreter's
  table of implementations (:mod:`relax_ref.interp.op_table`) takes these, plus its own for the
  operators that call back into the evaluator (``call_tir``, closures, printing);
* ``legalize(call, ctx) -> Expr | None``: lowering to TensorIR (``call_tir`` of a generated PrimFunc);
* ``purity``, ``category``, ``normalize`` (TVM's FNormalize), ``validate`` (FValidate);
* ``parse_call`` / ``print_call``: overrides for ops whose script form is not the generic one.

Entries are frozen. Other backends keep their own tables keyed by the operator name (the JAX
executor's lowerings: ``relax_jax.lowering.LOWERINGS``). Adding an operator means adding one entry to
the ``OPS`` of its family module (plus its spec page ``spec/ops/<name>.md`` and conformance cases).
``relax-ref ops`` prints the status table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ..errors import ParseError, RelaxError, Span, StructInfoError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.attrs import Attrs
from ..ir.struct_info import StructInfo

REQUIRED = object()

#: How a script-level argument is converted (``conv`` of an ``arg`` parameter)
ARG_CONVERSIONS = ("expr", "shape", "prim", "prim_tuple", "tuple", "optional_expr")
#: How an attribute value is converted (``conv`` of an ``attr`` parameter)
ATTR_CONVERSIONS = ("int", "float", "bool", "str", "dtype", "ints", "optional_ints", "optional_int",
                    "floats", "any", "prim", "int_or_ints", "optional_float", "optional_str", "strs")


@dataclass(frozen=True)
class Param:
    """One script-level parameter of an operator."""

    name: str
    kind: str = "arg"  # "arg" | "attr" | "sinfo"
    conv: str = "expr"
    default: Any = REQUIRED
    doc: str = ""

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


def arg(name: str, conv: str = "expr", default: Any = REQUIRED, doc: str = "") -> Param:
    return Param(name, "arg", conv, default, doc)


def attr(name: str, conv: str = "any", default: Any = REQUIRED, doc: str = "") -> Param:
    return Param(name, "attr", conv, default, doc)


@dataclass(frozen=True, eq=False)
class OpDef:
    """One operator (see the module docstring); compared and hashed by identity."""

    name: str
    script: str
    params: Tuple[Param, ...] = ()
    infer: Optional[Callable[[rx.Call, Any], StructInfo]] = None
    check: Optional[Callable[[Any], None]] = None
    reference: Optional[Callable[..., Any]] = None
    legalize: Optional[Callable[[rx.Call, Any], Optional[rx.Expr]]] = None
    purity: bool = True
    category: str = "misc"
    normalize: Optional[Callable[[rx.Call, Any], rx.Call]] = None
    validate: Optional[Callable[[rx.Call, Any], None]] = None
    parse_call: Optional[Callable[..., rx.Call]] = None
    print_call: Optional[Callable[..., str]] = None
    doc: str = ""
    #: True for ops whose output shape depends on data (nonzero, unique): legalization may proceed
    #: with an unknown output shape.
    data_dependent: bool = False
    #: free-form notes shown in the status table (e.g. known TVM divergences)
    notes: str = ""
    #: non-empty when legalization to TensorIR does not apply to this operator (e.g. ``call_tir``
    #: itself, memory builtins); the reason is shown in the status table
    legalize_exempt: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", tuple(self.params))
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))

    @property
    def op(self) -> rx.Op:
        return rx.Op(self.name)

    @property
    def spec_page(self) -> str:
        return f"spec/ops/{self.name.replace('relax.', '', 1)}.md"

    def arg_params(self) -> List[Param]:
        return [p for p in self.params if p.kind == "arg"]

    def attr_params(self) -> List[Param]:
        return [p for p in self.params if p.kind == "attr"]

    def attr_defaults(self) -> Dict[str, Any]:
        return {p.name: p.default for p in self.params if p.kind == "attr" and not p.required}


# ---------------------------------------------------------------------------------------------------
# Generic script-call construction (used by the parser) and conversions
# ---------------------------------------------------------------------------------------------------


def _err(msg: str, span: Optional[Span]) -> ParseError:
    return ParseError(msg, span)


def _to_prim(v: Any, span: Optional[Span], what: str) -> P.PrimExpr:
    if isinstance(v, P.PrimExpr):
        return v
    if isinstance(v, bool):
        return P.IntImm(int(v), "bool")
    if isinstance(v, int):
        return P.IntImm(v, "int64")
    if isinstance(v, float):
        return P.FloatImm(v, "float32")
    if isinstance(v, rx.PrimValue):
        return v.value
    raise _err(f"{what}: expected an integer or symbolic expression, got {_describe(v)}", span)


def number_value(v: Any, span: Optional[Span]) -> Optional[rx.PrimValue]:
    """A Python number as TVM's Python API makes it a Relax value (``R.prim_value``): bool as bool,
    int as int64, float as float64; ``None`` for anything else."""
    if isinstance(v, bool):
        return rx.PrimValue(P.IntImm(int(v), "bool"), span=span)
    if isinstance(v, int):
        return rx.PrimValue(P.IntImm(v, "int64"), span=span)
    if isinstance(v, float):
        return rx.PrimValue(P.FloatImm(v, "float64"), span=span)
    return None


def _describe(v: Any) -> str:
    if isinstance(v, rx.Expr):
        return f"a Relax {type(v).__name__}"
    return f"{type(v).__name__} {v!r}"


def convert_arg(p: Param, v: Any, span: Optional[Span]) -> Optional[rx.Expr]:
    """Convert a script value for an ``arg`` parameter to a Relax expression."""
    c = p.conv
    if v is None:
        if c == "optional_expr" or p.default is None:
            return None
        raise _err(f"argument '{p.name}' must not be None", span)
    if c in ("expr", "optional_expr"):
        if isinstance(v, rx.Expr):
            return v
        if isinstance(v, (list, tuple)):
            return rx.Tuple(tuple(convert_arg(Param(p.name, "arg", "expr"), x, span) for x in v), span=span)
        if isinstance(v, (bool, int, float)):
            raise _err(f"argument '{p.name}': please convert {v!r} with R.const or R.prim_value first", span)
        raise _err(f"argument '{p.name}': expected a Relax expression, got {_describe(v)}", span)
    if c == "shape":
        if isinstance(v, rx.Expr) and not isinstance(v, rx.Tuple):
            return v
        if isinstance(v, rx.Tuple):
            v = [x.value if isinstance(x, rx.PrimValue) else x for x in v.fields]
        if isinstance(v, (list, tuple)):
            return rx.ShapeExpr(tuple(_to_prim(x, span, f"argument '{p.name}'") for x in v), span=span)
        raise _err(f"argument '{p.name}': expected a shape, got {_describe(v)}", span)
    if c == "prim":
        if isinstance(v, rx.Expr):
            return v
        return rx.PrimValue(_to_prim(v, span, f"argument '{p.name}'"), span=span)
    if c == "prim_tuple":
        if isinstance(v, rx.Expr):
            return v
        if isinstance(v, (list, tuple)):
            return rx.Tuple(tuple(x if isinstance(x, rx.Expr) else
                                  rx.PrimValue(_to_prim(x, span, f"argument '{p.name}'"))
                                  for x in v), span=span)
        return rx.Tuple((rx.PrimValue(_to_prim(v, span, f"argument '{p.name}'")),), span=span)
    if c == "tuple":
        if isinstance(v, (list, tuple)):
            return rx.Tuple(tuple(convert_arg(Param(p.name, "arg", "expr"), x, span) for x in v), span=span)
        if isinstance(v, rx.Expr):
            return v
        raise _err(f"argument '{p.name}': expected a tuple of expressions, got {_describe(v)}", span)
    raise RelaxError(f"internal: unknown argument conversion '{c}' for {p.name}")


def _int_of(v: Any, what: str, span) -> int:
    """An integer attribute; one outside the int64 range is a ParseError (RUNTIME.LIMIT.1)."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        if not -(1 << 63) <= v < (1 << 63):
            raise _err(f"{what}: {v} does not fit in int64", span)
        return v
    if isinstance(v, P.IntImm):
        return v.value
    if isinstance(v, rx.PrimValue) and isinstance(v.value, P.IntImm):
        return v.value.value
    raise _err(f"{what}: expected an integer, got {_describe(v)}", span)


def convert_attr(p: Param, v: Any, span: Optional[Span]) -> Any:
    """Convert a script value for an ``attr`` parameter to a plain Python attribute value."""
    c = p.conv
    what = f"attribute '{p.name}'"
    if c == "any":
        return v
    if v is None:
        if c.startswith("optional") or p.default is None:
            return None
        if c == "dtype":
            return "void"
        raise _err(f"{what} must not be None", span)
    if c in ("int", "optional_int"):
        return _int_of(v, what, span)
    if c in ("float", "optional_float"):
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
        if isinstance(v, (P.FloatImm, P.IntImm)):
            return float(v.value)
        raise _err(f"{what}: expected a number, got {_describe(v)}", span)
    if c == "bool":
        if isinstance(v, bool):
            return v
        if isinstance(v, int) and v in (0, 1):
            return bool(v)
        if isinstance(v, P.IntImm):
            return bool(v.value)
        raise _err(f"{what}: expected a bool, got {_describe(v)}", span)
    if c in ("str", "optional_str"):
        if isinstance(v, str):
            return v
        if isinstance(v, rx.StringImm):
            return v.value
        raise _err(f"{what}: expected a string, got {_describe(v)}", span)
    if c == "strs":
        if isinstance(v, str):
            return (v,)
        if isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v):
            return tuple(v)
        raise _err(f"{what}: expected a list of strings, got {_describe(v)}", span)
    if c == "dtype":
        if isinstance(v, rx.DataTypeImm):
            v = v.value
        if isinstance(v, str):
            try:
                return _dt.value_dtype(v)       # a tensor's element type (VAL.DTYPE.4)
            except StructInfoError as e:
                raise _err(f"{what}: {e.message}", span) from None
        raise _err(f"{what}: expected a dtype string, got {_describe(v)}", span)
    if c in ("ints", "optional_ints", "int_or_ints"):
        if isinstance(v, (list, tuple)):
            return tuple(_int_of(x, what, span) for x in v)
        if c == "int_or_ints":
            return _int_of(v, what, span)
        return (_int_of(v, what, span),)
    if c == "floats":
        if isinstance(v, (list, tuple)):
            return tuple(float(x.value if isinstance(x, (P.IntImm, P.FloatImm)) else x) for x in v)
        return (float(v),)
    if c == "prim":
        return _to_prim(v, span, what)
    raise RelaxError(f"internal: unknown attribute conversion '{c}' for {p.name}")


def build_call(opdef: OpDef, args: Sequence[Any], kwargs: Dict[str, Any], span: Optional[Span] = None) -> rx.Call:
    """Bind script-level positional and keyword arguments to ``opdef.params`` and build the Call.

    Raises ParseError for unknown keywords, missing required parameters or bad values.
    """
    if opdef.parse_call is not None:
        return opdef.parse_call(opdef, list(args), dict(kwargs), span)
    params = list(opdef.params)
    if len(args) > len(params):
        raise _err(f"{opdef.script} takes at most {len(params)} arguments, got {len(args)}", span)
    bound: Dict[str, Any] = {}
    for p, v in zip(params, args):
        bound[p.name] = v
    names = {p.name for p in params}
    for k, v in kwargs.items():
        if k not in names:
            raise _err(f"{opdef.script} got an unexpected keyword argument '{k}'", span)
        if k in bound:
            raise _err(f"{opdef.script} got multiple values for argument '{k}'", span)
        bound[k] = v
    call_args: List[rx.Expr] = []
    attrs: Dict[str, Any] = {}
    sinfo: List[StructInfo] = []
    missing_optional = False
    for p in params:
        if p.name in bound:
            v = bound[p.name]
        elif p.required:
            raise _err(f"{opdef.script} missing required argument '{p.name}'", span)
        else:
            v = p.default
        if p.kind == "arg":
            e = convert_arg(p, v, span)
            if e is None:
                missing_optional = True
                continue
            if missing_optional:
                raise _err(f"{opdef.script}: argument '{p.name}' given after an omitted optional argument", span)
            call_args.append(e)
        elif p.kind == "attr":
            attrs[p.name] = convert_attr(p, v, span)
        elif p.kind == "sinfo":
            if v is None:
                continue
            items = v if isinstance(v, (list, tuple)) else [v]
            for s in items:
                if not isinstance(s, StructInfo):
                    raise _err(f"{opdef.script}: '{p.name}' must be struct info, got {_describe(s)}", span)
                sinfo.append(s)
    return rx.Call(opdef.op, tuple(call_args), Attrs(attrs), tuple(sinfo), span=span)


__all__ = [
    "REQUIRED", "Param", "arg", "attr", "OpDef", "convert_arg", "convert_attr", "build_call", "ARG_CONVERSIONS",
    "ATTR_CONVERSIONS",
]
