"""Calls across the Relax/TensorIR and Relax/packed-function boundary: the ``call_tir`` family
(spec page ``spec/ops/call_tir.md``), ``call_dps_packed``, ``call_pure_packed``,
``call_inplace_packed`` and ``call_builtin_with_ctx`` (entries listed first in
:data:`relax_ref.ops.core.OPS`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..errors import ParseError, Span, UnsupportedError
from ..ir import expr as rx
from ..ir.attrs import Attrs
from ..ir.struct_info import (
    FuncStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo,
)
from .core_util import (
    VOID, args_tuple_expr, as_expr, bind_script_args, callee_expr, convert_to_expr, core_op, fmt_sinfo, int_list,
    opaque_callee_ret, out_sinfo_arg, sinfo_args_arg, sinfo_param, str_value, tir_vars_arg,
)
from .opdef import OpDef, arg, attr


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


def normalize_wrap_args(call: rx.Call, ctx) -> rx.Call:
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
                        f"{fmt_sinfo(callee.struct_info)}")
    wrapped = _wrap_arg_tuple(call, 1)
    if wrapped is not None:
        return wrapped
    arg_tuple = call.args[1]
    if not isinstance(arg_tuple.struct_info, TupleStructInfo):
        raise ctx.error(f"{name}: the arguments must form a tuple, but have struct info "
                        f"{fmt_sinfo(arg_tuple.struct_info)}")
    if not isinstance(arg_tuple, (rx.Tuple, rx.Var)):
        raise ctx.error(f"{name}: the arguments must be an in-line tuple (or a variable that can be "
                        f"replaced by one), got a {type(arg_tuple).__name__}")
    if len(call.args) > 2 and not isinstance(call.args[2].struct_info, ShapeStructInfo):
        raise ctx.error(f"{name}: the packed integers must be a shape, but have struct info "
                        f"{fmt_sinfo(call.args[2].struct_info)}")
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


def _check_inplace_indices(indices: Sequence[int], n_args: int, ctx, instead: str) -> None:
    """Every in-place index is -1 or names one of the ``n_args`` arguments, no argument twice, and at
    least one is not -1 (OP.call_tir_inplace.C2, OP.call_inplace_packed.C2); ``instead``: the
    operator to use when none is in place."""
    seen = set()
    for i, idx in enumerate(indices):
        if idx < -1 or idx >= n_args:
            raise ctx.error(f"in-place index {i} is {idx}, outside -1..{n_args - 1}")
        if idx != -1:
            if idx in seen:
                raise ctx.error(f"in-place index {idx} is used twice; in-place indices must be unique")
            seen.add(idx)
    if not seen:
        raise ctx.error(f"no in-place index other than -1 is given (use {instead} instead)")


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
    _check_inplace_indices(indices, len(call.args[1].fields), ctx, "call_tir")
    fields = call.args[1].fields
    for i_out, i_in in enumerate(indices):
        if i_in == -1:
            continue
        so = outputs[i_out]
        if not isinstance(so, TensorStructInfo) or so.shape is None or so.dtype == "void":
            raise ctx.error(f"output {i_out} is computed in place, so its struct info must be a tensor with "
                            f"a shape and a dtype, got {fmt_sinfo(so)}")
        si = fields[i_in].struct_info
        if (not isinstance(si, TensorStructInfo) or so.dtype != si.dtype or si.shape is None
                or not can_prove_shape_equal(si.shape, so.shape, ctx.analyzer)):
            raise ctx.error(f"output {i_out} ({fmt_sinfo(so)}) is computed in place in input {i_in} ({fmt_sinfo(si)}), "
                            f"which needs identical shape and dtype")
    return call


def prim_func_output_struct_info(func_sinfo: StructInfo, arg_sinfo: StructInfo,
                                 packed_ints_sinfo: Optional[StructInfo], inplace_indices, ctx) -> StructInfo:
    """The output struct info a PrimFunc signature implies for ``call_tir`` arguments (W20 /
    OP.call_tir.C3): inputs, then outputs, then the packed integers; the callee's symbolic
    variables are bound from the inputs and integers."""
    from ..analysis.struct_info_ops import derive_ret_from_arg_sinfos

    if not isinstance(func_sinfo, FuncStructInfo):
        raise ctx.error(f"the callee of R.call_tir must be a function, got struct info {fmt_sinfo(func_sinfo)}")
    if func_sinfo.params is None:
        raise ctx.error(f"the callee of R.call_tir must have known parameter types, got {fmt_sinfo(func_sinfo)}")
    params = list(func_sinfo.params)
    if not isinstance(arg_sinfo, TupleStructInfo):
        raise ctx.error(f"the arguments of R.call_tir must be a tuple, got {fmt_sinfo(arg_sinfo)}")
    n_in = len(arg_sinfo.fields)
    n_int = 0
    if packed_ints_sinfo is not None:
        if not isinstance(packed_ints_sinfo, ShapeStructInfo) or packed_ints_sinfo.ndim == -1:
            raise ctx.error(f"the packed integers of R.call_tir must be a shape of known rank, got "
                            f"{fmt_sinfo(packed_ints_sinfo)}")
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


def _global(s: StructInfo) -> StructInfo:
    """DTensors replaced by their global tensors: the PrimFunc of ``R.dist.call_tir`` computes on the
    global tensors (DIST.TEXT.4)."""
    from ..ir.distributed import DTensorStructInfo

    if isinstance(s, DTensorStructInfo):
        return s.tensor
    if isinstance(s, TupleStructInfo):
        return TupleStructInfo(tuple(_global(f) for f in s.fields))
    return s


def _validate_call_tir(call: rx.Call, ctx) -> None:
    """FValidate of the call_tir family (WF.OPVALID.1, OP.call_tir.C3): the output implied by the
    PrimFunc signature must be a (PASS-level) base of ``out_sinfo``."""
    from ..analysis.struct_info_ops import is_base_of

    packed = call.args[2].struct_info if len(call.args) > 2 else None
    inplace = call.attrs.get("inplace_indices") if call.op.name == "relax.call_tir_inplace" else None
    implied = prim_func_output_struct_info(call.args[0].struct_info, _global(call.args[1].struct_info), packed,
                                           inplace, ctx)
    explicit = _global(call.sinfo_args[0])
    if not is_base_of(implied, explicit, ctx.analyzer):
        raise ctx.error(f"The `out_sinfo` argument for R.call_tir must be compatible with the PrimFunc: its "
                        f"signature implies the output {fmt_sinfo(implied)}, but out_sinfo is {fmt_sinfo(explicit)}")


def _parse_call_tir_like(opdef: OpDef, args, kwargs, span, *, inplace: bool = False, grad: bool = False):
    names = ["gvar", "args"]
    if inplace:
        names.append("inplace_indices")
    names.append("out_sinfo")
    if grad:
        names += ["te_grad_name", "te_grad_kwargs"]
    names.append("tir_vars")
    defaults = {"tir_vars": None, "te_grad_kwargs": None}
    b = bind_script_args(opdef, names, args, kwargs, span, defaults)
    gvar = as_expr(b["gvar"], "gvar", span)
    call_args = [gvar, args_tuple_expr(b["args"], "args", span)]
    tv = tir_vars_arg(b["tir_vars"], span)
    if tv is not None:
        call_args.append(tv)
    attrs: Dict[str, Any] = {}
    if inplace:
        attrs["inplace_indices"] = int_list(b["inplace_indices"], "inplace_indices", span)
    if grad:
        attrs["te_grad_name"] = str_value(b["te_grad_name"], "te_grad_name", span)
        kw = b["te_grad_kwargs"]
        attrs["te_grad_kwargs"] = Attrs(kw or {})
    return rx.Call(opdef.op, tuple(call_args), Attrs(attrs), (out_sinfo_arg(b["out_sinfo"], span),), span=span)


def _infer_call_dps_packed(call: rx.Call, ctx) -> StructInfo:
    if len(call.sinfo_args) != 1:
        raise ctx.error(f"R.call_dps_packed takes exactly one output struct info, got {len(call.sinfo_args)}")
    return call.sinfo_args[0]


def _parse_call_dps_packed(opdef, args, kwargs, span):
    b = bind_script_args(opdef, ["func", "args", "out_sinfo"], args, kwargs, span)
    return rx.Call(opdef.op, (callee_expr(b["func"], "func", span), args_tuple_expr(b["args"], "args", span)), Attrs(),
                   (out_sinfo_arg(b["out_sinfo"], span),), span=span)


def _infer_call_pure_packed(call: rx.Call, ctx) -> StructInfo:
    """Like a call of the opaque callee, declared pure (OP.call_pure_packed.C1)."""
    if not call.args:
        raise ctx.error("R.call_pure_packed needs at least the callee")
    return opaque_callee_ret(call, ctx, "call_pure_packed")


def _infer_call_inplace_packed(call: rx.Call, ctx) -> StructInfo:
    """OP.call_inplace_packed.C1-C4."""
    from ..analysis.struct_info_ops import is_base_of

    if len(call.args) <= 1:
        raise ctx.error("R.call_inplace_packed needs the callee and at least one argument (use "
                        "R.call_pure_packed for a call without arguments)")
    ret = opaque_callee_ret(call, ctx, "call_inplace_packed")
    indices = tuple(call.attrs.get("inplace_indices", ()))
    _check_inplace_indices(indices, len(call.args) - 1, ctx, "call_pure_packed")
    if len(indices) == 1:
        a = call.args[indices[0] + 1].struct_info
        if not is_base_of(ret, a, ctx.analyzer):
            raise ctx.error(f"the result struct info {fmt_sinfo(ret)} does not match in-place argument "
                            f"{indices[0]} ({fmt_sinfo(a)})")
    else:
        if not isinstance(ret, TupleStructInfo):
            raise ctx.error(f"several in-place indices need a tuple result, got {fmt_sinfo(ret)}")
        if len(ret.fields) < len(indices):
            raise ctx.error(f"{len(indices)} in-place indices given but the derived StructInfo has only "
                            f"{len(ret.fields)} fields")
        for i, idx in enumerate(indices):
            if idx == -1:
                continue
            a = call.args[idx + 1].struct_info
            if not is_base_of(ret.fields[i], a, ctx.analyzer):
                raise ctx.error(f"the result field {i} ({fmt_sinfo(ret.fields[i])}) does not match in-place "
                                f"argument {idx} ({fmt_sinfo(a)})")
    return ret


def _parse_packed_varargs(opdef, args, kwargs, span, *, inplace: bool):
    names = ["func", "args"] + (["inplace_indices"] if inplace else []) + ["sinfo_args"]
    b = bind_script_args(opdef, names, args, kwargs, span, varargs="args")
    callee = callee_expr(b["func"], "func", span)
    if isinstance(callee, rx.ExternFunc):
        pass
    elif not isinstance(callee, (rx.GlobalVar, rx.Var)):
        raise ParseError(f"{opdef.script}: func must be a string, an ExternFunc or a GlobalVar", span)
    call_args = [callee] + [convert_to_expr(a, "args", span) for a in b["args"]]
    if b["sinfo_args"] is None:
        # as TVM ("is required to have type_args"): sinfo_args=None is the missing argument, which the
        # printer would leave out (a print that did not parse back, found by fuzzing)
        raise ParseError(f"{opdef.script} missing required argument 'sinfo_args' (None given)", span)
    attrs = {}
    if inplace:
        attrs["inplace_indices"] = int_list(b["inplace_indices"], "inplace_indices", span)
    return rx.Call(opdef.op, tuple(call_args), Attrs(attrs), tuple(sinfo_args_arg(b["sinfo_args"], span)), span=span)


def _infer_call_builtin_with_ctx(call: rx.Call, ctx) -> StructInfo:
    if not call.sinfo_args:
        return VOID
    if len(call.sinfo_args) != 1:
        raise ctx.error(f"R.call_builtin_with_ctx takes at most one output struct info, got {len(call.sinfo_args)}")
    return call.sinfo_args[0]


def _parse_call_builtin_with_ctx(opdef, args, kwargs, span):
    b = bind_script_args(opdef, ["func", "args", "sinfo_args"], args, kwargs, span, {"sinfo_args": None})
    return rx.Call(opdef.op, (callee_expr(b["func"], "func", span), args_tuple_expr(b["args"], "args", span)), Attrs(),
                   tuple(sinfo_args_arg(b["sinfo_args"], span)), span=span)


_CALL_TIR_DOC = "Call a TensorIR PrimFunc in destination-passing style (spec OP.call_tir)."


# ---------------------------------------------------------------------------------------------------
# The outputs of a destination-passing call (read by both evaluators)
# ---------------------------------------------------------------------------------------------------


def dps_outputs(call: rx.Call) -> Tuple[List[StructInfo], bool]:
    """The struct infos of the outputs a ``call_tir``-family or ``call_dps_packed`` call allocates, and
    whether the call returns them as a tuple (CALL.TIR.1)."""
    sinfos = list(call.sinfo_args)
    if len(sinfos) == 1 and isinstance(sinfos[0], TupleStructInfo):
        return list(sinfos[0].fields), True
    if len(sinfos) == 1:
        return sinfos, False
    return sinfos, True


def allocatable(s: StructInfo, span: Optional[Span]) -> TensorStructInfo:
    """``s`` as the struct info of an output to allocate (CALL.ALLOC.1): a tensor of known dtype, whose
    shape the evaluator then evaluates (:func:`unknown_output_shape` when it cannot)."""
    if not isinstance(s, TensorStructInfo) or s.dtype == "void":
        raise UnsupportedError(f"cannot allocate an output for struct info {s!r}: a tensor with known shape and "
                               "dtype is required", span)
    return s


def unknown_output_shape(span: Optional[Span]) -> UnsupportedError:
    """The error for an output whose shape the evaluator cannot evaluate (CALL.ALLOC.1)."""
    return UnsupportedError("cannot allocate an output whose shape is unknown", span)


#: the entries of this module in definition order (the first of :data:`relax_ref.ops.core.OPS`)
CALL_OPS = [
    core_op(name="relax.call_tir", script="R.call_tir",
            params=(arg("gvar"), arg("args", "tuple"), sinfo_param("out_sinfo"), arg("tir_vars", "shape", None)),
            infer=_infer_call_tir, normalize=_normalize_call_tir, validate=_validate_call_tir, purity=True,
            parse_call=_parse_call_tir_like, doc=_CALL_TIR_DOC,
            legalize_exempt="already lowered: calls a PrimFunc"),
    core_op(name="relax.call_tir_inplace", script="R.call_tir_inplace",
            params=(arg("gvar"), arg("args", "tuple"), attr("inplace_indices", "ints"), sinfo_param("out_sinfo"),
                    arg("tir_vars", "shape", None)),
            infer=_infer_call_tir, normalize=_normalize_call_tir_inplace, validate=_validate_call_tir, purity=True,
            parse_call=lambda o, a, k, s: _parse_call_tir_like(o, a, k, s, inplace=True),
            doc="call_tir whose outputs may alias inputs (OP.call_tir_inplace).",
            legalize_exempt="already lowered: calls a PrimFunc"),
    core_op(name="relax.call_tir_with_grad", script="R.call_tir_with_grad",
            params=(arg("gvar"), arg("args", "tuple"), sinfo_param("out_sinfo"), attr("te_grad_name", "str"),
                    attr("te_grad_kwargs", "any", None), arg("tir_vars", "shape", None)),
            infer=_infer_call_tir, normalize=_normalize_call_tir, validate=_validate_call_tir, purity=True,
            parse_call=lambda o, a, k, s: _parse_call_tir_like(o, a, k, s, grad=True),
            doc="call_tir carrying the name of its gradient (OP.call_tir_with_grad).",
            notes="TVM 0.25's printer drops tir_vars of this op; relax-ref prints them",
            legalize_exempt="already lowered: calls a PrimFunc"),
    core_op(name="relax.call_dps_packed", script="R.call_dps_packed",
            params=(arg("func"), arg("args", "tuple"), sinfo_param("out_sinfo")),
            infer=_infer_call_dps_packed, normalize=normalize_wrap_args, purity=True,
            parse_call=_parse_call_dps_packed,
            doc="Call a packed function in destination-passing style (OP.call_dps_packed).",
            extra={"wf_normalized_check": False}),
    core_op(name="relax.call_pure_packed", script="R.call_pure_packed",
            params=(arg("func"), arg("args", "expr"), sinfo_param("sinfo_args")),
            infer=_infer_call_pure_packed, purity=True,
            parse_call=lambda o, a, k, s: _parse_packed_varargs(o, a, k, s, inplace=False),
            doc="A packed call declared pure (OP.call_pure_packed)."),
    core_op(name="relax.call_inplace_packed", script="R.call_inplace_packed",
            params=(arg("func"), arg("args", "expr"), attr("inplace_indices", "ints"), sinfo_param("sinfo_args")),
            infer=_infer_call_inplace_packed, purity=True,
            parse_call=lambda o, a, k, s: _parse_packed_varargs(o, a, k, s, inplace=True),
            doc="A pure packed call mutating some arguments (OP.call_inplace_packed)."),
    core_op(name="relax.call_builtin_with_ctx", script="R.call_builtin_with_ctx",
            params=(arg("func"), arg("args", "tuple"), sinfo_param("sinfo_args", None)),
            infer=_infer_call_builtin_with_ctx, normalize=normalize_wrap_args, purity=False,
            parse_call=_parse_call_builtin_with_ctx,
            doc="Call a VM builtin with the VM context (OP.call_builtin_with_ctx).",
            extra={"wf_normalized_check": False}),
]
