"""Handlers for the Relax script helpers that are not operators (contract point 10, TEXT.EXPR.1-8):
struct-info constructors, ``R.const``, ``R.shape``, ``R.prim_value``, ``R.str``, ``R.dtype``,
``R.tuple``, ``R.match_cast``, ``R.call_packed``, ``R.ExternFunc``; plus :func:`to_relax_expr`,
TVM's ``convert_to_expr`` rule for turning script values into Relax expressions."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, List

import numpy as np

from ...ir import dtype as _dt
from ...ir import expr as rx
from ...ir import prim_expr as P
from ...ir import struct_info as si
from ...ir.attrs import Attrs
from ...ops import registry
from . import prim
from .calls import HANDLERS, REQUIRED, STATEMENT_ONLY, CallInfo, bind_params, check_attr_value
from .struct_info import is_si_ref, to_struct_info
from .values import (
    CallableProxy, MatchCastPair, ObjectProxy, PrimProxy, ShapeProxy, SIProxy, TensorProxy, TupleProxy,
)

if TYPE_CHECKING:
    from .evaluator import Evaluator


def to_relax_expr(ev: Evaluator, v: Any, node: ast.AST) -> rx.Expr:
    """A script value as a Relax expression (TVM ``convert_to_expr``): Relax expressions as they are,
    tuples/lists -> ``Tuple``, scalar expressions -> ``PrimValue``, strings -> ``StringImm``,
    ints -> int64 ``PrimValue``, floats -> float32 ``PrimValue``."""
    span = ev.span(node)
    if isinstance(v, rx.Expr):
        return v
    if isinstance(v, (tuple, list)):
        return rx.Tuple(tuple(to_relax_expr(ev, x, node) for x in v), span=span)
    if isinstance(v, bool) or isinstance(v, int):
        return rx.PrimValue(P.IntImm(int(v), "int64"), span=span)
    if isinstance(v, float):
        return rx.PrimValue(P.FloatImm(v, ev.ctx.relax_dialect.prim_value_float), span=span)
    if isinstance(v, P.PrimExpr):
        return rx.PrimValue(v, span=span)
    if isinstance(v, str):
        return rx.StringImm(v, span=span)
    if isinstance(v, MatchCastPair):
        raise ev.error(node, "R.match_cast must be bound directly to a variable: y = R.match_cast(x, S)")
    if isinstance(v, SIProxy) or is_si_ref(v):
        raise ev.error(node, "a struct-info annotation is not a value")
    raise ev.error(node, f"expected a Relax expression, got {prim.describe(v)}")


# ---------------------------------------------------------------------------------------------------
# Struct-info constructors (kept as proxies, see struct_info.py)
# ---------------------------------------------------------------------------------------------------


def _dim_nodes(info: CallInfo, key_index: int, key_name: str):
    n = info.kw_nodes.get(key_name)
    if n is None and key_index < len(info.arg_nodes):
        n = info.arg_nodes[key_index]
    if isinstance(n, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in n.elts):
        return tuple(n.elts)
    return ()


def _int_arg(ev, info, v, name):
    if isinstance(v, bool) or not isinstance(v, int):
        raise ev.error(info.node_of(name), f"{info.path}: '{name}' must be an integer, got {prim.describe(v)}")
    if v < -1:
        raise ev.error(info.node_of(name), f"{info.path}: '{name}' must be >= -1")
    if v > si.MAX_NDIM:     # SI.SHAPE.1, SI.TENSOR.1: a rank is an int32
        raise ev.error(info.node_of(name), f"{info.path}: '{name}' {v} does not fit in int32 (a rank is at "
                                           f"most {si.MAX_NDIM})")
    return v


def _tensor(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("shape", None), ("dtype", None), ("vdevice", None), ("ndim", -1)))
    shape, dtype, vdevice, ndim = b["shape"], b["dtype"], b["vdevice"], b["ndim"]
    if isinstance(shape, str) and dtype is None:
        shape, dtype = None, shape
    if shape is not None and not isinstance(shape, (tuple, list, rx.ShapeExpr, rx.Var)):
        raise ev.error(info.node_of(0), f"R.Tensor: the shape must be a tuple/list or a shape expression, got "
                                        f"{prim.describe(shape)}")
    if dtype is not None and not isinstance(dtype, (str, rx.DataTypeImm)):
        raise ev.error(info.node, f"R.Tensor: dtype must be a string, got {prim.describe(dtype)}")
    if isinstance(dtype, rx.DataTypeImm):
        dtype = dtype.value
    if vdevice is not None and not isinstance(vdevice, str):
        raise ev.error(info.node, f"R.Tensor: vdevice must be a string such as \"llvm:0:global\", got "
                                  f"{prim.describe(vdevice)}")
    ndim = _int_arg(ev, info, ndim, "ndim")
    return TensorProxy(list(shape) if isinstance(shape, (tuple, list)) else shape, dtype, vdevice, ndim,
                       info.node, _dim_nodes(info, 0, "shape"))


def _shape(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("values", None), ("ndim", -1)))
    vals = b["values"]
    if vals is not None and not isinstance(vals, (tuple, list)):
        raise ev.error(info.node_of(0), f"R.Shape: values must be a list, got {prim.describe(vals)}")
    return ShapeProxy(list(vals) if vals is not None else None, _int_arg(ev, info, b["ndim"], "ndim"),
                      info.node, _dim_nodes(info, 0, "values"))


def _prim(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("dtype", None), ("value", None)))
    if b["dtype"] is None and b["value"] is None:
        raise ev.error(info.node, "R.Prim needs a dtype or a value, e.g. R.Prim(\"int64\") or R.Prim(value=n)")
    dtype = b["dtype"]
    if dtype is not None and not isinstance(dtype, (str, rx.DataTypeImm)):
        raise ev.error(info.node, f"R.Prim: dtype must be a string, got {prim.describe(dtype)}")
    if isinstance(dtype, rx.DataTypeImm):
        dtype = dtype.value
    vnode = info.kw_nodes.get("value") or (info.arg_nodes[1] if len(info.arg_nodes) > 1 else None)
    return PrimProxy(dtype, b["value"], info.node, vnode)


def _check_si_field(ev, info, f):
    if isinstance(f, (SIProxy, si.StructInfo)) or is_si_ref(f):
        return f
    raise ev.error(info.node, f"{info.path}: expected struct-info annotations, got {prim.describe(f)}")


def _tuple_si(ev: Evaluator, info: CallInfo):
    if info.kwargs:
        raise ev.error(info.node, "R.Tuple takes no keyword arguments")
    fields = list(info.args)
    if len(fields) == 1 and isinstance(fields[0], (tuple, list)):
        fields = list(fields[0])
    return TupleProxy(tuple(_check_si_field(ev, info, f) for f in fields), info.node)


def _object(ev: Evaluator, info: CallInfo):
    bind_params(ev, info, ())
    return ObjectProxy(info.node)


def _callable(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("params", None), ("ret", None), ("purity", None), ("derive_func", None)))
    params = b["params"]
    if params is not None:
        if not isinstance(params, (tuple, list)):
            params = (params,)
        params = tuple(_check_si_field(ev, info, p) for p in params)
    ret = b["ret"]
    if ret is not None:
        _check_si_field(ev, info, ret)
    purity = b["purity"]
    if purity is not None and not isinstance(purity, bool):
        raise ev.error(info.node, f"R.Callable: purity must be True or False, got {prim.describe(purity)}")
    derive = b["derive_func"]
    if derive is not None and not isinstance(derive, str):
        raise ev.error(info.node, "R.Callable: derive_func must be the name of a deriver (a string)")
    return CallableProxy(params, ret, purity, derive, info.node)


HANDLERS["R.Tensor"] = _tensor
HANDLERS["R.Shape"] = _shape
HANDLERS["R.Prim"] = _prim
HANDLERS["R.Tuple"] = _tuple_si
HANDLERS["R.Object"] = _object
HANDLERS["R.Callable"] = _callable
HANDLERS["R.Any"] = _object          # tvm-0.27's R.Object
HANDLERS["I.StringType"] = _object   # tvm-0.27's annotation of a string value (an object here)

# ---------------------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------------------


def _literal_leaves(ev, v, node, out: List[Any], depth=0):
    """Check that ``v`` is a literal (nested lists of numbers / non-finite strings)."""
    if depth > 32:
        raise ev.error(node, "R.const: the value is nested too deeply")
    if isinstance(v, (tuple, list)):
        for x in v:
            _literal_leaves(ev, x, node, out, depth + 1)
        return
    if isinstance(v, str):
        out.append(prim.parse_float_string(v, ev.span(node)))
        return
    if isinstance(v, (bool, int, float)):
        out.append(v)
        return
    raise ev.error(node, f"R.const needs a literal value (a number, a bool, \"inf\"/\"-inf\"/\"nan\", or nested "
                         f"lists of them), got {prim.describe(v)}")


def _normalize_strings(v):
    if isinstance(v, (tuple, list)):
        return [_normalize_strings(x) for x in v]
    if isinstance(v, str):
        return float(v.strip())
    return v


def const_array(ev: Evaluator, value: Any, dtype, node: ast.AST) -> np.ndarray:
    """The numpy array of ``R.const(value, dtype)`` with TVM's default dtypes (contract point 6)."""
    leaves: List[Any] = []
    _literal_leaves(ev, value, node, leaves)
    span = ev.span(node)
    has_float = any(isinstance(x, float) for x in leaves)
    if dtype is None:
        if has_float:
            dtype = "float32"
        elif leaves and all(isinstance(x, bool) for x in leaves):
            dtype = "bool"
        else:
            dtype = "int32"
    dtype = prim.check_dtype(dtype, span, allow_handle=False)
    if dtype == "void":
        raise ev.error(node, "R.const needs a concrete dtype")
    if _dt.is_integer(dtype) or dtype == "bool":
        for x in leaves:
            if isinstance(x, float) and not np.isfinite(x):
                raise ev.error(node, f"R.const: {x} cannot be represented in {dtype}")
            if isinstance(x, int) and not isinstance(x, bool) and dtype != "bool":
                if not _dt.min_value(dtype) <= x <= _dt.max_value(dtype):
                    raise ev.error(node, f"R.const: {x} is out of range for {dtype}")
    norm = _normalize_strings(value)
    try:
        raw = np.array(norm, dtype=object)
        if raw.dtype == object and raw.ndim > 0 and any(isinstance(x, (list, tuple)) for x in raw.flat):
            raise ValueError("ragged")
        np_dtype = _dt.to_numpy(dtype)
        if _dt.is_integer(dtype) and has_float:
            arr = np.array(np.array(norm, dtype=np.float64), dtype=np.float64)
            arr = np.trunc(arr).astype(np_dtype)
        else:
            arr = np.array(norm, dtype=np_dtype) if dtype != "bool" else np.array(norm).astype(bool)
    except (ValueError, TypeError, OverflowError) as e:
        raise ev.error(node, f"R.const: cannot build a {dtype} tensor from this value ({e})") from None
    if arr.dtype == object:
        raise ev.error(node, "R.const: the nested lists are ragged")
    return arr


