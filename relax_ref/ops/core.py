"""Core Relax operators: calling conventions, closures, shape/tensor conversion, printing and
assertions, device placement and the memory/VM builtins (spec pages ``spec/ops/<name>.md``).

Struct-info inference, purity and normalization follow TVM 0.25 (``src/relax/op/op.cc``); script
spellings and parameter names follow ``tvm.relax.op`` (``R.call_tir(gvar, args, out_sinfo,
tir_vars=None)`` ...) and the way TVM prints each call, so text TVM prints parses identically.

This module holds the family's table :data:`OPS` and the operators other than calls; the ``call_tir``
family and the packed-function calls live in :mod:`.core_calls`, the script-argument conversions and
inference helpers in :mod:`.core_util`, the run-time checks in :mod:`.core_checks`.

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

from typing import List

from ..errors import ParseError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.attrs import Attrs
from ..ir.struct_info import (
    ObjectStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, VDevice,
)
from .core_calls import CALL_OPS, normalize_wrap_args, prim_func_output_struct_info
from .core_pyfunc import CALL_PY_FUNC
from .core_util import (
    VOID, args_tuple_expr, as_expr, bind_script_args, conv_expr, convert_to_expr, core_op, dtype_imm, tensor_dtype_of_imm,
    fmt_sinfo, format_expr, parse_device, parse_vdevice, positional_parser, prim_value_arg, require_args,
    sinfo_args_arg, sinfo_args_result, sinfo_param, str_value, string_imm, tensor_input, vdevice_index,
)
from .opdef import OpDef, REQUIRED, arg, attr


# ---------------------------------------------------------------------------------------------------
# closures
# ---------------------------------------------------------------------------------------------------


def _parse_make_closure(opdef, args, kwargs, span):
    b = bind_script_args(opdef, ["func", "args"], args, kwargs, span)
    return rx.Call(opdef.op, (as_expr(b["func"], "func", span), args_tuple_expr(b["args"], "args", span)), span=span)


def _parse_invoke_closure(opdef, args, kwargs, span):
    """CALL.CLOSURE.3: ``sinfo_args`` is required; ``None`` is the missing argument, a parse error (TVM
    refuses it too), an empty list is no struct-info arguments (printed as ``sinfo_args=[]``, TEXT.CALL.1)."""
    b = bind_script_args(opdef, ["closure", "args", "sinfo_args"], args, kwargs, span)
    if b["sinfo_args"] is None:
        raise ParseError(f"{opdef.script} missing required argument 'sinfo_args' (None given)", span)
    return rx.Call(opdef.op, (as_expr(b["closure"], "closure", span), args_tuple_expr(b["args"], "args", span)),
                   Attrs(), tuple(sinfo_args_arg(b["sinfo_args"], span)), span=span)


# ---------------------------------------------------------------------------------------------------
# print / assert
# ---------------------------------------------------------------------------------------------------


def _infer_print(call: rx.Call, ctx) -> StructInfo:
    if not call.args or not isinstance(call.args[0], rx.StringImm):
        raise ctx.error("R.print expects its first argument to be the format string (an R.str)")
    return VOID


def _parse_print(opdef, args, kwargs, span):
    b = bind_script_args(opdef, ["values", "format"], args, kwargs, span, {"format": ""}, varargs="values")
    vals = [as_expr(v, "values", span) for v in b["values"]]
    return rx.Call(opdef.op, tuple([format_expr(b["format"], span)] + vals), span=span)


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
        raise ctx.error(f"the condition of R.assert_op must be a boolean scalar, got {fmt_sinfo(si)}")
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
    vals = [as_expr(v, "format_args", span) for v in rest]
    return rx.Call(opdef.op, tuple([cond_e, format_expr(fmt, span)] + vals), span=span)


# ---------------------------------------------------------------------------------------------------
# shapes, tensors, devices
# ---------------------------------------------------------------------------------------------------


def _infer_shape_of(call: rx.Call, ctx) -> StructInfo:
    """OP.shape_of.C1-C2."""
    require_args(call, ctx, 1, "shape_of")
    si = call.args[0].struct_info
    if not isinstance(si, TensorStructInfo):
        raise ctx.error(f"R.shape_of needs a tensor argument, got {fmt_sinfo(si)} (match_cast it first)")
    if si.ndim == -1:
        return ShapeStructInfo(ndim=-1)
    if not isinstance(si.shape, rx.ShapeExpr):
        return ShapeStructInfo(ndim=si.ndim)
    return ShapeStructInfo(si.shape.values)


def _infer_tensor_to_shape(call: rx.Call, ctx) -> StructInfo:
    """OP.tensor_to_shape.C1-C2: a 1-D tensor; the rank is its static length when known."""
    require_args(call, ctx, 1, "tensor_to_shape")
    si = call.args[0].struct_info
    if not isinstance(si, TensorStructInfo):
        raise ctx.error(f"R.tensor_to_shape needs a tensor argument, got {fmt_sinfo(si)}")
    if si.ndim != 1:
        raise ctx.error(f"R.tensor_to_shape needs a 1-D tensor, got {fmt_sinfo(si)}")
    vals = si.shape_values
    if vals is not None and isinstance(vals[0], P.IntImm):
        return ShapeStructInfo(ndim=vals[0].value)
    return ShapeStructInfo(ndim=-1)


def _infer_shape_to_tensor(call: rx.Call, ctx) -> StructInfo:
    """OP.shape_to_tensor.C1-C2: ``R.Tensor((ndim,), "int64")``; an unknown rank gives
    ``R.Tensor(ndim=1, dtype="int64")`` (TVM's static shape ``(-1,)`` is no extent, DIV.40)."""
    require_args(call, ctx, 1, "shape_to_tensor")
    si = call.args[0].struct_info
    if not isinstance(si, ShapeStructInfo):
        raise ctx.error(f"R.shape_to_tensor needs a shape argument, got {fmt_sinfo(si)}")
    if si.ndim < 0:
        return TensorStructInfo(None, "int64", 1)
    return TensorStructInfo(rx.ShapeExpr((P.IntImm(si.ndim, "int64"),)), "int64")


def _legalize_shape_to_tensor(call: rx.Call, ctx):
    """(PASS.RELEASE.1) TVM 0.27's form: a shape of known values becomes a kernel storing them
    (``if_then_else`` over the index, its symbolic values as scalar parameters), another one the
    packed builtin ``relax.run.shape_to_tensor`` (CALL.PACKED.8); TVM 0.25 keeps the call."""
    if not ctx.release.legalize_shape_to_tensor:
        return None
    shape = call.args[0]
    values = shape.values if isinstance(shape, rx.ShapeExpr) else getattr(shape.struct_info, "values", None)
    if values is None:
        return rx.Call(rx.ExternFunc("relax.run.shape_to_tensor"), call.args, Attrs(), (call.struct_info,),
                       span=call.span)
    from . import te

    symbolic = [v for v in values if not isinstance(v, P.IntImm)]

    def te_shape_to_tensor(*sym):
        sym = list(sym)
        resolved = [v if isinstance(v, P.IntImm) else sym.pop(0) for v in values]

        def fcompute(i):
            result = te.const(0, "int64")
            for idx in range(len(resolved) - 1, -1, -1):
                result = te.if_then_else(te.eq(i, idx), te.cast("int64", resolved[idx]), result)
            return result

        return te.compute((len(resolved),), fcompute, name="shape_to_tensor")

    return ctx.call_te(te_shape_to_tensor, *symbolic, primfunc_name_hint="shape_to_tensor")


def _infer_null_value(call: rx.Call, ctx) -> StructInfo:
    require_args(call, ctx, 0, "null_value")
    return ObjectStructInfo()


def _infer_object(call: rx.Call, ctx) -> StructInfo:
    return ObjectStructInfo()


def _infer_void(call: rx.Call, ctx) -> StructInfo:
    return VOID


def _infer_invoke_closure(call: rx.Call, ctx) -> StructInfo:
    return sinfo_args_result(call)


def _infer_hint_on_device(call: rx.Call, ctx) -> StructInfo:
    require_args(call, ctx, 1, "hint_on_device")
    return tensor_input(call, ctx, "relax.hint_on_device")


def _parse_hint_on_device(opdef, args, kwargs, span):
    b = bind_script_args(opdef, ["data", "dst_vdevice", "memory_scope"], args, kwargs, span, {"memory_scope": "global"})
    dev_type, index = parse_device(b["dst_vdevice"], span)
    scope = str_value(b["memory_scope"], "memory_scope", span)
    return rx.Call(opdef.op, (as_expr(b["data"], "data", span),),
                   Attrs({"device_type": dev_type, "index": index, "memory_scope": scope}), span=span)


def _print_hint_on_device(call: rx.Call, p) -> str:
    a = call.attrs
    return (f"R.hint_on_device({p.expr(call.args[0])}, R.device(device_type={a.get('device_type')}, "
            f"index={a.get('index')}), {p.attr(a.get('memory_scope', 'global'))})")


def _infer_to_vdevice(call: rx.Call, ctx) -> StructInfo:
    require_args(call, ctx, 1, "to_vdevice")
    si = tensor_input(call, ctx, "relax.to_vdevice")
    dev = call.attrs.get("dst_vdevice")
    if not isinstance(dev, VDevice):
        raise ctx.error(f"to_vdevice needs a VDevice attribute dst_vdevice, got {dev!r}")
    if si.shape is not None:
        return TensorStructInfo(si.shape, si.dtype, vdevice=dev)
    return TensorStructInfo(None, si.dtype, si.ndim, dev)


def _parse_to_vdevice(opdef, args, kwargs, span):
    b = bind_script_args(opdef, ["data", "dst_vdevice"], args, kwargs, span)
    return rx.Call(opdef.op, (as_expr(b["data"], "data", span),),
                   Attrs({"dst_vdevice": parse_vdevice(b["dst_vdevice"], span)}), span=span)


# ---------------------------------------------------------------------------------------------------
# memory / VM builtins
# ---------------------------------------------------------------------------------------------------


def _infer_builtin_alloc_tensor(call: rx.Call, ctx) -> StructInfo:
    """OP.builtin.alloc_tensor.C1-C2: ``R.Tensor(shape, dtype)`` on the module's vdevice ``index``."""
    require_args(call, ctx, 4, "relax.builtin.alloc_tensor")
    if not isinstance(call.args[0], rx.ShapeExpr):
        raise ctx.error(f"relax.builtin.alloc_tensor: the shape must be a ShapeExpr, but got a "
                        f"{type(call.args[0]).__name__}")
    if not isinstance(call.args[1], rx.DataTypeImm):
        raise ctx.error(f"relax.builtin.alloc_tensor: the dtype must be a DataTypeImm, but got a "
                        f"{type(call.args[1]).__name__}")
    dtype = tensor_dtype_of_imm(call.args[1], ctx, "relax.builtin.alloc_tensor")
    dev = ctx.vdevice(vdevice_index(call.args[2]))
    return TensorStructInfo(call.args[0], dtype, vdevice=dev)


def _infer_memory_alloc_tensor(call: rx.Call, ctx) -> StructInfo:
    """OP.memory.alloc_tensor.C1-C2."""
    if len(call.args) not in (4, 5):
        raise ctx.error(f"relax.memory.alloc_tensor expects 4 or 5 arguments, but got {len(call.args)}")
    shape = call.args[2]
    if not isinstance(shape.struct_info, ShapeStructInfo):
        raise ctx.error(f"relax.memory.alloc_tensor: the shape must be an expression of ShapeStructInfo, "
                        f"but has {fmt_sinfo(shape.struct_info)}")
    dtype = tensor_dtype_of_imm(call.args[3], ctx, "relax.memory.alloc_tensor")
    dev = ctx.vdevice(vdevice_index(call.args[4])) if len(call.args) == 5 else None
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
    dtype = tensor_dtype_of_imm(call.args[3], ctx, "relax.vm.alloc_tensor")
    dev = ctx.vdevice(vdevice_index(call.args[4]))
    shape = call.args[2]
    if isinstance(shape, rx.ShapeExpr):
        return TensorStructInfo(shape, dtype, vdevice=dev)
    ssi = shape.struct_info
    if isinstance(ssi, ShapeStructInfo):
        if ssi.values is not None:
            return TensorStructInfo(rx.ShapeExpr(ssi.values), dtype, vdevice=dev)
        return TensorStructInfo(None, dtype, ssi.ndim, dev)
    return TensorStructInfo(None, dtype, -1, dev)


# ---------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------

#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = list(CALL_OPS)


def _reg(**kw) -> OpDef:
    d = core_op(**kw)
    OPS.append(d)
    return d


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
     infer=_infer_object, normalize=normalize_wrap_args, purity=True, parse_call=_parse_make_closure,
     doc="A closure of a global function over captured values (OP.make_closure).",
     extra={"wf_normalized_check": False})
