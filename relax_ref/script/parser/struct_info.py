"""Struct-info annotations: ``R.Tensor`` / ``R.Shape`` / ``R.Prim`` / ``R.Tuple`` / ``R.Object`` /
``R.Callable`` proxies turned into :mod:`relax_ref.ir.struct_info` nodes (TEXT.SINFO.1-3).

String dimensions (``R.Tensor(("n", 4))``, ``R.Shape(["n * 2"])``, ``R.Prim(value="k + 1")``) are
accepted only in function parameter and return annotations (``signature=True``), as in TVM. A string
that is a bare identifier names a symbolic variable (created by the function parser before the
annotations are converted); any other string is parsed as a scalar expression -- with the same safe
evaluator, never with ``eval`` -- over the names in scope.
"""

from __future__ import annotations

import ast
from typing import Any, List, Optional

from ...errors import StructInfoError
from ..dialect import SCALAR_TYPE_NAMES
from ...ir import expr as rx
from ...ir import prim_expr as P
from ...ir import struct_info as si
from . import prim
from .source import parse_python
from .values import (
    CallableProxy, DTensorProxy, ObjectProxy, PrimProxy, Ref, ShapeProxy, SIProxy, TensorProxy, TupleProxy,
)

#: bare names usable as annotations without a call (``R.Any`` and ``R.PackedFunc`` are tvm-0.27's
#: spellings of ``R.Object`` and of an opaque ``R.Callable``)
SI_REFS = {"R.Tensor": TensorProxy, "R.Shape": ShapeProxy, "R.Object": ObjectProxy, "R.Tuple": TupleProxy,
           "R.Callable": CallableProxy, "R.Any": ObjectProxy, "R.PackedFunc": CallableProxy}


def prim_type_ref(v: Any) -> Optional[str]:
    """The dtype of a ``T.int64``-style annotation (tvm-0.27's ``R.Prim("int64")``), else None."""
    if isinstance(v, Ref) and v.path.startswith("T.") and v.path[2:] in SCALAR_TYPE_NAMES:
        return v.path[2:]
    return None


def _ref_proxy(v: Ref, node, ev) -> SIProxy:
    if v.path == "R.Prim":
        raise ev.error(node, "R.Prim needs a dtype or a value, e.g. R.Prim(\"int64\")")
    if v.path == "R.Tuple":
        return TupleProxy((), node)
    dtype = prim_type_ref(v)
    if dtype is not None:
        return PrimProxy(dtype, None, node)
    return SI_REFS[v.path](node=node)


def is_si_ref(v: Any) -> bool:
    return isinstance(v, Ref) and (v.path in SI_REFS or v.path == "R.Prim" or prim_type_ref(v) is not None)


def collect_symbol_names(v: Any) -> List[str]:
    """Identifier strings in a (parameter) annotation, in order of appearance (TEXT.SINFO.2).

    As in TVM: Tensor shape dims, Shape values and Prim values, inside Tuple fields and Callable
    parameters (not Callable returns)."""
    out: List[str] = []

    def add(s):
        if isinstance(s, str) and s.isidentifier() and s not in out:
            out.append(s)

    def walk(p):
        if isinstance(p, DTensorProxy):
            p = p.tensor
        if isinstance(p, TensorProxy):
            if isinstance(p.shape, (list, tuple)):
                for d in p.shape:
                    add(d)
        elif isinstance(p, ShapeProxy):
            for d in p.values or ():
                add(d)
        elif isinstance(p, PrimProxy):
            add(p.value)
        elif isinstance(p, TupleProxy):
            for f in p.fields:
                walk(f)
        elif isinstance(p, CallableProxy):
            for f in p.params or ():
                walk(f)

    walk(v)
    return out