def _const(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("value", REQUIRED), ("dtype", None)))
    dtype = b["dtype"]
    if isinstance(dtype, rx.DataTypeImm):
        dtype = dtype.value
    if dtype is not None and not isinstance(dtype, str):
        raise ev.error(info.node_of("dtype" if "dtype" in info.kwargs else 1),
                       f"R.const: dtype must be a string, got {prim.describe(dtype)}")
    arr = const_array(ev, b["value"], dtype, info.node_of(0) if info.args else info.node_of("value"))
    return rx.Constant(arr, span=ev.span(info.node))


def _shape_value(ev: Evaluator, info: CallInfo):
    from .struct_info import shape_dim

    b = bind_params(ev, info, (("value", REQUIRED),))
    vals = b["value"]
    if not isinstance(vals, (tuple, list)):
        raise ev.error(info.node, f"R.shape expects a list of dimensions, got {prim.describe(vals)}")
    nodes = _dim_nodes(info, 0, "value")
    dims = tuple(shape_dim(ev, d, nodes[i] if i < len(nodes) else info.node, False) for i, d in enumerate(vals))
    return rx.ShapeExpr(dims, span=ev.span(info.node))


def _prim_value(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("value", REQUIRED),))
    v = b["value"]
    span = ev.span(info.node)
    if isinstance(v, bool) or isinstance(v, int):
        if not -(1 << 63) <= int(v) < (1 << 63):
            raise ev.error(info.node, f"R.prim_value: {v} does not fit in int64")
        return rx.PrimValue(P.IntImm(int(v), "int64"), span=span)
    if isinstance(v, float):
        # the dtype of a Python float differs between releases (TEXT.DIALECT.2)
        return rx.PrimValue(P.FloatImm(v, ev.ctx.relax_dialect.prim_value_float), span=span)
    if isinstance(v, P.PrimExpr):
        return rx.PrimValue(v, span=span)
    if prim.scalar_of(v) is not None:
        return rx.PrimValue(prim.scalar_of(v), span=span)
    raise ev.error(info.node, f"R.prim_value expects a number or a scalar expression, got {prim.describe(v)}")