_reg(name="relax.invoke_closure", script="R.invoke_closure",
     params=(arg("closure"), arg("args", "tuple"), sinfo_param("sinfo_args")),
     infer=_infer_invoke_closure, normalize=normalize_wrap_args, purity=False,
     parse_call=_parse_invoke_closure,
     doc="Call a closure (impure; OP.invoke_closure).", extra={"wf_normalized_check": False})
_reg(name="relax.invoke_pure_closure", script="R.invoke_pure_closure",
     params=(arg("closure"), arg("args", "tuple"), sinfo_param("sinfo_args")),
     infer=_infer_invoke_closure, normalize=normalize_wrap_args, purity=True,
     parse_call=_parse_invoke_closure,
     doc="Call a closure declared pure (OP.invoke_pure_closure).", extra={"wf_normalized_check": False})
_reg(name="relax.tensor_to_shape", script="R.tensor_to_shape", params=(arg("expr"),),
     infer=_infer_tensor_to_shape, purity=True, doc="A 1-D int64 tensor as a shape (OP.tensor_to_shape).")
_reg(name="relax.shape_to_tensor", script="R.shape_to_tensor", params=(arg("expr"),),
     infer=_infer_shape_to_tensor, purity=True, doc="A shape as a 1-D int64 tensor (OP.shape_to_tensor).",
     legalize=_legalize_shape_to_tensor, legalize_exempt="", extra={"requires_arg_shapes": False},
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
     parse_call=positional_parser([("shape", conv_expr, REQUIRED), ("dtype", dtype_imm, REQUIRED),
                                    ("runtime_device_index", prim_value_arg, REQUIRED),
                                    ("storage_scope", string_imm, "global")]),
     doc="Allocate a tensor (OP.builtin.alloc_tensor).")
