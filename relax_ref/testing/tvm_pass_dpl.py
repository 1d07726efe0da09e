"""Reading the dataflow patterns of pass tests written against TVM as relax-ref patterns.

The abstract interpreter of :mod:`relax_ref.testing.tvm_pass_extract` meets pattern-building code
(``is_op("relax.nn.relu")(wildcard())``, ``make_fused_bias_activation_pattern(...)``, ``p | q``,
``p.has_dtype("float16")``). Such a call of a function of ``tvm.relax.dpl`` whose arguments are
known is answered by calling relax-ref's function of the same name in :mod:`relax_ref.dpl` -- a
fixed list of constructors and methods, never anything the test names otherwise -- so the pattern
becomes data the pass can use. Anything else stays unknown.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from .. import dpl as _dpl
from .tvm_pass_values import NotData, to_python

#: Functions of ``tvm.relax.dpl`` answered by relax-ref's (by name)
FUNCTIONS = frozenset({
    "is_var", "is_dfv", "is_gv", "is_const", "is_op", "is_tuple", "is_tuple_get_item", "wildcard", "has_dtype",
    "has_attr", "is_shape", "reject", "is_call_tir", "is_call_dps_packed", "is_call_packed",
    "make_fused_bias_activation_pattern",
})
#: Methods of patterns answered by relax-ref's
METHODS = frozenset({"has_dtype", "has_shape", "has_attr", "used_by", "only_used_by", "same_shape_as"})


def is_dpl_path(path: str) -> Optional[str]:
    """The relax-ref function answering a call of ``path`` (``tvm.relax.dpl.pattern.is_op``), if any."""
    parts = path.split(".")
    if parts[-1] in FUNCTIONS and ("dpl" in parts[:-1] or len(parts) == 1):
        return parts[-1]
    return None


def call_function(name: str, args: List[Any], kwargs: Dict[str, Any]) -> Any:
    """Call ``relax_ref.dpl.<name>`` with the data of the arguments (NotData / RelaxError propagate)."""
    fn = getattr(_dpl, name)
    return fn(*[to_python(a) for a in args], **{k: to_python(v) for k, v in kwargs.items()})


def call_method(obj: Any, name: str, args: List[Any], kwargs: Dict[str, Any]) -> Any:
    return getattr(obj, name)(*[to_python(a) for a in args], **{k: to_python(v) for k, v in kwargs.items()})


def call_pattern(obj: Any, args: List[Any], kwargs: Dict[str, Any]) -> Any:
    return obj(*[to_python(a) for a in args], **{k: to_python(v) for k, v in kwargs.items()})


def binary(op: str, a: Any, b: Any) -> Any:
    a, b = to_python(a), to_python(b)
    if op == "|":
        return a | b
    if op == "&":
        return a & b
    if op == "^":
        return a ^ b
    if op == ">>":
        return a >> b
    raise NotData(op)


__all__ = ["FUNCTIONS", "METHODS", "NotData", "to_python", "is_dpl_path", "call_function", "call_method",
           "call_pattern", "binary"]


def index_map_from_lambda(node):
    """An index map from ``lambda i, j: (i // 4, ...)`` read as syntax (``int64`` indices; integer
    constants, the parameters, ``+ - * // %`` and unary minus only)."""
    import ast

    from ..ir import prim_expr as P
    from ..ops import te_ops as O
    from ..ops.layout_transform import IndexMap

    if node.args.vararg or node.args.kwarg or node.args.kwonlyargs:
        raise NotData("lambda with * or keyword parameters")
    params = [P.PrimVar(a.arg, "int64") for a in node.args.args]
    env = {a.arg: p for a, p in zip(node.args.args, params)}
    ops = {ast.Add: O.add, ast.Sub: O.sub, ast.Mult: O.mul, ast.FloorDiv: O.floordiv, ast.Mod: O.floormod}

    def ev(e):
        if isinstance(e, ast.Name) and e.id in env:
            return env[e.id]
        if isinstance(e, ast.Constant) and isinstance(e.value, int) and not isinstance(e.value, bool):
            return P.IntImm(e.value, "int64")
        if isinstance(e, ast.BinOp) and type(e.op) in ops:
            return ops[type(e.op)](ev(e.left), ev(e.right))
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            return O.neg(ev(e.operand))
        raise NotData(f"index expression {type(e).__name__}")

    body = node.body
    outs = [ev(x) for x in body.elts] if isinstance(body, (ast.Tuple, ast.List)) else [ev(body)]
    return IndexMap(tuple(params), tuple(outs))