def _str(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("value", REQUIRED),))
    if not isinstance(b["value"], str):
        raise ev.error(info.node, f"R.str expects a string literal, got {prim.describe(b['value'])}")
    return rx.StringImm(b["value"], span=ev.span(info.node))


def _dtype(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("value", REQUIRED),))
    v = b["value"]
    if isinstance(v, str) and v in ("", "void"):
        return rx.DataTypeImm("void", span=ev.span(info.node))
    return rx.DataTypeImm(prim.check_dtype(v, ev.span(info.node)), span=ev.span(info.node))


def _tuple_value(ev: Evaluator, info: CallInfo):
    if info.kwargs:
        raise ev.error(info.node, "R.tuple takes no keyword arguments")
    return rx.Tuple(tuple(to_relax_expr(ev, v, info.node_of(i)) for i, v in enumerate(info.args)),
                    span=ev.span(info.node))


def _match_cast(ev: Evaluator, info: CallInfo):
    if "ty" in info.kwargs:  # tvm-0.27's name of the keyword
        kw = dict(info.kwargs)
        kw["struct_info"] = kw.pop("ty")
        info = CallInfo(info.node, info.path, info.args, kw, info.arg_nodes,
                        {("struct_info" if k == "ty" else k): v for k, v in info.kw_nodes.items()})
    b = bind_params(ev, info, (("value", REQUIRED), ("struct_info", REQUIRED)))
    value = b["value"]
    if not isinstance(value, rx.Expr):
        raise ev.error(info.node_of(0), f"R.match_cast expects a Relax expression, got {prim.describe(value)}")
    sinfo = to_struct_info(ev, b["struct_info"], info.node_of(1) if len(info.args) > 1 else
                           info.node_of("struct_info"))
    return MatchCastPair(value, sinfo, info.node)