def eval_string_dim(ev, text: str, node: ast.AST) -> Any:
    """Evaluate a string dimension such as ``"n * 2"`` or ``"T.min(1, k)"`` safely."""
    sub = ev.src.sub_source(text, node) if isinstance(node, ast.Constant) else ev.src
    tree = parse_python(sub, mode="eval")
    sub_ev = type(ev)(ev.ctx, ev.scope, "tir" if ev.mode == "tir" else "relax", sub)   # an Evaluator
    val = sub_ev.eval_node(tree.body)
    if not (isinstance(val, P.PrimExpr) or (isinstance(val, int) and not isinstance(val, bool))):
        raise ev.error(node, f"the string dimension {text!r} is not an integer expression")
    return val


def shape_dim(ev, v: Any, node: ast.AST, signature: bool) -> P.PrimExpr:
    """One dimension of a Relax shape: an int64 scalar expression (SI.SHAPE.1)."""
    if isinstance(v, str):
        if not signature:
            raise ev.error(node, "string-defined shape dimensions are only allowed in function parameter and "
                                 "return annotations")
        v = eval_string_dim(ev, v, node)
    if isinstance(v, bool):
        raise ev.error(node, "a shape dimension cannot be a bool")
    if isinstance(v, int):
        if not -(1 << 63) <= v < (1 << 63):
            raise ev.error(node, f"shape dimension {v} does not fit in int64")
        return P.IntImm(v, "int64")
    if prim.scalar_of(v) is not None:
        v = prim.scalar_of(v)
    if isinstance(v, P.IntImm) and v.dtype != "bool" and not v.dtype.startswith("float"):
        return P.IntImm(v.value, "int64")
    if isinstance(v, P.PrimExpr):
        if v.dtype != "int64":
            raise ev.error(node, f"shape dimensions must be int64 expressions, got {P.to_str(v)} of dtype "
                                 f"{v.dtype}")
        return v
    raise ev.error(node, f"invalid shape dimension: {prim.describe(v)}")


def _dims(ev, values, nodes, node, signature):
    out = []
    for i, d in enumerate(values):
        dn = nodes[i] if i < len(nodes) and nodes[i] is not None else node
        out.append(shape_dim(ev, d, dn, signature))
    return tuple(out)


def to_struct_info(ev, v: Any, node: ast.AST, *, signature: bool = False) -> si.StructInfo:
    """Convert an evaluated annotation to struct info; ParseError if it is not one."""
    if isinstance(v, si.StructInfo):
        return v
    if v is None:
        return si.TupleStructInfo(())
    if isinstance(v, Ref):
        if not is_si_ref(v):
            raise ev.error(node, f"'{v.path}' is not a struct-info annotation")
        v = _ref_proxy(v, node, ev)
    if not isinstance(v, SIProxy):
        raise ev.error(node, f"expected a struct-info annotation such as R.Tensor(...), got {prim.describe(v)}")
    pnode = v.node if v.node is not None else node
    try:
        return _convert(ev, v, pnode, signature)
    except StructInfoError as e:
        raise ev.error(pnode, e.message) from None