_reg(name="relax.memory.alloc_storage", script="R.memory.alloc_storage",
     params=(arg("size"), arg("virtual_device_index"), arg("storage_scope"), arg("dtype")),
     infer=_infer_object, purity=True,
     parse_call=positional_parser([("size", conv_expr, REQUIRED),
                                    ("virtual_device_index", prim_value_arg, REQUIRED),
                                    ("storage_scope", string_imm, REQUIRED), ("dtype", dtype_imm, REQUIRED)]),
     doc="Allocate a storage block (OP.memory.alloc_storage).")
_reg(name="relax.memory.alloc_tensor", script="R.memory.alloc_tensor",
     params=(arg("storage"), arg("offset"), arg("shape"), arg("dtype"), arg("runtime_device_ind", "expr", 0)),
     infer=_infer_memory_alloc_tensor, purity=True,
     parse_call=positional_parser([("storage", conv_expr, REQUIRED), ("offset", prim_value_arg, REQUIRED),
                                    ("shape", conv_expr, REQUIRED), ("dtype", dtype_imm, REQUIRED),
                                    ("runtime_device_ind", prim_value_arg, 0)]),
     doc="A tensor inside a storage block (OP.memory.alloc_tensor).")
_reg(name="relax.memory.kill_storage", script="R.memory.kill_storage", params=(arg("storage"),),
     infer=_infer_void, purity=False, doc="Free a storage block (impure; OP.memory.kill_storage).")