def _sinfo_list(ev, info, v, what):
    if v is None:
        return ()
    items = v if isinstance(v, (tuple, list)) else (v,)
    out = []
    for s in items:
        out.append(to_struct_info(ev, s, info.node_of(what)))
    return tuple(out)


def _call_packed(ev: Evaluator, info: CallInfo):
    """``R.call_packed("f", *args, sinfo_args=..., **attrs)``: other keywords are the call's
    attributes, as TVM prints them (TEXT.RELAX.1)."""
    kw = dict(info.kwargs)
    sinfo_value = kw.pop("sinfo_args", None)
    attrs = {k: check_attr_value(ev, kw.pop(k), info.node_of(k)) for k in list(kw) if k != "func"}
    sub = CallInfo(info.node, info.path, info.args, kw, info.arg_nodes, info.kw_nodes)
    b = bind_params(ev, sub, (("func", REQUIRED),), varargs="args")
    func = b["func"]
    if isinstance(func, rx.StringImm):
        func = func.value
    if isinstance(func, str):
        callee = rx.ExternFunc(func, span=ev.span(info.node_of(0)))
    elif isinstance(func, rx.ExternFunc):
        callee = func
    else:
        raise ev.error(info.node_of(0), f"R.call_packed expects the function name as a string, got "
                                        f"{prim.describe(func)}")
    args = tuple(to_relax_expr(ev, a, info.node_of(i + 1)) for i, a in enumerate(b["args"]))
    sinfo = _sinfo_list(ev, info, sinfo_value, "sinfo_args")
    return rx.Call(callee, args, Attrs(attrs), sinfo_args=sinfo, span=ev.span(info.node))