def _convert(ev, v: SIProxy, node, signature: bool) -> si.StructInfo:
    span = ev.span(node)
    if isinstance(v, ObjectProxy):
        return si.ObjectStructInfo()
    if isinstance(v, DTensorProxy):
        return _dtensor(ev, v, node, signature)
    if isinstance(v, TensorProxy):
        dtype = "void" if v.dtype is None else prim.check_dtype(v.dtype, span, allow_handle=False)
        vdev = ev.ctx.lookup_vdevice(v.vdevice, node) if v.vdevice is not None else None
        shape = v.shape
        if shape is None:
            return si.TensorStructInfo(None, dtype, v.ndim, vdev)
        if isinstance(shape, rx.ShapeExpr):
            return si.TensorStructInfo(shape, dtype, v.ndim, vdev)
        if isinstance(shape, rx.Var):
            if shape.struct_info is not None and not isinstance(shape.struct_info, si.ShapeStructInfo):
                raise ev.error(node, f"the shape of R.Tensor must be a shape, but '{shape.name_hint}' is not")
            return si.TensorStructInfo(shape, dtype, v.ndim, vdev)
        dims = _dims(ev, shape, v.dim_nodes, node, signature)
        if v.ndim not in (-1, len(dims)):
            raise ev.error(node, f"R.Tensor: ndim={v.ndim} disagrees with a shape of {len(dims)} dimensions")
        return si.TensorStructInfo(rx.ShapeExpr(dims, span=span), dtype, len(dims), vdev)
    if isinstance(v, ShapeProxy):
        if v.values is None:
            return si.ShapeStructInfo(None, v.ndim)
        dims = _dims(ev, v.values, v.dim_nodes, node, signature)
        if v.ndim not in (-1, len(dims)):
            raise ev.error(node, f"R.Shape: ndim={v.ndim} disagrees with {len(dims)} values")
        return si.ShapeStructInfo(dims)
    if isinstance(v, PrimProxy):
        dtype = None if v.dtype is None else prim.check_dtype(v.dtype, span, allow_handle=False)
        if v.value is None:
            return si.PrimStructInfo(dtype)
        vn = v.value_node if v.value_node is not None else node
        val = v.value
        if isinstance(val, str):
            if not signature:
                raise ev.error(vn, "string-defined values are only allowed in function parameter and return "
                                   "annotations")
            val = eval_string_dim(ev, val, vn)
        if isinstance(val, bool):
            val = P.IntImm(int(val), "bool")
        elif isinstance(val, int):
            val = P.IntImm(val, "int64") if dtype is None else prim.lit(val, dtype, ev.span(vn))
        elif isinstance(val, float):
            val = prim.lit(val, dtype or "float32", ev.span(vn))
        elif prim.scalar_of(val) is not None:
            val = prim.scalar_of(val)
        if not isinstance(val, P.PrimExpr):
            raise ev.error(vn, f"R.Prim value must be a scalar expression, got {prim.describe(val)}")
        if dtype is not None and val.dtype != dtype:
            if isinstance(val, (P.IntImm, P.FloatImm)):
                val = prim.cast(dtype, val)
            else:
                raise ev.error(vn, f"R.Prim: value of dtype {val.dtype} disagrees with dtype {dtype}")
        return si.PrimStructInfo(val.dtype, val)
    if isinstance(v, TupleProxy):
        return si.TupleStructInfo(tuple(to_struct_info(ev, f, node, signature=signature) for f in v.fields))
    if isinstance(v, CallableProxy):
        ret = si.ObjectStructInfo() if v.ret is None else to_struct_info(ev, v.ret, node, signature=signature)
        if v.params is None:
            purity = False if v.purity is None else v.purity
            return si.FuncStructInfo(None, ret, purity, v.derive_func)
        params = tuple(to_struct_info(ev, p, node, signature=signature) for p in v.params)
        purity = True if v.purity is None else v.purity
        return si.FuncStructInfo(params, ret, purity)
    raise ev.error(node, "unknown struct-info annotation")


def _dtensor(ev, v: DTensorProxy, node, signature: bool) -> si.StructInfo:
    """``R.DTensor``: the tensor part converted as ``R.Tensor``, the mesh looked up in the module's
    global infos when named, the placement read from its text (DIST.TEXT.1, DIST.SI.2)."""
    from ...ir.distributed import DeviceMesh, DTensorStructInfo, Placement

    tensor = _convert(ev, v.tensor, node, signature)
    mesh = v.device_mesh
    if not isinstance(mesh, DeviceMesh):
        mesh = ev.ctx.lookup_mesh(mesh, node)
    placement = Placement.from_text(v.placement)
    return DTensorStructInfo.of(tensor, mesh, placement)


def convert_proxies(ev, v: Any, node: ast.AST) -> Any:
    """Turn struct-info proxies (and bare ``R.Tensor`` etc.) inside call arguments into struct info."""
    if isinstance(v, SIProxy) or is_si_ref(v):
        return to_struct_info(ev, v, node)
    if isinstance(v, tuple):
        return tuple(convert_proxies(ev, x, node) for x in v)
    if isinstance(v, list):
        return [convert_proxies(ev, x, node) for x in v]
    return v


__all__ = ["SI_REFS", "is_si_ref", "prim_type_ref", "collect_symbol_names", "eval_string_dim", "shape_dim", "to_struct_info",
           "convert_proxies"]
