"""TVM's Python API as the tests use it, for every supported release (TVM 0.25 and 0.27).

TVM 0.27 renamed much of what the tests look at: struct info became types (``relax.TensorStructInfo``
-> ``relax.TensorType``, ``var.struct_info`` -> ``var.ty``, ``relax.analysis.struct_info_lca`` ->
``type_lca``), a scalar type carries no value (``R.Prim(value=n)`` is gone), Relax and TIR variables
are one class with ``name`` (no ``name_hint``), a TIR expression's dtype is its type's, a constant's
array is ``value`` (was ``data``), a PrimFunc's buffers are its parameters' types (no
``buffer_map``), and ``tirx.stmt_functor`` is gone. The tests reach TVM objects only through this
module, so that each runs under both releases. ``tvm_text`` puts a test's text (written in TVM 0.25's
spelling) in the installed release's dialect (:func:`relax_ref.script.translate.translate`).

Import it only where TVM is installed (the test directories put this directory on the import path
through tests/conftest.py).
"""

import contextlib

import tvm
from tvm import relax

from relax_ref.script.dialect import dialect_for_version
from relax_ref.script.translate import translate

#: the installed release, ``(0, 25)`` / ``(0, 27)``
RELEASE = tuple(int("".join(c for c in p if c.isdigit()) or 0) for p in tvm.__version__.split(".")[:2])
#: the installed release's TVMScript dialect
DIALECT = dialect_for_version(tvm.__version__)
#: TVM 0.27 and later: Relax struct info are types
TYPES = not hasattr(relax, "TensorStructInfo")
#: the arithmetic analyzer's module (``tvm.arith``; ``tvm.sym`` in TVM 0.27)
arith = getattr(tvm, "arith", None) or __import__("tvm.sym", fromlist=["Analyzer"])

#: a TIR block (``tvm.tirx.SBlock``; ``tvm.s_tir.SBlock`` in TVM 0.27)
SBlock = getattr(tvm.tirx, "SBlock", None) or __import__("tvm.s_tir", fromlist=["SBlock"]).SBlock

if TYPES:
    TensorSI, ShapeSI, TupleSI, FuncSI = relax.TensorType, relax.ShapeType, relax.TupleType, relax.FuncType
    PrimSI = tvm.ir.PrimType
    ObjectSI = (relax.ObjectType, relax.AnyType)
    Constant = tvm.ir.Constant
    base_check, lca = relax.analysis.type_base_check, relax.analysis.type_lca
    derive_call_ret = relax.analysis.derive_call_ret_type
else:
    TensorSI, ShapeSI, TupleSI, FuncSI = (relax.TensorStructInfo, relax.ShapeStructInfo, relax.TupleStructInfo,
                                          relax.FuncStructInfo)
    PrimSI = relax.PrimStructInfo
    ObjectSI = (relax.ObjectStructInfo,)
    Constant = relax.Constant
    base_check, lca = relax.analysis.struct_info_base_check, relax.analysis.struct_info_lca
    derive_call_ret = relax.analysis.derive_call_ret_struct_info


def tensor_dtype(dtype: str):
    """relax-ref's tensor dtype as a TVM tensor struct info takes it: an unknown dtype (``void``) is
    ``None`` in TVM 0.27 (its ``"void"`` is a dtype of its own)."""
    return None if TYPES and dtype == "void" else dtype


def derive_func(name: str) -> str:
    """The name of a struct-info derivation function (an ``EnvFunc``) in the installed release."""
    if TYPES and name == "tvm.relax.struct_info.infer_by_sinfo_args":
        return "tvm.relax.type.infer_by_ty_args"
    return name


def script_params(script: str, names) -> list:
    """relax-ref's parameter names of the TVMScript function ``script`` (``R.call_tir``) as the installed
    release spells them: ``out_sinfo`` / ``sinfo_args`` renamed, parameters it dropped left out
    (TVM 0.27: ``tir_vars``, ``R.layout_transform``'s ``axis_separators``; TEXT.DIALECT.3)."""
    from relax_ref.script.dialect import get_dialect

    d = get_dialect(DIALECT)
    gone = set(d.removed_keywords.get(script, ())) | (set() if d.tir_vars else {"tir_vars"})
    rename = {"out_sinfo": d.out_sinfo_kw, "sinfo_args": d.sinfo_args_kw}
    return [rename.get(n, n) for n in names if n not in gone]


def tvm_text(text: str) -> str:
    """``text`` (TVM 0.25's spelling) as the installed release reads it."""
    return translate(text, DIALECT, "tvm-0.25")[0]