def _emit_with_sinfo(ev: Evaluator, info: CallInfo):
    """``R.emit_with_sinfo("relax.op", (args...), (sinfo...))`` (tvm-0.27: ``R.emit_with_ty`` /
    ``R.emit_with_type``, keyword ``ty_args``): a call of the named operator with the given arguments
    and struct-info arguments and no attributes (TEXT.RELAX.1)."""
    if "ty_args" in info.kwargs:  # tvm-0.27's name of the keyword
        info = CallInfo(info.node, info.path, info.args,
                        {("sinfo_args" if k == "ty_args" else k): v for k, v in info.kwargs.items()},
                        info.arg_nodes, {("sinfo_args" if k == "ty_args" else k): v for k, v in info.kw_nodes.items()})
    b = bind_params(ev, info, (("op", REQUIRED), ("args", REQUIRED), ("sinfo_args", None)))
    name = b["op"].value if isinstance(b["op"], rx.StringImm) else b["op"]
    if not isinstance(name, str) or registry.lookup(name) is None:
        raise ev.error(info.node_of(0), f"R.emit_with_sinfo expects the name of a Relax operator, got "
                                        f"{prim.describe(b['op'])}")
    items = b["args"]
    if isinstance(items, rx.Tuple):
        items = items.fields
    if not isinstance(items, (tuple, list)):
        raise ev.error(info.node_of(1), "R.emit_with_sinfo expects a tuple of arguments")
    args = tuple(to_relax_expr(ev, a, info.node_of(1)) for a in items)
    sinfo = _sinfo_list(ev, info, b["sinfo_args"], 2 if len(info.args) > 2 else "sinfo_args")
    return rx.Call(rx.Op(name), args, Attrs({}), sinfo_args=sinfo, span=ev.span(info.node))


def _extern_func(ev: Evaluator, info: CallInfo):
    """``R.ExternFunc("symbol")`` or ``R.ExternFunc("symbol", R.Callable(...))`` with the function's
    struct info (as TVM prints it when it is not the opaque default)."""
    b = bind_params(ev, info, (("global_symbol", REQUIRED), ("struct_info", None)))
    if not isinstance(b["global_symbol"], str):
        raise ev.error(info.node, "R.ExternFunc expects a string")
    s = b["struct_info"]
    if s is None:
        return rx.ExternFunc(b["global_symbol"], span=ev.span(info.node))
    sinfo = to_struct_info(ev, s, info.node_of(1) if len(info.args) > 1 else info.node_of("struct_info"))
    if not isinstance(sinfo, si.FuncStructInfo):
        raise ev.error(info.node, f"R.ExternFunc: the struct info of a function must be R.Callable(...), got "
                                  f"{sinfo}")
    return rx.ExternFunc(b["global_symbol"], struct_info=sinfo, span=ev.span(info.node))


def _shape_expr(ev: Evaluator, info: CallInfo):
    """``R.ShapeExpr([...])``, the node's own name: ``R.shape([...])``."""
    return _shape_value(ev, info)


