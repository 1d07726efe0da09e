"""TensorIR builtins that are neither math intrinsics nor statements (TEXT.TIR.7): ``T.assume``,
``T.ret``, ``T.undef``, ``T.isnullptr``, ``T.tvm_thread_invariant``, ``T.tvm_struct_get`` /
``T.tvm_struct_set`` and the ``T.anylist_*`` calls of lowered VM code, plus the value spellings
``T.FloatImm(dtype, v)`` / ``T.IntImm(dtype, v)`` / ``tirx.const(v, dtype)``, ``T.Var(name, dtype)`` (a declaration, like
``T.int64()``) and ``T.meta_var(v)`` / ``I.meta_var(v)`` (the value itself).

Each builtin is a ``PrimCall("<dtype>", "tir.<name>", args)``; the result dtype is TVM's
(:data:`BUILTINS`). Python integers are ``int32`` literals, strings ``PrimStringImm``. A ``dtype=``
keyword is accepted and dropped, as TVM's wrappers do, except for ``tvm_struct_get`` where it is the
result dtype (``T.tvm_struct_get(arr, 0, 5, "uint8")`` or ``dtype="uint8"``).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple, Union

from ...ir import prim_expr as P
from . import prim
from .evaluator import HANDLERS, CallInfo, Evaluator
from .values import MetaValue, VarDecl

#: name -> (number of arguments (None: at least the minimum), minimum, result dtype rule); the rule is a
#: dtype, "arg0" (the first argument's) or "explicit" (the dtype argument)
BUILTINS: Dict[str, Tuple[Optional[int], int, str]] = {
    "assume": (1, 1, "bool"),
    "ret": (1, 1, "arg0"),
    "undef": (0, 0, "int32"),
    "isnullptr": (1, 1, "bool"),
    "tvm_thread_invariant": (1, 1, "arg0"),
    "tvm_struct_get": (4, 4, "explicit"),
    "tvm_struct_set": (4, 4, "int32"),
    "anylist_getitem": (2, 2, "handle"),
    "anylist_resetitem": (2, 2, "int32"),
    "anylist_setitem_call_packed": (None, 3, "int32"),
    "anylist_setitem_call_cpacked": (None, 3, "int32"),
}


def _operand(ev: Evaluator, info: CallInfo, i: int, v: Any) -> P.PrimExpr:
    if isinstance(v, str):
        return P.PrimStringImm(v)
    return prim.as_prim(v, ev.span(info.node_of(i)), f"{info.path} argument {i}", "int32")


def _builtin(name: str) -> Callable[[Evaluator, CallInfo], P.PrimExpr]:
    count, minimum, rule = BUILTINS[name]

    def handler(ev: Evaluator, info: CallInfo) -> P.PrimExpr:
        args = list(info.args)
        extra = set(info.kwargs) - {"dtype"}
        if extra:
            raise ev.error(info.node_of(sorted(extra)[0]), f"{info.path} got an unexpected keyword argument "
                                                           f"'{sorted(extra)[0]}'")
        if rule == "explicit" and "dtype" in info.kwargs:
            args.append(info.kwargs["dtype"])
        if (count is not None and len(args) != count) or len(args) < minimum:
            want = f"{count}" if count is not None else f"at least {minimum}"
            raise ev.error(info.node, f"{info.path} takes {want} arguments, got {len(args)}")
        if rule == "explicit":
            dtype = prim.check_dtype(args.pop(), ev.span(info.node))
        operands = tuple(_operand(ev, info, i, v) for i, v in enumerate(args))
        if rule == "arg0":
            dtype = operands[0].dtype
        elif rule != "explicit":
            dtype = rule
        return P.PrimCall(dtype, f"tir.{name}", operands)
    return handler


for _name in BUILTINS:
    HANDLERS[f"T.{_name}"] = _builtin(_name)


def _imm(kind: str):
    """``T.FloatImm("float32", 0.1)`` / ``T.IntImm("int64", 4)``: a typed literal."""
    def handler(ev: Evaluator, info: CallInfo) -> Union[P.FloatImm, P.IntImm]:
        if info.kwargs or len(info.args) != 2:
            raise ev.error(info.node, f"{info.path} takes a dtype and a value")
        dtype = prim.check_dtype(info.args[0], ev.span(info.node))
        value = info.args[1]
        if not prim.is_num(value):
            raise ev.error(info.node_of(1), f"{info.path}: the value must be a number, got {prim.describe(value)}")
        if (kind == "float") != prim._dt.is_float(dtype):  # noqa: SLF001
            raise ev.error(info.node, f"{info.path} of dtype {dtype}")
        return prim.lit(value, dtype, ev.span(info.node))
    return handler


def _var(ev: Evaluator, info: CallInfo) -> VarDecl:
    """``n = T.Var("n", "int64")``: declares ``n`` like ``n = T.int64()`` (the name must match the
    target, which the binding checks by using the target's name)."""
    if info.kwargs or len(info.args) != 2 or not isinstance(info.args[0], str):
        raise ev.error(info.node, "T.Var takes a name and a dtype: n = T.Var(\"n\", \"int64\")")
    return VarDecl(prim.check_dtype(info.args[1], ev.span(info.node), allow_handle=True))


def _meta_var(ev: Evaluator, info: CallInfo) -> Any:
    """``T.meta_var(v)`` / ``I.meta_var(v)``: a value named in the script; ``x = T.meta_var(v)`` makes
    ``x`` mean ``v`` (no binding, no TensorIR scalar)."""
    if info.kwargs or len(info.args) != 1:
        raise ev.error(info.node, f"{info.path} takes one value")
    return MetaValue(info.args[0])


def _const(ev: Evaluator, info: CallInfo) -> P.PrimExpr:
    """``tirx.const(value, dtype)``: a typed literal (TVM's Python API inside a script)."""
    if info.kwargs.keys() - {"dtype"} or not 1 <= len(info.args) + len(info.kwargs) <= 2:
        raise ev.error(info.node, f"{info.path} takes a value and a dtype")
    value = info.args[0] if info.args else None
    dtype = info.args[1] if len(info.args) > 1 else info.kwargs.get("dtype")
    if not prim.is_num(value):
        raise ev.error(info.node, f"{info.path}: the value must be a number, got {prim.describe(value)}")
    dtype = prim.check_dtype(dtype, ev.span(info.node)) if dtype is not None else None
    return prim.lit(value, dtype, ev.span(info.node), ev.int_dtype)


HANDLERS["T.const"] = _const
HANDLERS["T.FloatImm"] = _imm("float")
HANDLERS["T.IntImm"] = _imm("int")
HANDLERS["T.Var"] = _var
HANDLERS["T.meta_var"] = _meta_var
HANDLERS["I.meta_var"] = _meta_var

__all__ = ["BUILTINS"]