def sinfo(e):
    """The struct info (type) of a Relax expression, variable or global variable."""
    if TYPES:
        return e.ty
    if isinstance(e, tvm.ir.GlobalVar):
        return e.struct_info_
    return e.struct_info


def ret_sinfo(func):
    """A Relax function's return struct info."""
    return func.ret_ty if TYPES else func.ret_struct_info


def prim_value(s):
    """The value a scalar struct info carries (None in TVM 0.27, whose scalar types carry none)."""
    return None if TYPES else s.value


def name(v) -> str:
    """The name of a Relax variable, a TIR variable or a global variable."""
    hint = getattr(v, "name_hint", None)
    return str(hint) if hint is not None else str(v.name)


def dtype(e) -> str:
    """The dtype of a TIR expression (a variable, an immediate, an operation)."""
    d = getattr(e, "dtype", None)
    if d is None:
        d = e.ty.dtype
    return str(d)


def constant_array(c):
    """A Relax constant's value as a numpy array."""
    return (c.value if TYPES else c.data).numpy()


def buffers(func) -> dict:
    """A PrimFunc's parameter buffers: ``{parameter: buffer}`` (TVM 0.27: the parameter's type)."""
    if not TYPES:
        return dict(func.buffer_map.items())
    return {p: p.ty for p in func.params if isinstance(p.ty, tvm.tirx.BufferType)}


def buffer_name(param, buffer) -> str:
    """The name of a PrimFunc's parameter buffer (TVM 0.27: the buffer is the parameter's type, which
    the parameter names)."""
    return str(getattr(buffer, "name", None) or name(param))


def make_prim_func(buffers, body):
    """A PrimFunc taking ``buffers`` (TVM 0.25: handle parameters and a buffer map; TVM 0.27: the
    buffers themselves are the parameters)."""
    if TYPES:
        return tvm.tirx.PrimFunc(list(buffers), body)
    handles = [tvm.tirx.Var(b.name.lower(), "handle") for b in buffers]
    return tvm.tirx.PrimFunc(handles, body, buffer_map=dict(zip(handles, buffers)))


def param_dtype(func, p) -> str:
    """A PrimFunc parameter's own dtype: ``handle`` for a buffer parameter."""
    if p in buffers(func):
        return "handle"
    return dtype(p)


_STMT_FIELDS = ("seq", "body", "then_case", "else_case", "block", "init")


def post_order_stmts(stmt, visit) -> None:
    """Call ``visit`` on every TIR statement under ``stmt`` (children first), walking the fields that
    hold statements (``tirx.stmt_functor.post_order_visit`` is gone in TVM 0.27)."""
    if stmt is None:
        return
    if isinstance(stmt, (list, tuple)) or type(stmt).__name__ == "Array":
        for s in stmt:
            post_order_stmts(s, visit)
        return
    if not isinstance(stmt, tvm.tirx.Stmt):
        return
    for field in _STMT_FIELDS:
        child = getattr(stmt, field, None)
        if child is not None:
            post_order_stmts(child, visit)
    visit(stmt)


__all__ = ["RELEASE", "DIALECT", "TYPES", "arith", "SBlock", "TensorSI", "ShapeSI", "TupleSI", "FuncSI", "PrimSI", "ObjectSI",
           "Constant", "tensor_dtype", "derive_func", "script_params", "base_check", "lca", "derive_call_ret", "tvm_text", "sinfo", "ret_sinfo", "prim_value",
           "name", "dtype", "constant_array", "buffers", "buffer_name", "make_prim_func", "param_dtype", "post_order_stmts"]


@contextlib.contextmanager
def tir_parser_operators():
    """TVM's TIR parser with its own operators on scalar expressions, whatever was imported before.

    In TVM 0.27 a TIR and a Relax expression are one class (``tvm.ir.Expr``), and TVMScript's operator
    table is keyed by that class: the Relax parser's comparisons (Python's, which fold two immediates)
    replace the TIR parser's (which build the node) when ``tvm.script.relax`` is imported after
    ``tvm.script.tirx`` (TVM-F14). Inside this block the TIR parser's entries are in place; the table is
    restored afterwards. Under TVM 0.25 (two classes) it changes nothing."""
    from tvm.script.parser.core import dispatch

    expr = getattr(tvm.tirx, "Expr", None)
    if expr is None or expr is not getattr(relax, "Expr", None):
        yield
        return
    from tvm.tirx.script.parser import operation

    saved = dict(dispatch.OpVTable)
    saved_type = expr.__dict__.get("_dispatch_type")
    try:
        operation._register_expr_op(expr)
        yield
    finally:
        dispatch.OpVTable.clear()
        dispatch.OpVTable.update(saved)
        if saved_type is not None:
            expr._dispatch_type = saved_type
