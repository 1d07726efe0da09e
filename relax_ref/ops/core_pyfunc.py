"""``call_py_func`` (spec page ``spec/ops/call_py_func.md``), listed in the ``OPS`` of
:mod:`relax_ref.ops.core`.

``R.call_py_func("name", arg, ..., out_sinfo=...)`` calls the host function registered under
``name`` with the arguments and returns its result, checked against ``out_sinfo`` like every call
result (EVAL.CALL.3). relax-ref never runs Python code found in a program's text (the ``@I.pyfunc``
bodies of a TVM module are data to it): the function comes from the implementation's registry of host
functions, the same registry as packed functions (VAL.PACKED.2), as TVM's VM takes it from its
``vm.builtin.register_py_func`` registry.
"""

from __future__ import annotations

from typing import Any

from ..errors import ParseError
from ..ir import expr as rx
from ..ir.attrs import Attrs
from ..ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo
from .core_util import bind_script_args, convert_to_expr, core_op, out_sinfo_arg
from .opdef import OpDef, arg, Param


def parse(opdef: OpDef, args: list, kwargs: dict, span) -> rx.Call:
    kwargs = dict(kwargs)
    if "out_ty" in kwargs and "out_sinfo" not in kwargs:
        kwargs["out_sinfo"] = kwargs.pop("out_ty")
    b = bind_script_args(opdef, ["func_name", "args", "out_sinfo"], args, kwargs, span, varargs="args")
    name = b["func_name"]
    if isinstance(name, rx.StringImm):
        name = name.value
    if not isinstance(name, str):
        raise ParseError("R.call_py_func: the function name must be a string literal", span)
    call_args = tuple(convert_to_expr(a, "args", span) for a in b["args"])
    out = out_sinfo_arg(b["out_sinfo"], span)
    return rx.Call(opdef.op, (rx.StringImm(name, span=span), rx.Tuple(call_args, span=span)), Attrs(), (out,),
                   span=span)


def infer(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.call_py_func.C1-C3."""
    if len(call.sinfo_args) != 1:
        raise ctx.error(f"R.call_py_func takes exactly one output struct info, got {len(call.sinfo_args)}")
    out = call.sinfo_args[0]
    for t in (out.fields if isinstance(out, TupleStructInfo) else (out,)):
        if not isinstance(t, TensorStructInfo) or not isinstance(t.shape, rx.ShapeExpr):
            raise ctx.error("R.call_py_func: every output must be a tensor with a known shape expression")
    if len(call.args) != 2 or not isinstance(call.args[0], rx.StringImm):
        raise ctx.error("R.call_py_func expects a string literal naming the function and a tuple of arguments")
    if not isinstance(call.args[1].struct_info, TupleStructInfo):
        raise ctx.error("R.call_py_func: the arguments must be a tuple")
    return out


def reference(args, attrs, call, ctx):
    fn = ctx.lookup_packed(args[0])
    return ctx.call_packed(fn, list(args[1]))


CALL_PY_FUNC = core_op(name="relax.call_py_func", script="R.call_py_func",
                       params=(arg("func_name"), arg("args", "tuple"), Param("out_sinfo", "sinfo")),
                       infer=infer, reference=reference, parse_call=parse, purity=True,
                       legalize_exempt="a call of a host function, not a computation (TVM 0.27 lowers it to "
                                       "vm.builtin.call_py_func in LowerRuntimeBuiltin)",
                       doc="``R.call_py_func(name, *args, out_sinfo)``: call a registered host function "
                           "(OP.call_py_func.C1-C4).")

__all__ = ["CALL_PY_FUNC"]
