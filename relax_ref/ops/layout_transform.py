"""``relax.layout_transform`` and its index map (spec page ``spec/ops/layout_transform.md``).

An :class:`IndexMap` is data: the input index variables and one scalar expression over them per
output dimension (TVM's ``tirx.IndexMap``). It is built from a Python callable with
:meth:`IndexMap.from_func` (the builder API, as TVM's ``relax.op.layout_transform``) and printed as
TVM prints it, ``T.index_map(lambda a, b: (b, a))``.

Semantics (OP.layout_transform.C4): ``out = full(map_shape(x.shape), pad_value)`` and
``out[f(i)] = x[i]`` for every index ``i`` of ``x`` (row-major order, so a non-injective map keeps
the last element); ``pad_value`` defaults to 0.

Output shape (OP.layout_transform.C3, TVM's ``IndexMap::MapShape``): each output extent is
``max(f_k) + 1`` over the input domain. relax-ref computes it exactly when every input dim used by
the expression is a constant (by evaluating the map), and symbolically for the forms ``v``,
``v // c``, ``v % c`` and constants (``ceildiv(d, c)``, ``c``, ``1``); for other symbolic forms the
result has a known rank only (TVM derives a formula with its iterator-map analysis).
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import OpRuntimeError, StructInfoError, UnsupportedError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.attrs import Attrs
from ..ir.functor import prim_vars_in, substitute_prim
from ..ir.struct_info import TensorStructInfo
from . import common
from . import te_ops
from . import manipulate_util
from .args import OpArgs
from .opdef import OpDef, arg, attr
from .scatter import _Kernel

_I64 = manipulate_util.int64
#: the largest input domain whose map is evaluated point by point to find static output extents
MAX_EVAL_POINTS = 1 << 22


@dataclass(frozen=True)
class IndexMap:
    """``lambda *initial_indices: final_indices`` (TVM's ``IndexMap``)."""

    initial_indices: Tuple[P.PrimVar, ...]
    final_indices: Tuple[P.PrimExpr, ...]

    def __post_init__(self):
        object.__setattr__(self, "initial_indices", tuple(self.initial_indices))
        object.__setattr__(self, "final_indices", tuple(self.final_indices))

    @staticmethod
    def from_func(fn: Callable[..., Any], index_dtype: str = "int64") -> "IndexMap":
        """Call ``fn`` with one ``index_dtype`` variable per positional parameter (named after it)."""
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        vs = tuple(P.PrimVar(p.name, index_dtype) for p in params)
        out = fn(*vs)
        if not isinstance(out, (tuple, list)):
            out = (out,)
        finals = tuple(P.IntImm(v, index_dtype) if isinstance(v, int) and not isinstance(v, bool) else v
                       for v in out)
        for f in finals:
            if not isinstance(f, P.PrimExpr):
                raise StructInfoError(f"an index map must return integer expressions, got {f!r}")
        return IndexMap(vs, finals)

    def map_indices(self, indices: Sequence[P.PrimExpr]) -> Tuple[P.PrimExpr, ...]:
        vmap = dict(zip(self.initial_indices, indices))
        return tuple(substitute_prim(f, vmap) for f in self.final_indices)


# ---------------------------------------------------------------------------------------------------
# Evaluation on numpy grids and output shapes
# ---------------------------------------------------------------------------------------------------


def _np_eval(e: P.PrimExpr, env: Dict[P.PrimVar, np.ndarray]) -> np.ndarray:
    """Integer evaluation of an index expression (floor division/modulo as TIR)."""
    if isinstance(e, P.IntImm):
        return np.int64(e.value)
    if isinstance(e, P.PrimVar):
        if e not in env:
            raise UnsupportedError(f"index map: free variable '{e.name}'")
        return env[e]
    if isinstance(e, P.Cast):
        return _np_eval(e.value, env)
    binops = {P.Add: np.add, P.Sub: np.subtract, P.Mul: np.multiply, P.Min: np.minimum, P.Max: np.maximum}
    for cls, fn in binops.items():
        if type(e) is cls:
            return fn(_np_eval(e.a, env), _np_eval(e.b, env))
    if isinstance(e, (P.FloorDiv, P.FloorMod)):
        a, b = _np_eval(e.a, env), _np_eval(e.b, env)
        if np.any(np.asarray(b) == 0):
            raise OpRuntimeError("index map: division by zero")
        return np.floor_divide(a, b) if isinstance(e, P.FloorDiv) else np.mod(a, b)
    raise UnsupportedError(f"index map: unsupported expression {type(e).__name__}")


def _grid(imap: IndexMap, shape: Sequence[int], used: Sequence[P.PrimVar]) -> Dict[P.PrimVar, np.ndarray]:
    dims = [int(shape[imap.initial_indices.index(v)]) for v in used]
    grids = np.indices(dims, dtype=np.int64) if dims else np.zeros((0,), np.int64)
    return {v: grids[k].reshape(-1) for k, v in enumerate(used)}


def map_shape(imap: IndexMap, shape: Sequence[P.PrimExpr], ctx: Any = None) -> Optional[Tuple[P.PrimExpr, ...]]:
    """OP.layout_transform.C3: the output extents, or None when one cannot be derived."""
    dim_of = dict(zip(imap.initial_indices, shape))
    for d in shape:
        if isinstance(d, P.IntImm) and d.value < 0:
            raise StructInfoError(f"the input extent {d.value} is negative: no tensor has it (RUNTIME.LIMIT.1)")
    out: List[P.PrimExpr] = []
    for f in imap.final_indices:
        used = [v for v in imap.initial_indices if v in set(prim_vars_in(f))]
        if all(isinstance(dim_of[v], P.IntImm) for v in used):
            n = math.prod(dim_of[v].value for v in used)     # exact: an int64 product can wrap to 0
            if n == 0:
                out.append(_I64(0))
                continue
            if n > MAX_EVAL_POINTS:
                return None
            vals = np.asarray(_np_eval(f, _grid(imap, [dim_of[v].value if v in used else 0
                                                      for v in imap.initial_indices], used)))
            if vals.size and vals.min() < 0:
                raise StructInfoError(f"the index map gives negative index {int(vals.min())}")
            out.append(_I64(int(vals.max()) + 1))
            continue
        e = _symbolic_extent(f, dim_of, ctx)
        if e is None:
            return None
        out.append(e)
    return tuple(out)


def _symbolic_extent(f: P.PrimExpr, dim_of, ctx) -> Optional[P.PrimExpr]:
    if isinstance(f, P.PrimVar) and f in dim_of:
        return dim_of[f]
    if isinstance(f, (P.FloorDiv, P.FloorMod)) and isinstance(f.a, P.PrimVar) and f.a in dim_of \
            and isinstance(f.b, P.IntImm) and f.b.value > 0:
        if isinstance(f, P.FloorMod):
            return _I64(f.b.value)
        d, c = dim_of[f.a], f.b.value
        return manipulate_util.simplify(ctx, te_ops.floordiv(te_ops.add(d, _I64(c - 1)), _I64(c)))
    return None


# ---------------------------------------------------------------------------------------------------
# The operator
# ---------------------------------------------------------------------------------------------------


def _infer(call, ctx):
    """OP.layout_transform.C1-C3 (TVM's ``InferStructInfoLayoutTransform``)."""
    data = common.tensor_args(call, 1, ctx)[0]
    imap = call.attrs["index_map"]
    if not isinstance(imap, IndexMap):
        raise common.error(call, "layout_transform requires an index map", ctx)
    pad = call.attrs.get("pad_value")
    if pad is not None and pad.value.dtype != data.dtype:  # C1
        raise common.error(call, f"layout_transform pad_value dtype ({pad.value.dtype}) and input dtype "
                                 f"({data.dtype}) must be the same", ctx)
    n_out = len(imap.final_indices)
    if data.ndim == -1:
        return TensorStructInfo(None, data.dtype, n_out, data.vdevice)
    if len(imap.initial_indices) != data.ndim:  # C2
        raise common.error(call, "number of dimensions in input must match the number of source dimensions in "
                                 f"index map, but got {data.ndim} != {len(imap.initial_indices)}", ctx)
    vals = data.shape_values
    if vals is None:
        return TensorStructInfo(None, data.dtype, n_out, data.vdevice)
    shape = map_shape(imap, vals, ctx)  # C3
    if shape is None:
        return TensorStructInfo(None, data.dtype, n_out, data.vdevice)
    return TensorStructInfo(rx.ShapeExpr(shape), data.dtype, vdevice=data.vdevice)


def _pad_scalar(call, dtype: np.dtype):
    pad = call.attrs.get("pad_value")
    return np.array(0 if pad is None else pad.value.value).astype(dtype)


def _check(args: OpArgs) -> None:
    """OP.layout_transform.C3 at run time: the index map takes one index per axis; the tensor is small
    enough to evaluate the map on it (:data:`MAX_EVAL_POINTS`)."""
    imap: IndexMap = args.attrs["index_map"]
    nd = args.ndim(0)
    if len(imap.initial_indices) != nd:
        raise args.error(OpRuntimeError, f"{args.op_name}: the index map takes {len(imap.initial_indices)} indices, "
                                         f"the tensor has rank {nd}")
    if map_shape(imap, [_I64(d) for d in args.shape(0)]) is None:
        raise args.error(UnsupportedError, "relax.layout_transform: the tensor is too large to evaluate its index map")


def _reference(args, attrs, call, ctx):
    x = args[0]
    imap: IndexMap = attrs["index_map"]
    shape = map_shape(imap, [_I64(d) for d in x.shape])
    out_shape = tuple(int(d.value) for d in shape)
    out = np.full(out_shape, _pad_scalar(call, x.dtype), dtype=x.dtype)
    if x.size:
        env = _grid(imap, x.shape, list(imap.initial_indices))
        idx = tuple(np.broadcast_to(np.asarray(_np_eval(f, env)), (x.size,)) for f in imap.final_indices)
        out[idx] = np.reshape(x, (-1,))
    manipulate_util.check_result_shape(call, ctx, out, infer=_infer)
    return out


def _legalize(call, ctx):
    """A two-phase kernel (as TVM's ``transform_layout`` of a copy): fill the output with the pad
    value, then store every input element at its mapped position."""
    if not manipulate_util.legalizable(call):
        return None
    imap: IndexMap = call.attrs["index_map"]
    k = _Kernel()
    x = k.buffer(call.args[0].struct_info, "x")
    out = k.buffer(call.struct_info, "te_layout_transform")
    pad = call.attrs.get("pad_value")
    pv = te_ops.const(0, x.dtype) if pad is None else te_ops.cast(x.dtype, pad.value)
    n_in = int(np.prod([d.value for d in x.shape])) if all(isinstance(d, P.IntImm) for d in x.shape) else None
    n_out = int(np.prod([d.value for d in out.shape])) if all(isinstance(d, P.IntImm) for d in out.shape) else None
    if n_in is not None and n_in == n_out:
        # every output element is written: TVM's form, one block over the input's elements
        gv = ctx.add_prim_func(_store_block(k, x, out, imap), "te_layout_transform")
        return ctx.call_tir(gv, [call.args[0]], [call.struct_info])
    fill = k.loops(out.shape, lambda i: tir.BufferStore(out, pv, tuple(i)), "i")
    store = k.loops(x.shape, lambda i: tir.BufferStore(out, tir.BufferLoad(x, tuple(i)),
                                                        tuple(te_ops.cast("int64", e) for e in imap.map_indices(i))),
                                                        "j")
    name = "te_layout_transform" + ("_with_pad" if n_in != n_out else "")
    gv = ctx.add_prim_func(k.func(fill, store), name)
    return ctx.call_tir(gv, [call.args[0]], [call.struct_info])


def _store_block(k: _Kernel, x: tir.Buffer, out: tir.Buffer, imap: "IndexMap") -> tir.PrimFunc:
    """(OP.layout_transform legalization) ``out[map(v)] = x[v]`` in one spatial block over ``x``'s
    shape under a root block, as TVM's ``transform_layout`` of a copy writes it when the map covers the
    output exactly."""
    one = P.IntImm(1, "int64")
    loops = [P.PrimVar(f"i{d}", "int64") for d in range(len(x.shape))]
    iters = [P.PrimVar(f"v_i{d}", "int64") for d in range(len(x.shape))]
    dst = tuple(te_ops.cast("int64", e) for e in imap.map_indices(iters))
    block = tir.Block(name="te_layout_transform",
                      iter_vars=tuple(tir.IterVar(v, tir.Range(P.IntImm(0, "int64"), ext), "spatial")
                                      for v, ext in zip(iters, x.shape)),
                      reads=(tir.BufferRegion(x, tuple(tir.Range(v, one) for v in iters)),),
                      writes=(tir.BufferRegion(out, tuple(tir.Range(e, one) for e in dst)),),
                      body=tir.BufferStore(out, tir.BufferLoad(x, tuple(iters)), dst))
    stmt: tir.Stmt = tir.BlockRealize(tuple(loops), P.IntImm(1, "bool"), block)
    for lv, ext in reversed(list(zip(loops, x.shape))):
        stmt = tir.For(lv, P.IntImm(0, "int64"), ext, "serial", stmt)
    root = tir.BlockRealize((), P.IntImm(1, "bool"), tir.Block(name="root", body=stmt))
    return tir.PrimFunc(tuple(k.params), root, tuple(k.buffer_map), attrs={"tir.noalias": True})


def layout_transform_call(x: rx.Expr, index_map: Any, pad_value: Any = None, axis_separators: Any = None,
                          input_axis_separators: Any = None, span=None) -> rx.Call:
    """Build ``R.layout_transform`` as TVM's ``relax.op.layout_transform`` does: a callable becomes an
    int64 :class:`IndexMap`; a Python number ``pad_value`` takes ``x``'s dtype (ints for integer
    tensors, floats for float tensors)."""
    imap = index_map if isinstance(index_map, IndexMap) else IndexMap.from_func(index_map)
    dtype = x.struct_info.dtype if isinstance(x.struct_info, TensorStructInfo) else "void"
    if pad_value is not None and not isinstance(pad_value, rx.PrimValue):
        if "int" in dtype and isinstance(pad_value, int) and not isinstance(pad_value, bool):
            pad_value = rx.PrimValue(P.IntImm(pad_value, dtype))
        elif "float" in dtype and isinstance(pad_value, (int, float)) and not isinstance(pad_value, bool):
            pad_value = rx.PrimValue(P.FloatImm(float(pad_value), dtype))
        elif isinstance(pad_value, P.PrimExpr):
            pad_value = rx.PrimValue(pad_value)
        else:
            raise StructInfoError(f"layout_transform: cannot use {pad_value!r} as the pad value of a {dtype} "
                                  "tensor")

    def seps(v):
        if v is None:
            return ()
        return tuple(v) if isinstance(v, (list, tuple)) else (v,)

    attrs = Attrs({"index_map": imap, "pad_value": pad_value, "axis_separators": seps(axis_separators),
                   "input_axis_separators": seps(input_axis_separators)})
    return rx.Call(rx.Op("relax.layout_transform"), (x,), attrs, span=span)


def _parse_call(opdef, args, kwargs, span):
    names = [p.name for p in opdef.params]
    bound = dict(zip(names, args))
    bound.update(kwargs)
    if "x" not in bound or "index_map" not in bound:
        from ..errors import ParseError

        raise ParseError("R.layout_transform needs x and index_map", span)
    return layout_transform_call(bound["x"], bound["index_map"], bound.get("pad_value"),
                                 bound.get("axis_separators"), bound.get("input_axis_separators"), span)


def print_index_map(imap: IndexMap, printer) -> str:
    """``T.index_map(lambda i, j: (...))``; the indices print under their own names with the printer's
    scalar-expression printer class."""
    ctx = getattr(printer, "ctx", None)
    if ctx is not None:
        ctx.used_ns.add("T")  # the header must import T for T.index_map
    pp = type(printer.prim)(printer.prim.dialect, "relax", lambda v: v.name)
    params = ", ".join(v.name for v in imap.initial_indices)
    outs = ", ".join(pp(e) for e in imap.final_indices)
    if len(imap.final_indices) == 1:
        outs += ","
    return f"T.index_map(lambda {params}: ({outs}))"


def _print_call(call: rx.Call, printer) -> str:
    """TVM's form: ``R.layout_transform(x, index_map=T.index_map(lambda ...), pad_value=...,
    axis_separators=[...], input_axis_separators=[...])``."""
    a = call.attrs
    pad = a.get("pad_value")
    parts = [printer.expr(call.args[0]), f"index_map={print_index_map(a['index_map'], printer)}",
             f"pad_value={'None' if pad is None else printer.expr(pad)}"]
    for k in ("axis_separators", "input_axis_separators"):
        v = tuple(a.get(k, ()))
        if v or printer.accepts_keyword("R.layout_transform", k):  # TVM 0.27 has no axis separators
            parts.append(f"{k}={printer.attr(v)}")
    return f"R.layout_transform({', '.join(parts)})"


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


OPS.append(OpDef(
    name="relax.layout_transform", script="R.layout_transform",
    params=(arg("x"), attr("index_map", "any"), attr("pad_value", "any", None), attr("axis_separators", "any", None),
            attr("input_axis_separators", "any", None)),
    infer=_infer, check=_check, reference=_reference, legalize=_legalize, parse_call=_parse_call,
    print_call=_print_call,
    category="manipulation",
    doc="``R.layout_transform(x, index_map, pad_value=None, axis_separators=None, input_axis_separators=None)``: "
        "move every element to the position given by the index map (OP.layout_transform.C1)."))

__all__ = ["IndexMap", "map_shape", "layout_transform_call", "print_index_map", "MAX_EVAL_POINTS"]
