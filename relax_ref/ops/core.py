"""Core Relax operators: calling conventions, closures, shape/tensor conversion, printing and
assertions, device placement and the memory/VM builtins (spec pages ``spec/ops/<name>.md``).

Struct-info inference, purity and normalization follow TVM 0.25 (``src/relax/op/op.cc``); script
spellings and parameter names follow ``tvm.relax.op`` (``R.call_tir(gvar, args, out_sinfo,
tir_vars=None)`` ...) and the way TVM prints each call, so text TVM prints parses identically.

Script-form hooks
=================

``parse_call(opdef, args, kwargs, span) -> Call`` receives the parser's evaluated script values
(Relax expressions, Python ints/floats/strs, lists/tuples, struct info, scalar expressions).

``print_call(call, p) -> str`` returns the whole call text; ``p`` is the script printer
(:class:`relax_ref.script.printer.relax.RelaxPrinter`: ``p.expr(e)``, ``p.sinfo(s)``, ``p.attr(v)``).
Only ``hint_on_device`` needs one; the others print through the printer's generic form (``callee``
string for packed functions, positional arguments, attributes as keywords, ``sinfo_args=(...)``)
or its TVM special forms (``call_tir`` family, ``print``, ``assert_op``).

Wrapping of argument tuples (OP.call_tir.C2 and the like): TVM's Python wrappers put a single non-tuple
argument into a one-element tuple. A ``Var`` cannot be classified before normalization, so
``parse_call`` keeps it and the operator's ``normalize`` hook wraps it when its struct info is not a
tuple; such wrap-only hooks are marked ``extra["wf_normalized_check"] = False`` (TVM has no FNormalize
for these operators, so the well-formedness rule WF.OPNORM.1 does not apply to them).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Dict, List, Optional, Sequence

from ..errors import ParseError, Span
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.attrs import Attrs
from ..ir.struct_info import (
    FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo,
    TupleStructInfo, VDevice,
)
from .core_checks import CHECKS
from .opdef import REQUIRED, OpDef, Param, arg, attr

VOID = TupleStructInfo(())
_NOT_LEGALIZED = "lowered by the executors / VM lowering, not by LegalizeOps"


def _sinfo_param(name: str, default: Any = REQUIRED, doc: str = "") -> Param:
    return Param(name, "sinfo", "expr", default, doc)


# ---------------------------------------------------------------------------------------------------
# Script-argument helpers
# ---------------------------------------------------------------------------------------------------


def _describe(v: Any) -> str:
    if isinstance(v, rx.Expr):
        return f"a Relax {type(v).__name__}"
    return f"{type(v).__name__} {v!r}"


def _bind(opdef: OpDef, names: Sequence[str], args: list, kwargs: dict, span: Optional[Span],
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
    if isinstance(v, bool):
        return rx.PrimValue(P.IntImm(int(v), "bool"), span=span)
    if isinstance(v, int):
        return rx.PrimValue(P.IntImm(v, "int64"), span=span)
    if isinstance(v, float):
        return rx.PrimValue(P.FloatImm(v, "float64"), span=span)
    if isinstance(v, P.PrimExpr):
        return rx.PrimValue(v, span=span)
    if isinstance(v, str):
        return rx.StringImm(v, span=span)
    if isinstance(v, (list, tuple)):
        return rx.Tuple(tuple(convert_to_expr(x, what, span) for x in v), span=span)
    raise ParseError(f"{what}: cannot convert {_describe(v)} to a Relax expression", span)


def _expr(v: Any, what: str, span: Optional[Span]) -> rx.Expr:
    if isinstance(v, rx.Expr):
        return v
    raise ParseError(f"{what}: expected a Relax expression, got {_describe(v)}", span)


def _arg_tuple(v: Any, what: str, span: Optional[Span]) -> rx.Expr:
    """The argument tuple of call_tir-like operators (TVM ``_wrap_inline_arg_tuple``): a list/tuple
    becomes an in-line Tuple; a Var is kept (wrapped later if not tuple-typed); any other expression
    is wrapped in a one-element tuple."""
    if isinstance(v, (list, tuple)):
        return rx.Tuple(tuple(convert_to_expr(x, what, span) for x in v), span=span)
    v = _expr(v, what, span)
    if isinstance(v, (rx.Tuple, rx.Var)):
        return v
    if v.struct_info is not None and isinstance(v.struct_info, TupleStructInfo):
        return v
    return rx.Tuple((v,), span=span)


def _callee(v: Any, what: str, span: Optional[Span]) -> rx.Expr:
    """A packed-function callee: a string names an ``ExternFunc``."""
    if isinstance(v, str):
        return rx.ExternFunc(v, span=span)
    if isinstance(v, rx.StringImm):
        return rx.ExternFunc(v.value, span=span)
    return _expr(v, what, span)


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


def _out_sinfo(v: Any, span: Optional[Span]) -> StructInfo:
    """``out_sinfo``: one tensor struct info, or a list of them (a tuple of outputs)."""
    many = isinstance(v, (list, tuple))
    items = _sinfo_list(v, "out_sinfo", span, tensors_only=True)
    if not many:
        return items[0]
    return items[0] if len(items) == 1 else TupleStructInfo(tuple(items))


def _sinfo_args(v: Any, span: Optional[Span]) -> List[StructInfo]:
    if v is None:
        return []
    return _sinfo_list(v, "sinfo_args", span, tensors_only=False)


def _tir_vars(v: Any, span: Optional[Span]) -> Optional[rx.Expr]:
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
    return _expr(v, "tir_vars", span)


def _int_list(v: Any, what: str, span: Optional[Span]) -> tuple:
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


def _str_value(v: Any, what: str, span: Optional[Span]) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, rx.StringImm):
        return v.value
    raise ParseError(f"{what}: expected a string, got {_describe(v)}", span)


def _format_expr(v: Any, span: Optional[Span]) -> rx.Expr:
    if isinstance(v, str):
        return rx.StringImm(v, span=span)
    return _expr(v, "format", span)


def _dtype_imm(v: Any, what: str, span: Optional[Span]) -> rx.Expr:
    if isinstance(v, str):
        return rx.DataTypeImm(_dt.canonical(v), span=span)
    return _expr(v, what, span)


def _prim_value(v: Any, what: str, span: Optional[Span]) -> rx.Expr:
    if isinstance(v, bool):
        raise ParseError(f"{what}: expected an integer, got {_describe(v)}", span)
    if isinstance(v, int):
        return rx.PrimValue(P.IntImm(v, "int64"), span=span)
    return _expr(v, what, span)


def _string_imm(v: Any, what: str, span: Optional[Span]) -> rx.Expr:
    if isinstance(v, str):
        return rx.StringImm(v, span=span)
    return _expr(v, what, span)


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


# ---------------------------------------------------------------------------------------------------
# Inference helpers
# ---------------------------------------------------------------------------------------------------


def _require_args(call: rx.Call, ctx, n: int, what: str) -> None:
    if len(call.args) != n:
        raise ctx.error(f"{what} expects {n} arguments, but got {len(call.args)}")


def _tensor_input(call: rx.Call, ctx, name: str) -> TensorStructInfo:
    si = call.args[0].struct_info
    if not isinstance(si, TensorStructInfo):
        raise ctx.error(f"{name} needs a tensor argument, got {_fmt(si)}")
    return si


def _fmt(si) -> str:
    from ..analysis.struct_info_ops import format_struct_info

    return format_struct_info(si)


def _sinfo_args_result(call: rx.Call) -> StructInfo:
    """0 sinfo_args -> Object, 1 -> it, several -> a tuple (OP.invoke_closure.C1)."""
    if not call.sinfo_args:
        return ObjectStructInfo()
    if len(call.sinfo_args) == 1:
        return call.sinfo_args[0]
    return TupleStructInfo(tuple(call.sinfo_args))


def _opaque_callee_ret(call: rx.Call, ctx, opname: str) -> StructInfo:
    from ..analysis.struct_info_ops import apply_derive_func

    callee = call.args[0]
    if isinstance(callee, rx.Op):
        raise ctx.error(f"{opname} cannot be used with an op node")
    fsi = callee.struct_info
    if not isinstance(fsi, FuncStructInfo):
        raise ctx.error(f"{opname}: the callee must be a function, but has struct info {_fmt(fsi)}")
    if fsi.params is not None:
        raise ctx.error(f"{opname} must be called with an opaque function (a packed function), but the "
                        f"callee has struct info {_fmt(fsi)}")
    if fsi.derive_func is not None:
        return apply_derive_func(fsi.derive_func, call, ctx)
    return fsi.ret


def _vdevice_index(e: rx.Expr) -> int:
    if isinstance(e, rx.PrimValue) and isinstance(e.value, P.IntImm):
        return e.value.value
    return -1


def _dtype_of_imm(e: rx.Expr) -> str:
    return e.value if isinstance(e, rx.DataTypeImm) else "void"


# ---------------------------------------------------------------------------------------------------
# call_tir family (spec page spec/ops/call_tir.md)
# ---------------------------------------------------------------------------------------------------


def _infer_call_tir(call: rx.Call, ctx) -> StructInfo:
    """The result is ``out_sinfo`` itself (OP.call_tir.C1)."""
    if len(call.sinfo_args) != 1:
        raise ctx.error(f"{call.op.name} takes exactly one output struct info, got {len(call.sinfo_args)}")
    if not call.args or not isinstance(call.args[0], rx.GlobalVar):
        got = type(call.args[0]).__name__ if call.args else "nothing"
        raise ctx.error(f"{call.op.name.replace('relax.', 'R.')} expects the first argument to be a "
                        f"GlobalVar referring to a TIR PrimFunc. However, the argument is a {got}")
    return call.sinfo_args[0]


def _wrap_arg_tuple(call: rx.Call, index: int) -> Optional[rx.Call]:
    """Wrap a non-tuple-typed argument ``index`` into a one-element tuple (script sugar)."""
    if len(call.args) <= index:
        return None
    a = call.args[index]
    if isinstance(a, rx.Tuple) or isinstance(a.struct_info, TupleStructInfo):
        return None
    new_args = list(call.args)
    new_args[index] = rx.Tuple((a,), struct_info=TupleStructInfo((a.struct_info,)), span=a.span)
    return replace(call, args=tuple(new_args))


def _normalize_wrap_args(call: rx.Call, ctx) -> rx.Call:
    """Wrap-only normalization of ``args[1]`` (TVM's Python wrappers do this at construction)."""
    wrapped = _wrap_arg_tuple(call, 1)
    return wrapped if wrapped is not None else call


def _normalize_call_tir(call: rx.Call, ctx) -> rx.Call:
    """TVM's NormalizeCallTIR (OP.call_tir.C2): the argument tuple must be an in-line ``Tuple``; a
    variable bound to a tuple is replaced by that tuple, any other tuple-typed variable by
    ``(t[0], t[1], ...)``."""
    name = call.op.name
    if len(call.args) not in (2, 3):
        raise ctx.error(f"{name} takes a callee, an argument tuple and optionally the packed integers, "
                        f"but got {len(call.args)} arguments")
    callee = call.args[0]
    if not isinstance(callee.struct_info, FuncStructInfo):
        raise ctx.error(f"{name}: the callee must be a function, but has struct info "
                        f"{_fmt(callee.struct_info)}")
    wrapped = _wrap_arg_tuple(call, 1)
    if wrapped is not None:
        return wrapped
    arg_tuple = call.args[1]
    if not isinstance(arg_tuple.struct_info, TupleStructInfo):
        raise ctx.error(f"{name}: the arguments must form a tuple, but have struct info "
                        f"{_fmt(arg_tuple.struct_info)}")
    if not isinstance(arg_tuple, (rx.Tuple, rx.Var)):
        raise ctx.error(f"{name}: the arguments must be an in-line tuple (or a variable that can be "
                        f"replaced by one), got a {type(arg_tuple).__name__}")
    if len(call.args) > 2 and not isinstance(call.args[2].struct_info, ShapeStructInfo):
        raise ctx.error(f"{name}: the packed integers must be a shape, but have struct info "
                        f"{_fmt(call.args[2].struct_info)}")
    if len(call.sinfo_args) != 1:
        raise ctx.error(f"{name} takes exactly one output struct info, got {len(call.sinfo_args)}")
    if isinstance(arg_tuple, rx.Tuple):
        return call
    unwrapped: rx.Expr = arg_tuple
    while isinstance(unwrapped, rx.Var):
        bound = ctx.lookup_binding(unwrapped)
        if bound is None:
            break
        unwrapped = bound
    if isinstance(unwrapped, rx.Tuple):
        new_tuple = unwrapped
    else:
        n = len(arg_tuple.struct_info.fields)
        new_tuple = rx.Tuple(tuple(rx.TupleGetItem(arg_tuple, i, span=arg_tuple.span) for i in range(n)),
                             span=arg_tuple.span)
    new_args = list(call.args)
    new_args[1] = new_tuple
    return replace(call, args=tuple(new_args))


def _outputs_of(sinfo: StructInfo) -> List[StructInfo]:
    return list(sinfo.fields) if isinstance(sinfo, TupleStructInfo) else [sinfo]


def _normalize_call_tir_inplace(call: rx.Call, ctx) -> rx.Call:
    """NormalizeCallTIR plus the in-place checks (OP.call_tir_inplace.C1-C3)."""
    from ..analysis.struct_info_ops import can_prove_shape_equal

    out = _normalize_call_tir(call, ctx)
    if out is not call:
        return out
    outputs = _outputs_of(call.sinfo_args[0])
    indices = tuple(call.attrs.get("inplace_indices", ()))
    if len(indices) != len(outputs):
        raise ctx.error(f"{len(indices)} in-place indices given for {len(outputs)} outputs: one per output is needed")
    n_args = len(call.args[1].fields)
    seen = set()
    for i, idx in enumerate(indices):
        if idx < -1 or idx >= n_args:
            raise ctx.error(f"in-place index {i} is {idx}, outside -1..{n_args - 1}")
        if idx != -1:
            if idx in seen:
                raise ctx.error(f"in-place index {idx} is used twice; in-place indices must be unique")
            seen.add(idx)
    if not seen:
        raise ctx.error("no in-place index other than -1 is given (use call_tir instead)")
    fields = call.args[1].fields
    for i_out, i_in in enumerate(indices):
        if i_in == -1:
            continue
        so = outputs[i_out]
        if not isinstance(so, TensorStructInfo) or so.shape is None or so.dtype == "void":
            raise ctx.error(f"output {i_out} is computed in place, so its struct info must be a tensor with "
                            f"a shape and a dtype, got {_fmt(so)}")
        si = fields[i_in].struct_info
        if (not isinstance(si, TensorStructInfo) or so.dtype != si.dtype or si.shape is None
                or not can_prove_shape_equal(si.shape, so.shape, ctx.analyzer)):
            raise ctx.error(f"output {i_out} ({_fmt(so)}) is computed in place in input {i_in} ({_fmt(si)}), "
                            f"which needs identical shape and dtype")
    return call


def prim_func_output_struct_info(func_sinfo: StructInfo, arg_sinfo: StructInfo,
                                 packed_ints_sinfo: Optional[StructInfo], inplace_indices, ctx) -> StructInfo:
    """The output struct info a PrimFunc signature implies for ``call_tir`` arguments (W20 /
    OP.call_tir.C3): inputs, then outputs, then the packed integers; the callee's symbolic
    variables are bound from the inputs and integers."""
    from ..analysis.struct_info_ops import derive_ret_from_arg_sinfos

    if not isinstance(func_sinfo, FuncStructInfo):
        raise ctx.error(f"the callee of R.call_tir must be a function, got struct info {_fmt(func_sinfo)}")
    if func_sinfo.params is None:
        raise ctx.error(f"the callee of R.call_tir must have known parameter types, got {_fmt(func_sinfo)}")
    params = list(func_sinfo.params)
    if not isinstance(arg_sinfo, TupleStructInfo):
        raise ctx.error(f"the arguments of R.call_tir must be a tuple, got {_fmt(arg_sinfo)}")
    n_in = len(arg_sinfo.fields)
    n_int = 0
    if packed_ints_sinfo is not None:
        if not isinstance(packed_ints_sinfo, ShapeStructInfo) or packed_ints_sinfo.ndim == -1:
            raise ctx.error(f"the packed integers of R.call_tir must be a shape of known rank, got "
                            f"{_fmt(packed_ints_sinfo)}")
        n_int = packed_ints_sinfo.ndim
    if n_in + n_int > len(params):
        raise ctx.error(f"R.call_tir passes {n_in} inputs and {n_int} packed integers to a PrimFunc with "
                        f"only {len(params)} parameters")
    dummy_params = params[:n_in] + params[len(params) - n_int:]
    dummy_ret = params[n_in:len(params) - n_int]
    if inplace_indices is not None:
        for i, idx in enumerate(inplace_indices):
            if idx >= 0:
                dummy_ret.insert(i, params[idx])
    out = dummy_ret[0] if len(dummy_ret) == 1 else TupleStructInfo(tuple(dummy_ret))
    dummy_args = list(arg_sinfo.fields)
    for i in range(n_int):
        if packed_ints_sinfo.values is not None:
            dummy_args.append(PrimStructInfo("int64", packed_ints_sinfo.values[i]))
        else:
            dummy_args.append(PrimStructInfo("int64"))
    return derive_ret_from_arg_sinfos(FuncStructInfo(tuple(dummy_params), out), dummy_args, ctx.analyzer,
                                      callee_name="the PrimFunc", span=ctx.span, ctx=ctx)


def _validate_call_tir(call: rx.Call, ctx) -> None:
    """FValidate of the call_tir family (WF.OPVALID.1, OP.call_tir.C3): the output implied by the
    PrimFunc signature must be a (PASS-level) base of ``out_sinfo``."""
    from ..analysis.struct_info_ops import is_base_of

    packed = call.args[2].struct_info if len(call.args) > 2 else None
    inplace = call.attrs.get("inplace_indices") if call.op.name == "relax.call_tir_inplace" else None
    implied = prim_func_output_struct_info(call.args[0].struct_info, call.args[1].struct_info, packed,
                                           inplace, ctx)
    explicit = call.sinfo_args[0]
    if not is_base_of(implied, explicit, ctx.analyzer):
        raise ctx.error(f"The `out_sinfo` argument for R.call_tir must be compatible with the PrimFunc: its "
                        f"signature implies the output {_fmt(implied)}, but out_sinfo is {_fmt(explicit)}")


def _parse_call_tir_like(opdef: OpDef, args, kwargs, span, *, inplace: bool = False, grad: bool = False):
    names = ["gvar", "args"]
    if inplace:
        names.append("inplace_indices")
    names.append("out_sinfo")
    if grad:
        names += ["te_grad_name", "te_grad_kwargs"]
    names.append("tir_vars")
    defaults = {"tir_vars": None, "te_grad_kwargs": None}
    b = _bind(opdef, names, args, kwargs, span, defaults)
    gvar = _expr(b["gvar"], "gvar", span)
    call_args = [gvar, _arg_tuple(b["args"], "args", span)]
    tv = _tir_vars(b["tir_vars"], span)
    if tv is not None:
        call_args.append(tv)
    attrs: Dict[str, Any] = {}
    if inplace:
        attrs["inplace_indices"] = _int_list(b["inplace_indices"], "inplace_indices", span)
    if grad:
        attrs["te_grad_name"] = _str_value(b["te_grad_name"], "te_grad_name", span)
        kw = b["te_grad_kwargs"]
        attrs["te_grad_kwargs"] = Attrs(kw or {})
    return rx.Call(opdef.op, tuple(call_args), Attrs(attrs), (_out_sinfo(b["out_sinfo"], span),), span=span)






# ---------------------------------------------------------------------------------------------------
# packed-function calls
# ---------------------------------------------------------------------------------------------------


def _infer_call_dps_packed(call: rx.Call, ctx) -> StructInfo:
    if len(call.sinfo_args) != 1:
        raise ctx.error(f"R.call_dps_packed takes exactly one output struct info, got {len(call.sinfo_args)}")
    return call.sinfo_args[0]


def _parse_call_dps_packed(opdef, args, kwargs, span):
    b = _bind(opdef, ["func", "args", "out_sinfo"], args, kwargs, span)
    return rx.Call(opdef.op, (_callee(b["func"], "func", span), _arg_tuple(b["args"], "args", span)), Attrs(),
                   (_out_sinfo(b["out_sinfo"], span),), span=span)




def _infer_call_pure_packed(call: rx.Call, ctx) -> StructInfo:
    """Like a call of the opaque callee, declared pure (OP.call_pure_packed.C1)."""
    if not call.args:
        raise ctx.error("R.call_pure_packed needs at least the callee")
    return _opaque_callee_ret(call, ctx, "call_pure_packed")


def _infer_call_inplace_packed(call: rx.Call, ctx) -> StructInfo:
    """OP.call_inplace_packed.C1-C4."""
    from ..analysis.struct_info_ops import is_base_of

    if len(call.args) <= 1:
        raise ctx.error("R.call_inplace_packed needs the callee and at least one argument (use "
                        "R.call_pure_packed for a call without arguments)")
    ret = _opaque_callee_ret(call, ctx, "call_inplace_packed")
    indices = tuple(call.attrs.get("inplace_indices", ()))
    n_args = len(call.args) - 1
    seen = set()
    for i, idx in enumerate(indices):
        if idx < -1 or idx >= n_args:
            raise ctx.error(f"in-place index {i} is {idx}, outside -1..{n_args - 1}")
        if idx != -1:
            if idx in seen:
                raise ctx.error(f"in-place index {idx} is used twice; in-place indices must be unique")
            seen.add(idx)
    if not seen:
        raise ctx.error("no in-place index other than -1 is given (use call_pure_packed instead)")
    if len(indices) == 1:
        a = call.args[indices[0] + 1].struct_info
        if not is_base_of(ret, a, ctx.analyzer):
            raise ctx.error(f"the result struct info {_fmt(ret)} does not match in-place argument "
                            f"{indices[0]} ({_fmt(a)})")
    else:
        if not isinstance(ret, TupleStructInfo):
            raise ctx.error(f"several in-place indices need a tuple result, got {_fmt(ret)}")
        if len(ret.fields) < len(indices):
            raise ctx.error(f"{len(indices)} in-place indices given but the derived StructInfo has only "
                            f"{len(ret.fields)} fields")
        for i, idx in enumerate(indices):
            if idx == -1:
                continue
            a = call.args[idx + 1].struct_info
            if not is_base_of(ret.fields[i], a, ctx.analyzer):
                raise ctx.error(f"the result field {i} ({_fmt(ret.fields[i])}) does not match in-place "
                                f"argument {idx} ({_fmt(a)})")
    return ret


def _parse_packed_varargs(opdef, args, kwargs, span, *, inplace: bool):
    names = ["func", "args"] + (["inplace_indices"] if inplace else []) + ["sinfo_args"]
    b = _bind(opdef, names, args, kwargs, span, varargs="args")
    callee = _callee(b["func"], "func", span)
    if isinstance(callee, rx.ExternFunc):
        pass
    elif not isinstance(callee, (rx.GlobalVar, rx.Var)):
        raise ParseError(f"{opdef.script}: func must be a string, an ExternFunc or a GlobalVar", span)
    call_args = [callee] + [convert_to_expr(a, "args", span) for a in b["args"]]
    attrs = {}
    if inplace:
        attrs["inplace_indices"] = _int_list(b["inplace_indices"], "inplace_indices", span)
    return rx.Call(opdef.op, tuple(call_args), Attrs(attrs), tuple(_sinfo_args(b["sinfo_args"], span)), span=span)






def _infer_call_builtin_with_ctx(call: rx.Call, ctx) -> StructInfo:
    if not call.sinfo_args:
        return VOID
    if len(call.sinfo_args) != 1:
        raise ctx.error(f"R.call_builtin_with_ctx takes at most one output struct info, got {len(call.sinfo_args)}")
    return call.sinfo_args[0]


def _parse_call_builtin_with_ctx(opdef, args, kwargs, span):
    b = _bind(opdef, ["func", "args", "sinfo_args"], args, kwargs, span, {"sinfo_args": None})
    return rx.Call(opdef.op, (_callee(b["func"], "func", span), _arg_tuple(b["args"], "args", span)), Attrs(),
                   tuple(_sinfo_args(b["sinfo_args"], span)), span=span)




# ---------------------------------------------------------------------------------------------------
# closures
# ---------------------------------------------------------------------------------------------------


def _parse_make_closure(opdef, args, kwargs, span):
    b = _bind(opdef, ["func", "args"], args, kwargs, span)
    return rx.Call(opdef.op, (_expr(b["func"], "func", span), _arg_tuple(b["args"], "args", span)), span=span)


def _parse_invoke_closure(opdef, args, kwargs, span):
    b = _bind(opdef, ["closure", "args", "sinfo_args"], args, kwargs, span)
    return rx.Call(opdef.op, (_expr(b["closure"], "closure", span), _arg_tuple(b["args"], "args", span)),
                   Attrs(), tuple(_sinfo_args(b["sinfo_args"], span)), span=span)




# ---------------------------------------------------------------------------------------------------
# print / assert
# ---------------------------------------------------------------------------------------------------


def _infer_print(call: rx.Call, ctx) -> StructInfo:
    if not call.args or not isinstance(call.args[0], rx.StringImm):
        raise ctx.error("R.print expects its first argument to be the format string (an R.str)")
    return VOID


def _parse_print(opdef, args, kwargs, span):
    b = _bind(opdef, ["values", "format"], args, kwargs, span, {"format": ""}, varargs="values")
    vals = [_expr(v, "values", span) for v in b["values"]]
    return rx.Call(opdef.op, tuple([_format_expr(b["format"], span)] + vals), span=span)




def is_bool_struct_info(si: StructInfo, permit_unknown_rank: bool = True, permit_unknown_dtype: bool = True) -> bool:
    """TVM's ``IsBoolStructInfo``: a bool scalar tensor or prim (unknown rank / dtype permitted)."""
    if isinstance(si, TensorStructInfo):
        dtype, ndim = si.dtype, si.ndim
    elif isinstance(si, PrimStructInfo):
        dtype, ndim = si.dtype, 0
    else:
        return False
    ok_dtype = dtype == "bool" or (permit_unknown_dtype and dtype == "void")
    ok_rank = ndim == 0 or (permit_unknown_rank and ndim == -1)
    return ok_dtype and ok_rank


def _infer_assert(call: rx.Call, ctx) -> StructInfo:
    """The condition must be a boolean scalar (OP.assert_op.C1)."""
    if not call.args:
        raise ctx.error("R.assert_op needs a condition")
    si = call.args[0].struct_info
    if not is_bool_struct_info(si):
        raise ctx.error(f"the condition of R.assert_op must be a boolean scalar, got {_fmt(si)}")
    if len(call.args) < 2 or not isinstance(call.args[1], rx.StringImm):
        raise ctx.error("R.assert_op expects its second argument to be the format string (an R.str)")
    return VOID


def _parse_assert(opdef, args, kwargs, span):
    if not args and "condition" not in kwargs:
        raise ParseError("R.assert_op missing required argument 'condition'", span)
    kwargs = dict(kwargs)
    cond = args[0] if args else kwargs.pop("condition")
    rest = list(args[1:])
    fmt = kwargs.pop("format", "")
    if "format_args" in kwargs:
        if rest:
            raise ParseError("R.assert_op got multiple values for argument 'format_args'", span)
        fa = kwargs.pop("format_args")
        rest = [] if fa is None else (list(fa) if isinstance(fa, (list, tuple)) else [fa])
    if kwargs:
        raise ParseError(f"R.assert_op got an unexpected keyword argument '{next(iter(kwargs))}'", span)
    if len(rest) == 1 and isinstance(rest[0], (list, tuple)):
        rest = list(rest[0])
    cond_e = cond if isinstance(cond, rx.Expr) else convert_to_expr(cond, "condition", span)
    vals = [_expr(v, "format_args", span) for v in rest]
    return rx.Call(opdef.op, tuple([cond_e, _format_expr(fmt, span)] + vals), span=span)




# ---------------------------------------------------------------------------------------------------
# shapes, tensors, devices
# ---------------------------------------------------------------------------------------------------


def _infer_shape_of(call: rx.Call, ctx) -> StructInfo:
    """OP.shape_of.C1-C2."""
    _require_args(call, ctx, 1, "shape_of")
    si = call.args[0].struct_info
    if not isinstance(si, TensorStructInfo):
        raise ctx.error(f"R.shape_of needs a tensor argument, got {_fmt(si)} (match_cast it first)")
    if si.ndim == -1:
        return ShapeStructInfo(ndim=-1)
    if not isinstance(si.shape, rx.ShapeExpr):
        return ShapeStructInfo(ndim=si.ndim)
    return ShapeStructInfo(si.shape.values)


def _infer_tensor_to_shape(call: rx.Call, ctx) -> StructInfo:
    """OP.tensor_to_shape.C1-C2: a 1-D tensor; the rank is its static length when known."""
    _require_args(call, ctx, 1, "tensor_to_shape")
    si = call.args[0].struct_info
    if not isinstance(si, TensorStructInfo):
        raise ctx.error(f"R.tensor_to_shape needs a tensor argument, got {_fmt(si)}")
    if si.ndim != 1:
        raise ctx.error(f"R.tensor_to_shape needs a 1-D tensor, got {_fmt(si)}")
    vals = si.shape_values
    if vals is not None and isinstance(vals[0], P.IntImm):
        return ShapeStructInfo(ndim=vals[0].value)
    return ShapeStructInfo(ndim=-1)


def _infer_shape_to_tensor(call: rx.Call, ctx) -> StructInfo:
    """OP.shape_to_tensor.C1-C2: ``R.Tensor((ndim,), "int64")``; as in TVM 0.25 an unknown rank gives
    the static shape ``(-1,)``."""
    _require_args(call, ctx, 1, "shape_to_tensor")
    si = call.args[0].struct_info
    if not isinstance(si, ShapeStructInfo):
        raise ctx.error(f"R.shape_to_tensor needs a shape argument, got {_fmt(si)}")
    return TensorStructInfo(rx.ShapeExpr((P.IntImm(si.ndim, "int64"),)), "int64")


def _infer_null_value(call: rx.Call, ctx) -> StructInfo:
    _require_args(call, ctx, 0, "null_value")
    return ObjectStructInfo()


def _infer_object(call: rx.Call, ctx) -> StructInfo:
    return ObjectStructInfo()


def _infer_void(call: rx.Call, ctx) -> StructInfo:
    return VOID


def _infer_invoke_closure(call: rx.Call, ctx) -> StructInfo:
    return _sinfo_args_result(call)


def _infer_hint_on_device(call: rx.Call, ctx) -> StructInfo:
    _require_args(call, ctx, 1, "hint_on_device")
    return _tensor_input(call, ctx, "relax.hint_on_device")


def _parse_hint_on_device(opdef, args, kwargs, span):
    b = _bind(opdef, ["data", "dst_vdevice", "memory_scope"], args, kwargs, span, {"memory_scope": "global"})
    dev_type, index = parse_device(b["dst_vdevice"], span)
    scope = _str_value(b["memory_scope"], "memory_scope", span)
    return rx.Call(opdef.op, (_expr(b["data"], "data", span),),
                   Attrs({"device_type": dev_type, "index": index, "memory_scope": scope}), span=span)


def _print_hint_on_device(call: rx.Call, p) -> str:
    a = call.attrs
    return (f"R.hint_on_device({p.expr(call.args[0])}, R.device(device_type={a.get('device_type')}, "
            f"index={a.get('index')}), {p.attr(a.get('memory_scope', 'global'))})")


def _infer_to_vdevice(call: rx.Call, ctx) -> StructInfo:
    _require_args(call, ctx, 1, "to_vdevice")
    si = _tensor_input(call, ctx, "relax.to_vdevice")
    dev = call.attrs.get("dst_vdevice")
    if not isinstance(dev, VDevice):
        raise ctx.error(f"to_vdevice needs a VDevice attribute dst_vdevice, got {dev!r}")
    if si.shape is not None:
        return TensorStructInfo(si.shape, si.dtype, vdevice=dev)
    return TensorStructInfo(None, si.dtype, si.ndim, dev)


def _parse_to_vdevice(opdef, args, kwargs, span):
    b = _bind(opdef, ["data", "dst_vdevice"], args, kwargs, span)
    return rx.Call(opdef.op, (_expr(b["data"], "data", span),),
                   Attrs({"dst_vdevice": parse_vdevice(b["dst_vdevice"], span)}), span=span)




# ---------------------------------------------------------------------------------------------------
# memory / VM builtins
# ---------------------------------------------------------------------------------------------------


def _infer_builtin_alloc_tensor(call: rx.Call, ctx) -> StructInfo:
    """OP.builtin.alloc_tensor.C1-C2: ``R.Tensor(shape, dtype)`` on the module's vdevice ``index``."""
    _require_args(call, ctx, 4, "relax.builtin.alloc_tensor")
    if not isinstance(call.args[0], rx.ShapeExpr):
        raise ctx.error(f"relax.builtin.alloc_tensor: the shape must be a ShapeExpr, but got a "
                        f"{type(call.args[0]).__name__}")
    if not isinstance(call.args[1], rx.DataTypeImm):
        raise ctx.error(f"relax.builtin.alloc_tensor: the dtype must be a DataTypeImm, but got a "
                        f"{type(call.args[1]).__name__}")
    dev = ctx.vdevice(_vdevice_index(call.args[2]))
    return TensorStructInfo(call.args[0], call.args[1].value, vdevice=dev)


def _infer_memory_alloc_tensor(call: rx.Call, ctx) -> StructInfo:
    """OP.memory.alloc_tensor.C1-C2."""
    if len(call.args) not in (4, 5):
        raise ctx.error(f"relax.memory.alloc_tensor expects 4 or 5 arguments, but got {len(call.args)}")
    shape = call.args[2]
    if not isinstance(shape.struct_info, ShapeStructInfo):
        raise ctx.error(f"relax.memory.alloc_tensor: the shape must be an expression of ShapeStructInfo, "
                        f"but has {_fmt(shape.struct_info)}")
    dtype = _dtype_of_imm(call.args[3])
    dev = ctx.vdevice(_vdevice_index(call.args[4])) if len(call.args) == 5 else None
    return _tensor_of_shape(shape, dtype, dev)


def _tensor_of_shape(shape: rx.Expr, dtype: str, dev) -> TensorStructInfo:
    if isinstance(shape, (rx.ShapeExpr, rx.Var)):
        return TensorStructInfo(shape, dtype, vdevice=dev)
    ssi = shape.struct_info
    if ssi.values is not None:
        return TensorStructInfo(rx.ShapeExpr(ssi.values), dtype, vdevice=dev)
    return TensorStructInfo(None, dtype, ssi.ndim, dev)


def _infer_vm_alloc_tensor(call: rx.Call, ctx) -> StructInfo:
    """OP.vm.alloc_tensor.C1-C2."""
    if len(call.args) != 5:
        raise ctx.error(f"relax.vm.alloc_tensor expects 5 arguments, but got {len(call.args)}")
    dtype = _dtype_of_imm(call.args[3])
    dev = ctx.vdevice(_vdevice_index(call.args[4]))
    shape = call.args[2]
    if isinstance(shape, rx.ShapeExpr):
        return TensorStructInfo(shape, dtype, vdevice=dev)
    ssi = shape.struct_info
    if isinstance(ssi, ShapeStructInfo):
        if ssi.values is not None:
            return TensorStructInfo(rx.ShapeExpr(ssi.values), dtype, vdevice=dev)
        return TensorStructInfo(None, dtype, ssi.ndim, dev)
    return TensorStructInfo(None, dtype, -1, dev)


def _positional_parser(spec):
    """A parse_call from ``[(name, converter, default), ...]`` (converter(v, what, span))."""

    def parse(opdef, args, kwargs, span):
        names = [s[0] for s in spec]
        defaults = {s[0]: s[2] for s in spec if s[2] is not REQUIRED}
        kwargs = dict(kwargs)
        # TVM prints ``sinfo_args=`` for such calls when built with explicit struct info (e.g. by
        # CallTIRRewrite); they are kept on the call
        sinfo = _sinfo_args(kwargs.pop("sinfo_args", None), span)
        b = _bind(opdef, names, args, kwargs, span, defaults)
        return rx.Call(opdef.op, tuple(conv(b[n], n, span) for n, conv, _ in spec), sinfo_args=tuple(sinfo),
                       span=span)

    return parse


def _conv_expr(v, what, span):
    return convert_to_expr(v, what, span)


# ---------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------

_CAT = "core"


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _reg(**kw) -> OpDef:
    kw.setdefault("check", CHECKS.get(kw["name"]))
    kw.setdefault("category", _CAT)
    kw.setdefault("legalize_exempt", _NOT_LEGALIZED)
    d = OpDef(**kw)
    OPS.append(d)
    return d


_CALL_TIR_DOC = "Call a TensorIR PrimFunc in destination-passing style (spec OP.call_tir)."

_reg(name="relax.call_tir", script="R.call_tir",
     params=(arg("gvar"), arg("args", "tuple"), _sinfo_param("out_sinfo"), arg("tir_vars", "shape", None)),
     infer=_infer_call_tir, normalize=_normalize_call_tir, validate=_validate_call_tir, purity=True,
     parse_call=_parse_call_tir_like, doc=_CALL_TIR_DOC,
     legalize_exempt="already lowered: calls a PrimFunc")
_reg(name="relax.call_tir_inplace", script="R.call_tir_inplace",
     params=(arg("gvar"), arg("args", "tuple"), attr("inplace_indices", "ints"), _sinfo_param("out_sinfo"),
             arg("tir_vars", "shape", None)),
     infer=_infer_call_tir, normalize=_normalize_call_tir_inplace, validate=_validate_call_tir, purity=True,
     parse_call=lambda o, a, k, s: _parse_call_tir_like(o, a, k, s, inplace=True),
     doc="call_tir whose outputs may alias inputs (OP.call_tir_inplace).",
     legalize_exempt="already lowered: calls a PrimFunc")
_reg(name="relax.call_tir_with_grad", script="R.call_tir_with_grad",
     params=(arg("gvar"), arg("args", "tuple"), _sinfo_param("out_sinfo"), attr("te_grad_name", "str"),
             attr("te_grad_kwargs", "any", None), arg("tir_vars", "shape", None)),
     infer=_infer_call_tir, normalize=_normalize_call_tir, validate=_validate_call_tir, purity=True,
     parse_call=lambda o, a, k, s: _parse_call_tir_like(o, a, k, s, grad=True),
     doc="call_tir carrying the name of its gradient (OP.call_tir_with_grad).",
     notes="TVM 0.25's printer drops tir_vars of this op; relax-ref prints them",
     legalize_exempt="already lowered: calls a PrimFunc")
_reg(name="relax.call_dps_packed", script="R.call_dps_packed",
     params=(arg("func"), arg("args", "tuple"), _sinfo_param("out_sinfo")),
     infer=_infer_call_dps_packed, normalize=_normalize_wrap_args, purity=True,
     parse_call=_parse_call_dps_packed,
     doc="Call a packed function in destination-passing style (OP.call_dps_packed).",
     extra={"wf_normalized_check": False})
_reg(name="relax.call_pure_packed", script="R.call_pure_packed",
     params=(arg("func"), arg("args", "expr"), _sinfo_param("sinfo_args")),
     infer=_infer_call_pure_packed, purity=True,
     parse_call=lambda o, a, k, s: _parse_packed_varargs(o, a, k, s, inplace=False),
     doc="A packed call declared pure (OP.call_pure_packed).")
_reg(name="relax.call_inplace_packed", script="R.call_inplace_packed",
     params=(arg("func"), arg("args", "expr"), attr("inplace_indices", "ints"), _sinfo_param("sinfo_args")),
     infer=_infer_call_inplace_packed, purity=True,
     parse_call=lambda o, a, k, s: _parse_packed_varargs(o, a, k, s, inplace=True),
     doc="A pure packed call mutating some arguments (OP.call_inplace_packed).")
_reg(name="relax.call_builtin_with_ctx", script="R.call_builtin_with_ctx",
     params=(arg("func"), arg("args", "tuple"), _sinfo_param("sinfo_args", None)),
     infer=_infer_call_builtin_with_ctx, normalize=_normalize_wrap_args, purity=False,
     parse_call=_parse_call_builtin_with_ctx,
     doc="Call a VM builtin with the VM context (OP.call_builtin_with_ctx).",
     extra={"wf_normalized_check": False})
_reg(name="relax.shape_of", script="R.shape_of", params=(arg("expr"),), infer=_infer_shape_of, purity=True,
     doc="The shape of a tensor (OP.shape_of).")
_reg(name="relax.null_value", script="R.null_value", params=(), infer=_infer_null_value, purity=True,
     doc="The null object (OP.null_value).")
_reg(name="relax.print", script="R.print", params=(arg("values", "expr"), attr("format", "str", "")),
     infer=_infer_print, purity=False, parse_call=_parse_print,
     doc="Print values (impure; OP.print).")
_reg(name="relax.assert_op", script="R.assert_op",
     params=(arg("condition"), arg("format_args", "expr", None), attr("format", "str", "")),
     infer=_infer_assert, purity=False, parse_call=_parse_assert,
     doc="Abort unless the boolean scalar condition holds (impure; OP.assert_op).")
_reg(name="relax.make_closure", script="R.make_closure", params=(arg("func"), arg("args", "tuple")),
     infer=_infer_object, normalize=_normalize_wrap_args, purity=True, parse_call=_parse_make_closure,
     doc="A closure of a global function over captured values (OP.make_closure).",
     extra={"wf_normalized_check": False})
_reg(name="relax.invoke_closure", script="R.invoke_closure",
     params=(arg("closure"), arg("args", "tuple"), _sinfo_param("sinfo_args")),
     infer=_infer_invoke_closure, normalize=_normalize_wrap_args, purity=False,
     parse_call=_parse_invoke_closure,
     doc="Call a closure (impure; OP.invoke_closure).", extra={"wf_normalized_check": False})
_reg(name="relax.invoke_pure_closure", script="R.invoke_pure_closure",
     params=(arg("closure"), arg("args", "tuple"), _sinfo_param("sinfo_args")),
     infer=_infer_invoke_closure, normalize=_normalize_wrap_args, purity=True,
     parse_call=_parse_invoke_closure,
     doc="Call a closure declared pure (OP.invoke_pure_closure).", extra={"wf_normalized_check": False})
_reg(name="relax.tensor_to_shape", script="R.tensor_to_shape", params=(arg("expr"),),
     infer=_infer_tensor_to_shape, purity=True, doc="A 1-D int64 tensor as a shape (OP.tensor_to_shape).")
_reg(name="relax.shape_to_tensor", script="R.shape_to_tensor", params=(arg("expr"),),
     infer=_infer_shape_to_tensor, purity=True, doc="A shape as a 1-D int64 tensor (OP.shape_to_tensor).",
     notes="unknown-rank input gives R.Tensor((-1,), \"int64\") as in TVM 0.25")
_reg(name="relax.hint_on_device", script="R.hint_on_device",
     params=(arg("data"), attr("dst_vdevice", "any"), attr("memory_scope", "str", "global")),
     infer=_infer_hint_on_device, purity=True, parse_call=_parse_hint_on_device,
     print_call=_print_hint_on_device, doc="Device placement hint (OP.hint_on_device).")
_reg(name="relax.to_vdevice", script="R.to_vdevice", params=(arg("data"), attr("dst_vdevice", "any")),
     infer=_infer_to_vdevice, purity=True, parse_call=_parse_to_vdevice,
     doc="Copy a tensor to a virtual device (OP.to_vdevice).")
_reg(name="relax.builtin.alloc_tensor", script="R.builtin.alloc_tensor",
     params=(arg("shape"), arg("dtype"), arg("runtime_device_index"), arg("storage_scope", "expr", "global")),
     infer=_infer_builtin_alloc_tensor, purity=True,
     parse_call=_positional_parser([("shape", _conv_expr, REQUIRED), ("dtype", _dtype_imm, REQUIRED),
                                    ("runtime_device_index", _prim_value, REQUIRED),
                                    ("storage_scope", _string_imm, "global")]),
     doc="Allocate a tensor (OP.builtin.alloc_tensor).")
_reg(name="relax.memory.alloc_storage", script="R.memory.alloc_storage",
     params=(arg("size"), arg("virtual_device_index"), arg("storage_scope"), arg("dtype")),
     infer=_infer_object, purity=True,
     parse_call=_positional_parser([("size", _conv_expr, REQUIRED),
                                    ("virtual_device_index", _prim_value, REQUIRED),
                                    ("storage_scope", _string_imm, REQUIRED), ("dtype", _dtype_imm, REQUIRED)]),
     doc="Allocate a storage block (OP.memory.alloc_storage).")
_reg(name="relax.memory.alloc_tensor", script="R.memory.alloc_tensor",
     params=(arg("storage"), arg("offset"), arg("shape"), arg("dtype"), arg("runtime_device_ind", "expr", 0)),
     infer=_infer_memory_alloc_tensor, purity=True,
     parse_call=_positional_parser([("storage", _conv_expr, REQUIRED), ("offset", _prim_value, REQUIRED),
                                    ("shape", _conv_expr, REQUIRED), ("dtype", _dtype_imm, REQUIRED),
                                    ("runtime_device_ind", _prim_value, 0)]),
     doc="A tensor inside a storage block (OP.memory.alloc_tensor).")
_reg(name="relax.memory.kill_storage", script="R.memory.kill_storage", params=(arg("storage"),),
     infer=_infer_void, purity=False, doc="Free a storage block (impure; OP.memory.kill_storage).")
_reg(name="relax.memory.kill_tensor", script="R.memory.kill_tensor", params=(arg("tensor"),),
     infer=_infer_void, purity=False, doc="Free a tensor (impure; OP.memory.kill_tensor).")
_reg(name="relax.vm.alloc_storage", script="R.vm.alloc_storage",
     params=(arg("shape"), arg("runtime_device_index"), arg("dtype"), arg("storage_scope", "expr", "global")),
     infer=_infer_object, purity=True,
     parse_call=_positional_parser([("shape", _conv_expr, REQUIRED),
                                    ("runtime_device_index", _prim_value, REQUIRED),
                                    ("dtype", _dtype_imm, REQUIRED), ("storage_scope", _string_imm, "global")]),
     doc="VM storage allocation (OP.vm.alloc_storage).")
_reg(name="relax.vm.alloc_tensor", script="R.vm.alloc_tensor",
     params=(arg("storage"), arg("offset"), arg("shape"), arg("dtype"), arg("runtime_device_ind", "expr", 0)),
     infer=_infer_vm_alloc_tensor, purity=True,
     parse_call=_positional_parser([("storage", _conv_expr, REQUIRED), ("offset", _prim_value, REQUIRED),
                                    ("shape", _conv_expr, REQUIRED), ("dtype", _dtype_imm, REQUIRED),
                                    ("runtime_device_ind", _prim_value, 0)]),
     doc="VM tensor allocation inside a storage (OP.vm.alloc_tensor).")
_reg(name="relax.vm.kill_object", script="R.vm.kill_object", params=(arg("obj"),), infer=_infer_void,
     purity=False, doc="Release a VM object (impure; OP.vm.kill_object).")
_reg(name="relax.vm.call_tir_dyn", script="R.vm.call_tir_dyn", params=(arg("func"), arg("args", "tuple")),
     infer=_infer_void, purity=False, parse_call=_parse_make_closure,
     doc="Call a PrimFunc with outputs and a trailing shape in the argument tuple (impure; OP.vm.call_tir_dyn).")

__all__ = [
    "convert_to_expr", "parse_vdevice", "parse_device", "is_bool_struct_info", "prim_func_output_struct_info",
    "VOID",
]