_reg(name="relax.memory.kill_tensor", script="R.memory.kill_tensor", params=(arg("tensor"),),
     infer=_infer_void, purity=False, doc="Free a tensor (impure; OP.memory.kill_tensor).")
_reg(name="relax.vm.alloc_storage", script="R.vm.alloc_storage",
     params=(arg("shape"), arg("runtime_device_index"), arg("dtype"), arg("storage_scope", "expr", "global")),
     infer=_infer_object, purity=True,
     parse_call=positional_parser([("shape", conv_expr, REQUIRED),
                                    ("runtime_device_index", prim_value_arg, REQUIRED),
                                    ("dtype", dtype_imm, REQUIRED), ("storage_scope", string_imm, "global")]),
     doc="VM storage allocation (OP.vm.alloc_storage).")
_reg(name="relax.vm.alloc_tensor", script="R.vm.alloc_tensor",
     params=(arg("storage"), arg("offset"), arg("shape"), arg("dtype"), arg("runtime_device_ind", "expr", 0)),
     infer=_infer_vm_alloc_tensor, purity=True,
     parse_call=positional_parser([("storage", conv_expr, REQUIRED), ("offset", prim_value_arg, REQUIRED),
                                    ("shape", conv_expr, REQUIRED), ("dtype", dtype_imm, REQUIRED),
                                    ("runtime_device_ind", prim_value_arg, 0)]),
     doc="VM tensor allocation inside a storage (OP.vm.alloc_tensor).")
_reg(name="relax.vm.kill_object", script="R.vm.kill_object", params=(arg("obj"),), infer=_infer_void,
     purity=False, doc="Release a VM object (impure; OP.vm.kill_object).")
OPS.append(CALL_PY_FUNC)
_reg(name="relax.vm.call_tir_dyn", script="R.vm.call_tir_dyn", params=(arg("func"), arg("args", "tuple")),
     infer=_infer_void, purity=False, parse_call=_parse_make_closure,
     doc="Call a PrimFunc with outputs and a trailing shape in the argument tuple (impure; OP.vm.call_tir_dyn).")

__all__ = [
    "convert_to_expr", "parse_vdevice", "parse_device", "is_bool_struct_info", "prim_func_output_struct_info",
    "VOID",
]