def _tuple_get_item(ev: Evaluator, info: CallInfo):
    """``R.TupleGetItem(t, i)``, the node's own name: ``t[i]``."""
    b = bind_params(ev, info, (("tuple_value", REQUIRED), ("index", REQUIRED)))
    t, i = b["tuple_value"], b["index"]
    if isinstance(t, (tuple, list)):
        t = to_relax_expr(ev, t, info.node_of(0))
    if not isinstance(t, rx.Expr):
        raise ev.error(info.node_of(0), f"R.TupleGetItem expects a Relax expression, got {prim.describe(t)}")
    if isinstance(i, bool) or not isinstance(i, int) or i < 0:
        raise ev.error(info.node_of(1), f"R.TupleGetItem: the index must be a non-negative integer, got "
                                        f"{prim.describe(i)}")
    return rx.TupleGetItem(t, i, span=ev.span(info.node))


def _tvm_device(kind: str):
    """``tvm.cpu(0)`` / ``tvm.cuda(0)``: TVM's device objects, read as ``R.device(kind, index)``."""
    def handler(ev: Evaluator, info: CallInfo):
        from ...ops.core import parse_device

        b = bind_params(ev, info, (("dev_id", 0),))
        if isinstance(b["dev_id"], bool) or not isinstance(b["dev_id"], int):
            raise ev.error(info.node, f"{info.path} expects an integer device index")
        return {"device_type": parse_device(kind, ev.span(info.node))[0], "index": b["dev_id"]}
    return handler


def _device(ev: Evaluator, info: CallInfo):
    """``R.device(device_type, index=0)``, the device argument of ``R.hint_on_device`` as TVM 0.25
    prints it: a mapping with the keys ``device_type`` and ``index`` (read by
    :func:`relax_ref.ops.core.parse_device`)."""
    from ...ops.core import parse_device

    b = bind_params(ev, info, (("device_type", REQUIRED), ("index", 0)))
    kind, index = b["device_type"], b["index"]
    if isinstance(kind, str):
        kind = parse_device(kind, ev.span(info.node))[0]
    if isinstance(kind, bool) or not isinstance(kind, int) or isinstance(index, bool) or not isinstance(index, int):
        raise ev.error(info.node, f"R.device expects an integer or named device type and an integer index, got "
                                  f"{prim.describe(kind)} and {prim.describe(index)}")
    return {"device_type": kind, "index": index}


HANDLERS["R.const"] = _const
HANDLERS["R.shape"] = _shape_value
HANDLERS["R.prim_value"] = _prim_value
HANDLERS["R.str"] = _str
HANDLERS["R.dtype"] = _dtype
HANDLERS["R.tuple"] = _tuple_value
HANDLERS["R.match_cast"] = _match_cast
HANDLERS["R.call_packed"] = _call_packed
HANDLERS["R.emit_with_sinfo"] = _emit_with_sinfo
HANDLERS["R.emit_with_ty"] = _emit_with_sinfo     # tvm-0.27's spellings
HANDLERS["R.emit_with_type"] = _emit_with_sinfo
HANDLERS["R.ExternFunc"] = _extern_func
HANDLERS["R.device"] = _device
HANDLERS["R.ShapeExpr"] = _shape_expr
HANDLERS["R.TupleGetItem"] = _tuple_get_item
for _kind in ("cpu", "cuda", "gpu", "metal", "vulkan", "rocm", "opencl"):
    HANDLERS[f"tvm.{_kind}"] = _tvm_device(_kind)

STATEMENT_ONLY.update({
    "R.func_attr": "R.func_attr(...) is a statement at the top of a function body",
    "R.output": "R.output(...) is a statement at the end of a dataflow block",
    "R.dataflow": "R.dataflow() is only allowed as 'with R.dataflow():'",
    "R.function": "R.function is a decorator",
    "I.ir_module": "I.ir_module is a class decorator",
    "I.module_attrs": "I.module_attrs(...) is a statement in the module class body",
    "I.module_global_infos": "I.module_global_infos(...) is a statement in the module class body",
    "T.prim_func": "T.prim_func is a decorator",
})

__all__ = ["to_relax_expr", "const_array"]
