"""Helpers of the core operators (:mod:`relax_ref.ops.core`, :mod:`relax_ref.ops.core_calls`): the
conversion of script arguments (``parse_call`` hooks: expressions, argument tuples, struct-info lists,
devices) and the struct-info inference helpers.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from ..errors import ParseError, Span, StructInfoError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.attrs import Attrs
from ..ir.struct_info import (
    FuncStructInfo, ObjectStructInfo, StructInfo, TensorStructInfo, TupleStructInfo, VDevice,
)
from .core_checks import CHECKS
from .opdef import OpDef, Param, REQUIRED, number_value


VOID = TupleStructInfo(())


NOT_LEGALIZED = "lowered by the executors / VM lowering, not by LegalizeOps"


def sinfo_param(name: str, default: Any = REQUIRED, doc: str = "") -> Param:
    return Param(name, "sinfo", "expr", default, doc)


def _describe(v: Any) -> str:
    if isinstance(v, rx.Expr):
        return f"a Relax {type(v).__name__}"
    return f"{type(v).__name__} {v!r}"


def bind_script_args(opdef: OpDef, names: Sequence[str], args: list, kwargs: dict, span: Optional[Span],
          defaults: Optional[Dict[str, Any]] = None, varargs: Optional[str] = None) -> Dict[str, Any]:
    """Bind script arguments to parameter names (Python calling rules); ``varargs`` collects the
    extra positional arguments (``*args``) as a list."""
    defaults = defaults or {}
    bound: Dict[str, Any] = {}
    pos = list(args)
    if varargs is not None:
        n_fixed = names.index(varargs)
        fixed, rest = pos[:n_fixed], pos[n_fixed:]
        for n, v in zip(names, fixed):
            bound[n] = v
        bound[varargs] = rest
        keyword_names = [n for n in names[n_fixed + 1:]]
        allowed = set(names) - {varargs}
        if len(fixed) < n_fixed:
            for n in names[len(fixed):n_fixed]:
                if n not in kwargs:
                    raise ParseError(f"{opdef.script} missing required argument '{n}'", span)
    else:
        if len(pos) > len(names):
            raise ParseError(f"{opdef.script} takes at most {len(names)} arguments, got {len(pos)}", span)
        for n, v in zip(names, pos):
            bound[n] = v
        keyword_names = list(names)
        allowed = set(names)
    for k, v in kwargs.items():
        if k not in allowed:
            raise ParseError(f"{opdef.script} got an unexpected keyword argument '{k}'", span)
        if k in bound:
            raise ParseError(f"{opdef.script} got multiple values for argument '{k}'", span)
        bound[k] = v
    for n in keyword_names if varargs is not None else names:
        if n not in bound:
            if n in defaults:
                bound[n] = defaults[n]
            else:
                raise ParseError(f"{opdef.script} missing required argument '{n}'", span)
    return bound


def convert_to_expr(v: Any, what: str, span: Optional[Span]) -> rx.Expr:
    """TVM's ``convert_to_expr``: Expr as is, int -> ``R.prim_value`` (int64), float ->
    ``R.prim_value`` (float64), scalar expression -> ``R.prim_value``, str -> ``R.str``, list/tuple ->
    tuple."""
    if isinstance(v, rx.Expr):
        return v
    if isinstance(v, (bool, int, float)):
        return number_value(v, span)
    if isinstance(v, P.PrimExpr):
        return rx.PrimValue(v, span=span)
    if isinstance(v, str):
        return rx.StringImm(v, span=span)
    if isinstance(v, (list, tuple)):
        return rx.Tuple(tuple(convert_to_expr(x, what, span) for x in v), span=span)
    raise ParseError(f"{what}: cannot convert {_describe(v)} to a Relax expression", span)


def as_expr(v: Any, what: str, span: Optional[Span]) -> rx.Expr:
    if isinstance(v, rx.Expr):
        return v
    raise ParseError(f"{what}: expected a Relax expression, got {_describe(v)}", span)


def args_tuple_expr(v: Any, what: str, span: Optional[Span]) -> rx.Expr:
    """The argument tuple of call_tir-like operators (TVM ``_wrap_inline_arg_tuple``): a list/tuple
    becomes an in-line Tuple; a Var is kept (wrapped later if not tuple-typed); any other expression
    is wrapped in a one-element tuple."""
    if isinstance(v, (list, tuple)):
        return rx.Tuple(tuple(convert_to_expr(x, what, span) for x in v), span=span)
    v = as_expr(v, what, span)
    if isinstance(v, (rx.Tuple, rx.Var)):
        return v
    if v.struct_info is not None and isinstance(v.struct_info, TupleStructInfo):
        return v
    return rx.Tuple((v,), span=span)


def callee_expr(v: Any, what: str, span: Optional[Span]) -> rx.Expr:
    """A packed-function callee: a string names an ``ExternFunc``."""
    if isinstance(v, str):
        return rx.ExternFunc(v, span=span)
    if isinstance(v, rx.StringImm):
        return rx.ExternFunc(v.value, span=span)
    return as_expr(v, what, span)


def _sinfo_list(v: Any, what: str, span: Optional[Span], *, tensors_only: bool) -> List[StructInfo]:
    items = list(v) if isinstance(v, (list, tuple)) else [v]
    out = []
    for s in items:
        if not isinstance(s, StructInfo):
            raise ParseError(f"{what} must be struct info, got {_describe(s)}", span)
        if tensors_only:
            if not isinstance(s, TensorStructInfo):
                raise ParseError(f"{what} must be R.Tensor struct info, got {_describe(s)}", span)
            if not isinstance(s.shape, rx.ShapeExpr):
                raise ParseError(f"{what} should have a defined shape (a ShapeExpr); got a tensor "
                                 f"struct info without one", span)
        out.append(s)
    return out


def out_sinfo_arg(v: Any, span: Optional[Span]) -> StructInfo:
    """``out_sinfo``: one tensor struct info, or a list of them (a tuple of outputs)."""
    many = isinstance(v, (list, tuple))
    items = _sinfo_list(v, "out_sinfo", span, tensors_only=True)
    if not many:
        return items[0]
    return items[0] if len(items) == 1 else TupleStructInfo(tuple(items))


def sinfo_args_arg(v: Any, span: Optional[Span]) -> List[StructInfo]:
    if v is None:
        return []
    return _sinfo_list(v, "sinfo_args", span, tensors_only=False)


def tir_vars_arg(v: Any, span: Optional[Span]) -> Optional[rx.Expr]:
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        vals = []
        for x in v:
            if isinstance(x, rx.PrimValue):
                x = x.value
            if isinstance(x, bool) or not isinstance(x, (int, P.PrimExpr)):
                raise ParseError(f"tir_vars: expected integers or symbolic expressions, got {_describe(x)}", span)
            vals.append(x)
        return rx.ShapeExpr(tuple(vals), span=span)
    return as_expr(v, "tir_vars", span)


def int_list(v: Any, what: str, span: Optional[Span]) -> tuple:
    items = list(v) if isinstance(v, (list, tuple)) else [v]
    out = []
    for x in items:
        if isinstance(x, P.IntImm):
            x = x.value
        if isinstance(x, rx.PrimValue) and isinstance(x.value, P.IntImm):
            x = x.value.value
        if isinstance(x, bool) or not isinstance(x, int):
            raise ParseError(f"{what}: expected integers, got {_describe(x)}", span)
        out.append(x)
    return tuple(out)


def str_value(v: Any, what: str, span: Optional[Span]) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, rx.StringImm):
        return v.value
    raise ParseError(f"{what}: expected a string, got {_describe(v)}", span)


def format_expr(v: Any, span: Optional[Span]) -> rx.Expr:
    if isinstance(v, str):
        return rx.StringImm(v, span=span)
    return as_expr(v, "format", span)


def dtype_imm(v: Any, what: str, span: Optional[Span]) -> rx.Expr:
    """A dtype argument written as a string: a known dtype (VAL.DTYPE.1), so that the printed
    ``R.dtype(...)`` reads back (TEXT.RT.1)."""
    if isinstance(v, str):
        if _dt.canonical(v) != "void" and not _dt.is_valid(v):
            raise ParseError(f"{what}: unknown data type '{v}'", span)
        return rx.DataTypeImm(_dt.canonical(v), span=span)
    return as_expr(v, what, span)


def prim_value_arg(v: Any, what: str, span: Optional[Span]) -> rx.Expr:
    """An ``int | Expr`` argument: an int or a scalar expression (``n * 4``, which TVM 0.27 writes bare
    and reads as a prim value) becomes ``R.prim_value``."""
    if isinstance(v, bool):
        raise ParseError(f"{what}: expected an integer, got {_describe(v)}", span)
    if isinstance(v, int):
        return rx.PrimValue(P.IntImm(v, "int64"), span=span)
    if isinstance(v, P.PrimExpr):
        return rx.PrimValue(v, span=span)
    return as_expr(v, what, span)


def string_imm(v: Any, what: str, span: Optional[Span]) -> rx.Expr:
    if isinstance(v, str):
        return rx.StringImm(v, span=span)
    return as_expr(v, what, span)


def parse_vdevice(v: Any, span: Optional[Span] = None, declared: Optional[Sequence[VDevice]] = None) -> VDevice:
    """``"kind"``, ``"kind:index"`` or ``"kind:index:scope"`` (or a VDevice) -> VDevice (TEXT.MOD.4).

    As in TVM, ``index`` counts the devices of that kind: with the module's ``declared`` virtual
    devices, ``"llvm:1"`` is the second declared ``llvm`` device (whatever its ``vdevice_id``) and
    the written scope is ignored; a reference to no declared device is a ParseError. Without a
    declared list (a standalone function, the builder API) the string itself is the device
    ``VDevice(kind, index, scope)``."""
    if isinstance(v, VDevice):
        return v
    if isinstance(v, rx.StringImm):
        v = v.value
    if not isinstance(v, str) or not v:
        raise ParseError(f"expected a virtual device such as \"llvm:0:global\", got {_describe(v)}", span)
    parts = v.split(":")
    if len(parts) > 3 or not parts[0]:
        raise ParseError(f"malformed virtual device '{v}' (expected \"kind:index:scope\")", span)
    kind = parts[0]
    try:
        index = int(parts[1]) if len(parts) > 1 and parts[1] != "" else 0
    except ValueError:
        raise ParseError(f"malformed virtual device index in '{v}'", span) from None
    scope = parts[2] if len(parts) > 2 else "global"
    if declared is not None:
        same = [d for d in declared if d.kind == kind]
        if 0 <= index < len(same):
            return same[index]
        raise ParseError(f"vdevice '{v}' is not declared in I.module_global_infos", span)
    return VDevice(kind, index, scope)


_DEVICE_TYPES = {"cpu": 1, "llvm": 1, "cuda": 2, "gpu": 2, "cuda_host": 3, "opencl": 4, "vulkan": 7,
                 "metal": 8, "vpi": 9, "rocm": 10, "ext_dev": 12, "hexagon": 16, "webgpu": 15}


def parse_device(v: Any, span: Optional[Span] = None) -> tuple:
    """A device for ``hint_on_device``: ``(device_type, index)``, a mapping with those keys (what
    ``R.device(device_type=..., index=...)`` denotes), an object with such attributes, or a string
    ``"cuda"`` / ``"cuda:1"``."""
    if isinstance(v, dict) or isinstance(v, Attrs):
        try:
            return int(v["device_type"]), int(v.get("index", 0))
        except (KeyError, TypeError, ValueError):
            raise ParseError(f"malformed device {v!r}", span) from None
    if isinstance(v, tuple) and len(v) == 2 and all(isinstance(x, int) for x in v):
        return int(v[0]), int(v[1])
    if isinstance(v, str):
        kind, _, idx = v.partition(":")
        if kind not in _DEVICE_TYPES:
            raise ParseError(f"unknown device kind '{kind}'", span)
        try:
            return _DEVICE_TYPES[kind], int(idx) if idx else 0
        except ValueError:
            raise ParseError(f"malformed device '{v}'", span) from None
    dt = getattr(v, "device_type", None)
    if isinstance(dt, int):
        return dt, int(getattr(v, "index", getattr(v, "device_id", 0)))
    raise ParseError(f"expected a device such as R.device(device_type=1, index=0), got {_describe(v)}", span)


def require_args(call: rx.Call, ctx, n: int, what: str) -> None:
    if len(call.args) != n:
        raise ctx.error(f"{what} expects {n} arguments, but got {len(call.args)}")


def tensor_input(call: rx.Call, ctx, name: str) -> TensorStructInfo:
    si = call.args[0].struct_info
    if not isinstance(si, TensorStructInfo):
        raise ctx.error(f"{name} needs a tensor argument, got {fmt_sinfo(si)}")
    return si


def fmt_sinfo(si) -> str:
    from ..analysis.struct_info_ops import format_struct_info

    return format_struct_info(si)


def sinfo_args_result(call: rx.Call) -> StructInfo:
    """0 sinfo_args -> Object, 1 -> it, several -> a tuple (OP.invoke_closure.C1)."""
    if not call.sinfo_args:
        return ObjectStructInfo()
    if len(call.sinfo_args) == 1:
        return call.sinfo_args[0]
    return TupleStructInfo(tuple(call.sinfo_args))


def opaque_callee_ret(call: rx.Call, ctx, opname: str) -> StructInfo:
    from ..analysis.struct_info_ops import apply_derive_func

    callee = call.args[0]
    if isinstance(callee, rx.Op):
        raise ctx.error(f"{opname} cannot be used with an op node")
    fsi = callee.struct_info
    if not isinstance(fsi, FuncStructInfo):
        raise ctx.error(f"{opname}: the callee must be a function, but has struct info {fmt_sinfo(fsi)}")
    if fsi.params is not None:
        raise ctx.error(f"{opname} must be called with an opaque function (a packed function), but the "
                        f"callee has struct info {fmt_sinfo(fsi)}")
    if fsi.derive_func is not None:
        return apply_derive_func(fsi.derive_func, call, ctx)
    return fsi.ret


def vdevice_index(e: rx.Expr) -> int:
    if isinstance(e, rx.PrimValue) and isinstance(e.value, P.IntImm):
        return e.value.value
    return -1


def dtype_of_imm(e: rx.Expr) -> str:
    return e.value if isinstance(e, rx.DataTypeImm) else "void"


def tensor_dtype_of_imm(e: rx.Expr, ctx, what: str) -> str:
    """The dtype argument of an allocation as the element type of the tensor it gives: never
    ``handle`` (VAL.DTYPE.4, :func:`relax_ref.ir.dtype.value_dtype`)."""
    try:
        return _dt.value_dtype(dtype_of_imm(e))
    except StructInfoError as err:
        raise ctx.error(f"{what}: {err.message}") from None


def positional_parser(spec):
    """A parse_call from ``[(name, converter, default), ...]`` (converter(v, what, span))."""

    def parse(opdef, args, kwargs, span):
        names = [s[0] for s in spec]
        defaults = {s[0]: s[2] for s in spec if s[2] is not REQUIRED}
        kwargs = dict(kwargs)
        # TVM prints ``sinfo_args=`` for such calls when built with explicit struct info (e.g. by
        # CallTIRRewrite); they are kept on the call
        sinfo = sinfo_args_arg(kwargs.pop("sinfo_args", None), span)
        b = bind_script_args(opdef, names, args, kwargs, span, defaults)
        return rx.Call(opdef.op, tuple(conv(b[n], n, span) for n, conv, _ in spec), sinfo_args=tuple(sinfo),
                       span=span)

    return parse


def conv_expr(v, what, span):
    return convert_to_expr(v, what, span)


def core_op(**kw) -> OpDef:
    """An entry of the core family: its run-time check from :data:`~relax_ref.ops.core_checks.CHECKS`,
    category ``core`` and, unless given, not legalized (the executors lower it)."""
    kw.setdefault("check", CHECKS.get(kw["name"]))
    kw.setdefault("category", "core")
    kw.setdefault("legalize_exempt", NOT_LEGALIZED)
    return OpDef(**kw)
