"""Shared machinery of the ``R.nn.*`` and ``R.image.*`` operators (spec page ``spec/ops/nn.md``,
rules OP.NN.*).

* **Construction** (OP.NN.ATTR.1). TVM 0.25's operator constructors complete some attributes before
  the call exists: a convolution or pooling ``padding`` of 1 value is repeated on every side, 2 values
  (2-d) are ``(top/bottom, left/right)``, 3 values (3-d) ``(front/back, top/bottom, left/right)``;
  a single ``strides``/``dilation``/``pool_size``/``output_padding`` value is repeated for every
  spatial dim; ``out_layout=None`` becomes the data layout and ``out_dtype=None`` becomes ``"void"``.
  The parser applies the same completion (:func:`with_constructor`), so the IR always holds the
  complete attribute; a wrong length is a parse error, as TVM's constructor check is.
* **Layouts** (OP.NN.LAYOUT.1-3). A layout names the axes (``NCHW``) and may split a primal axis with a
  sub-axis of fixed extent (``NCHW4c``, ``OIHW4i4o``); its primal axes must be those of the operator's
  canonical layout (``NCHW``, ``OIHW``, ``IOHW``, ...). :func:`layout_conversion` gives the conversion
  (:mod:`.layouts`); shapes and arrays go to the canonical layout and back through it
  (:func:`forward_shape`, :func:`backward_shape`, :func:`to_canonical`, :func:`from_canonical`, which
  also take a plain permutation). :func:`layout_perm` is the permutation-only form (packed layouts
  are ``UnsupportedError`` there).
* **Printing** (OP.NN.ATTR.2). Some operators print their attributes in TVM's attribute order rather
  than the Python parameter order (pools: ``dilation`` before ``padding``; ``pad``: ``pad_value``
  before ``pad_mode``): :func:`print_in_order`.
* numpy helpers shared by the reference semantics.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import OpRuntimeError, ParseError, UnsupportedError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.attrs import Attrs
from ..ir.struct_info import TensorStructInfo, TupleStructInfo
from . import common
from .layouts import LayoutConversion, LayoutError, UnsupportedLayout, parse_layout
from .opdef import OpDef, build_call

I64 = "int64"


def i64(v: int) -> P.IntImm:
    return P.IntImm(int(v), I64)


# ---------------------------------------------------------------------------------------------------
# Construction-time attribute completion (OP.NN.ATTR.1)
# ---------------------------------------------------------------------------------------------------


def _as_tuple(v: Any) -> Tuple[int, ...]:
    if v is None:
        return ()
    if isinstance(v, (list, tuple)):
        return tuple(int(x) for x in v)
    return (int(v),)


def complete_padding(padding: Any, nsp: int, op: str, span=None) -> Tuple[int, ...]:
    """TVM's ``GetCompletePadding{1,2,3}D``: ``2 * nsp`` values, all begins then all ends."""
    p = _as_tuple(padding)
    if len(p) == 1:
        return p * (2 * nsp)
    if len(p) == nsp and nsp > 1:
        return p + p
    if len(p) == 2 * nsp:
        return p
    allowed = {1: "1 or 2", 2: "1, 2 or 4", 3: "1, 3 or 6"}[nsp]
    raise ParseError(f"{op}: the padding length is expected to be {allowed}; got {list(p)}", span)


def repeat_to(values: Any, n: int, what: str, op: str, span=None, allow_one: bool = True) -> Tuple[int, ...]:
    """A per-spatial-dim attribute: one value is repeated ``n`` times (when ``allow_one``)."""
    v = _as_tuple(values)
    if len(v) == 1 and allow_one:
        v = v * n
    if len(v) != n:
        raise ParseError(f"{op}: the {what} length is expected to be {n}; got {list(v)}", span)
    return v


def with_constructor(opdef: OpDef, complete: Callable[[Dict[str, Any], Any], Dict[str, Any]]) -> OpDef:
    """Give ``opdef`` a ``parse_call`` that builds the generic call and then completes its attributes
    with ``complete(attrs, span)`` (OP.NN.ATTR.1)."""
    plain = dataclasses.replace(opdef, parse_call=None)

    def parse_call(_opdef, args, kwargs, span):
        call = build_call(plain, args, kwargs, span)
        attrs = complete(dict(call.attrs), span)
        return rx.Call(call.op, call.args, Attrs(attrs), call.sinfo_args, span=span)

    return dataclasses.replace(opdef, parse_call=parse_call)


def print_in_order(order: Sequence[str]) -> Callable:
    """A ``print_call`` that prints the arguments and then the attributes in ``order``
    (OP.NN.ATTR.2)."""

    def print_call(call: rx.Call, printer) -> str:
        parts = [printer.expr(a) for a in call.args]
        seen = set()
        for k in order:
            if k in call.attrs:
                parts.append(f"{k}={printer.attr(call.attrs[k])}")
                seen.add(k)
        for k in sorted(call.attrs):
            if k not in seen:
                parts.append(f"{k}={printer.attr(call.attrs[k])}")
        return f"R.{call.op.name[len('relax.'):]}({', '.join(parts)})"

    return print_call


# ---------------------------------------------------------------------------------------------------
# Layouts (OP.NN.LAYOUT.1)
# ---------------------------------------------------------------------------------------------------


def layout_perm(call: rx.Call, layout: str, target: str, what: str, ctx: Any = None) -> Tuple[int, ...]:
    """``perm[i]`` = position in ``layout`` of the ``i``-th axis of ``target``. StructInfoError when
    the layout is not a permutation of ``target``; UnsupportedError for packed layouts."""
    if not isinstance(layout, str) or not layout:
        raise common.error(call, f"the {what} layout must be a non-empty string, got {layout!r}", ctx)
    if any(not ch.isalpha() or ch.islower() for ch in layout):
        if all(ch.isalnum() for ch in layout):
            raise UnsupportedError(f"{common.op_name(call)}: the packed {what} layout {layout!r} is not supported "
                                   "(only permutations of the canonical layout are)", call.span)
        raise common.error(call, f"the {what} layout {layout!r} is not a valid layout", ctx)
    if len(set(layout)) != len(layout) or sorted(layout) != sorted(target):
        raise common.error(call, f"the operator requires the given {what} layout to be convertible from {target} "
                                 f"layout. However, the given layout {layout} is not convertible.", ctx)
    return tuple(layout.index(a) for a in target)


def layout_conversion(call: rx.Call, layout: str, target: str, what: str, ctx: Any = None) -> LayoutConversion:
    """The conversion of ``layout`` (plain or packed) to the canonical ``target`` (OP.NN.LAYOUT.1).
    StructInfoError (static, with TVM's wording) when the layout is invalid or not convertible."""
    try:
        lay = parse_layout(layout)
    except UnsupportedLayout as e:
        raise UnsupportedError(f"{common.op_name(call)}: {e}", call.span) from None
    except LayoutError as e:
        raise common.error(call, f"the {what} layout {layout!r} is not a valid layout: {e}", ctx) from None
    if sorted(lay.primals) != sorted(target):
        raise common.error(call, f"the operator requires the given {what} layout to be convertible from {target} "
                            f"layout. However, the given layout {layout} is not convertible.", ctx)
    return LayoutConversion(lay, target)


def _const_mul(v: Any, f: int) -> Any:
    if isinstance(v, P.IntImm):
        return i64(v.value * f)
    return P.mul(v, i64(f)) if isinstance(v, P.PrimExpr) else v * f


def _const_ceildiv(v: Any, f: int) -> Any:
    if isinstance(v, P.IntImm):
        return i64(-(-v.value // f))
    if not isinstance(v, P.PrimExpr):
        return -(-v // f)
    return P.floordiv(P.add(v, i64(f - 1)), i64(f))


def forward_shape(values: Sequence[Any], perm: Any, ctx: Any = None) -> List[Any]:
    """Dims in the canonical order (a packed axis times its factor, OP.NN.LAYOUT.2)."""
    if isinstance(perm, LayoutConversion) and perm.is_permutation:
        perm = perm.perm()
    if isinstance(perm, LayoutConversion):
        out = perm.forward_shape(values, _const_mul)
        return [simplify(ctx, e) if ctx is not None and isinstance(e, P.PrimExpr) else e for e in out]
    return [values[p] for p in perm]


def backward_shape(canonical: Sequence[Any], perm: Any, ctx: Any = None) -> List[Any]:
    """Dims in the layout order from dims in the canonical order (a packed axis rounded up to its
    factor, OP.NN.LAYOUT.3)."""
    if isinstance(perm, LayoutConversion) and perm.is_permutation:
        perm = perm.perm()
    if isinstance(perm, LayoutConversion):
        out = perm.backward_shape(canonical, _const_ceildiv)
        out = [i64(e) if isinstance(e, int) else e for e in out]
        return [simplify(ctx, e) if ctx is not None else e for e in out]
    out: List[Any] = [None] * len(perm)
    for i, p in enumerate(perm):
        out[p] = canonical[i]
    return out


def check_sub_axes(call: rx.Call, s: TensorStructInfo, conv: Any, what: str, ctx: Any = None) -> None:
    """A known extent of a sub-axis must be its factor (OP.NN.LAYOUT.2; TVM's ``TransformShape``)."""
    vals = shape_expr_values(s)
    if not isinstance(conv, LayoutConversion) or vals is None:
        return
    for pos, f in conv.sub_axes():
        v = vals[pos]
        if isinstance(v, P.IntImm) and v.value != f:
            raise common.error(call, f"the {what} layout {conv.layout.name} gives axis {pos} the extent {f}, but the "
                                f"{what} has extent {v.value} there", ctx)


def check_layout_arg(args: Any, i: int, conv: Any, what: str) -> None:
    """At run time (``OpDef.check``): the tensor argument ``i`` has the rank of its layout and each
    sub-axis of a packed layout has its factor as extent (OP.NN.LAYOUT.2)."""
    ndim = conv.ndim if isinstance(conv, LayoutConversion) else len(conv)
    if args.ndim(i) != ndim:
        raise args.error(OpRuntimeError, f"{args.op_name}: expects a rank-{ndim} {what} tensor, got rank "
                                         f"{args.ndim(i)}")
    if isinstance(conv, LayoutConversion):
        shape = args.shape(i)
        for pos, f in conv.sub_axes():
            if args.is_static(shape[pos]) and int(shape[pos]) != f:
                raise args.error(OpRuntimeError, f"{args.op_name}: the {what} layout {conv.layout.name} gives axis "
                                                 f"{pos} the extent {f}, but the {what} has extent {int(shape[pos])} "
                                                 "there")


def to_canonical(x: np.ndarray, perm: Any) -> np.ndarray:
    if isinstance(perm, LayoutConversion):
        return perm.to_canonical(x)
    return np.transpose(x, tuple(perm))


def from_canonical(y: np.ndarray, perm: Any) -> np.ndarray:
    if isinstance(perm, LayoutConversion):
        return perm.from_canonical(y)
    return np.transpose(y, tuple(int(i) for i in np.argsort(perm)))


def check_ndim(call: rx.Call, s: TensorStructInfo, ndim: Any, layout: str, ctx: Any = None) -> None:
    """TVM's ``CheckNdimPerLayoutAndGetShape``: a known rank must equal the layout's (``ndim`` is the
    rank, or the layout's conversion)."""
    if isinstance(ndim, LayoutConversion):
        ndim = ndim.ndim
    if s.ndim != -1 and s.ndim != ndim:
        raise common.error(call, f"layout {layout} requires the input to be {ndim}-dim tensor. However, the given "
                                 f"input has ndim {s.ndim}", ctx)


def shape_expr_values(s: TensorStructInfo) -> Optional[Tuple[P.PrimExpr, ...]]:
    """The dims when the shape is a ShapeExpr (TVM only reads ``shape.as<ShapeExprNode>()``)."""
    if isinstance(s.shape, rx.ShapeExpr):
        return tuple(s.shape.values)
    return None


def simplify(ctx: Any, e: P.PrimExpr) -> P.PrimExpr:
    """``ctx.analyzer.simplify`` plus TVM's canonical rule ``(x + k*c) // c -> x // c + k`` (for
    output-size formulas such as ``(n - 2) // 2 + 1``, which TVM prints as ``n // 2``)."""
    analyzer = getattr(ctx, "analyzer", None)
    if analyzer is None:
        return e
    out = analyzer.simplify(e)
    moved = _FloorDivOffsets().visit(out)
    return out if moved is out else analyzer.simplify(moved)


class _FloorDivOffsets:
    """Rewrite ``floordiv(x +/- k*c, c)`` (``c`` a positive constant) to ``floordiv(x, c) +/- k``."""

    def visit(self, e: P.PrimExpr) -> P.PrimExpr:
        if isinstance(e, P.FloorDiv) and isinstance(e.b, P.IntImm) and e.b.value > 0:
            a = self.visit(e.a)
            c = e.b.value
            if isinstance(a, (P.Add, P.Sub)) and isinstance(a.b, P.IntImm) and a.b.value % c == 0 and a.b.value:
                k = a.b.value // c
                base = P.floordiv(a.a, e.b)
                return P.add(base, P.IntImm(k, e.dtype)) if isinstance(a, P.Add) else P.sub(base, P.IntImm(k, e.dtype))
            return e if a is e.a else P.floordiv(a, e.b)
        if isinstance(e, P.BinaryOp) and not isinstance(e, P.CmpOp):
            a, b = self.visit(e.a), self.visit(e.b)
            if a is e.a and b is e.b:
                return e
            return type(e)(a, b)
        return e


def can_prove(ctx: Any, cond: P.PrimExpr) -> bool:
    analyzer = getattr(ctx, "analyzer", None)
    return bool(analyzer.can_prove(cond)) if analyzer is not None else False


def provably_unequal(ctx: Any, a: P.PrimExpr, b: P.PrimExpr) -> bool:
    if isinstance(a, P.IntImm) and isinstance(b, P.IntImm):
        return a.value != b.value
    return can_prove(ctx, P.ne(a, b))


def require_attr_len(call: rx.Call, name: str, n: int, ctx: Any = None) -> Tuple[int, ...]:
    """An integer-list attribute of exactly ``n`` values (calls built without the constructor)."""
    v = call.attrs.get(name)
    if not isinstance(v, (list, tuple)) or len(v) != n:
        raise common.error(call, f"the attribute {name} must have {n} values, got {v!r}", ctx)
    return tuple(int(x) for x in v)


# ---------------------------------------------------------------------------------------------------
# numpy helpers for the reference semantics
# ---------------------------------------------------------------------------------------------------


def np_dtype(dtype: str) -> np.dtype:
    return _dt.to_numpy(dtype)


def dtype_of(a: np.ndarray) -> str:
    return _dt.from_numpy(np.asarray(a).dtype)


def low_precision(dtype: str) -> bool:
    return dtype in ("float16", "bfloat16")


def tir_cast(x: np.ndarray, dst: str) -> np.ndarray:
    """Elementwise TIR ``Cast`` (PRIM.CAST.1-2)."""
    from .statistical import tir_cast as _cast

    return _cast(np.asarray(x), dtype_of(x), dst)


def inferred_tensor_dtype(call: rx.Call, fallback: str) -> str:
    s = call.struct_info
    if isinstance(s, TensorStructInfo) and s.dtype != "void":
        return s.dtype
    return fallback


def tuple_field_dtype(call: rx.Call, i: int, fallback: str) -> str:
    s = call.struct_info
    if isinstance(s, TupleStructInfo) and i < len(s.fields):
        f = s.fields[i]
        if isinstance(f, TensorStructInfo) and f.dtype != "void":
            return f.dtype
    return fallback


def intrin(name: str, dtype: str, *xs: np.ndarray) -> np.ndarray:
    """A TIR intrinsic elementwise with the shared scalar semantics (PRIM intrinsics table)."""
    from ..arith import lookup_intrinsic

    with np.errstate(all="ignore"):
        return np.asarray(lookup_intrinsic(f"tir.{name}")(dtype, *xs)).astype(np_dtype(dtype))


def compute_dtype(dtype: str) -> str:
    """The dtype float arithmetic of ``dtype`` is carried out in: 16-bit floats go through float32
    (TVM's CPU kernels), other floats are native."""
    return "float32" if low_precision(dtype) else dtype


def rounded(x: np.ndarray, dtype: str) -> np.ndarray:
    """Round an intermediate to ``dtype`` (each TIR stage stores its result in the dtype)."""
    with np.errstate(all="ignore"):
        return np.asarray(x).astype(np_dtype(dtype))


def staged(x: np.ndarray, dtype: str) -> np.ndarray:
    """Round to ``dtype`` and continue in the compute dtype (a stage boundary of a TIR kernel)."""
    with np.errstate(all="ignore"):
        return np.asarray(x).astype(np_dtype(dtype)).astype(np_dtype(compute_dtype(dtype)))


def intermediate_dtype(dtype: str) -> str:
    """The dtype an operator on ``dtype`` keeps its intermediate values in: float32 for bfloat16,
    whose operators round once at their result (OP.SEM.7), otherwise ``dtype`` (every stage rounded)."""
    return "float32" if _dt.float32_intermediates(dtype) else dtype


def float_const(v: float, dtype: str) -> np.ndarray:
    return np.array(v, dtype=np_dtype(dtype))


class FloatOps:
    """Float arithmetic that rounds every operation to ``dtype``, as one TIR operation of a
    legalized kernel does (16-bit floats are computed in float32 and rounded back)."""

    def __init__(self, dtype: str):
        self.dtype = dtype
        self.cd = np_dtype(compute_dtype(dtype))

    def _run(self, fn, *xs):
        with np.errstate(all="ignore"):
            out = fn(*[np.asarray(x).astype(self.cd) for x in xs])
            return np.asarray(out).astype(np_dtype(self.dtype))

    def add(self, a, b):
        return self._run(np.add, a, b)

    def sub(self, a, b):
        return self._run(np.subtract, a, b)

    def mul(self, a, b):
        return self._run(np.multiply, a, b)

    def div(self, a, b):
        return self._run(np.divide, a, b)

    def const(self, v) -> np.ndarray:
        return np.array(v, dtype=np_dtype(self.dtype))

    def intrin(self, name: str, x):
        return intrin(name, self.dtype, np.asarray(x).astype(np_dtype(self.dtype)))

    def sqrt(self, x):
        return self.intrin("sqrt", x)

    def sum(self, x, axis, keepdims=False):
        """A sum reduction in the dtype (accumulated in the compute dtype: defined up to
        reassociation, OP.SEM.5)."""
        with np.errstate(all="ignore"):
            out = np.sum(np.asarray(x).astype(self.cd), axis=axis, keepdims=keepdims)
            return np.asarray(out).astype(np_dtype(self.dtype))


def tir_max_reduce(x: np.ndarray, axis: int, keepdims: bool = False) -> np.ndarray:
    """TIR's ``max`` reduction from the lowest finite value with ``acc > v ? acc : v``
    (OP.STAT.SEM.3): equal to ``np.max`` unless a NaN is present; an empty axis gives the
    identity."""
    x = np.asarray(x)
    dt = dtype_of(x)
    if x.shape[axis] == 0 or (_dt.is_float(dt) and np.isnan(x.astype(np.float64) if dt == "bfloat16" else x).any()):
        lo = np.array(_dt.min_value(dt), dtype=x.dtype)
        moved = np.moveaxis(x, axis, -1)
        acc = np.full(moved.shape[:-1], lo, dtype=x.dtype)
        for k in range(moved.shape[-1]):
            v = moved[..., k]
            acc = np.where(acc > v, acc, v).astype(x.dtype)
        return np.expand_dims(acc, axis) if keepdims else acc
    return np.max(x, axis=axis, keepdims=keepdims)


def check_float_tensor(call: rx.Call, x: np.ndarray, what: str = "data") -> str:
    dt = dtype_of(x)
    if not _dt.is_float(dt):
        raise UnsupportedError(f"{common.op_name(call)}: {what} of dtype {dt} (only floats are supported)", call.span)
    return dt


__all__ = [
    "I64", "i64", "complete_padding", "repeat_to", "with_constructor", "print_in_order", "layout_perm",
    "layout_conversion", "check_sub_axes", "check_layout_arg",
    "forward_shape", "backward_shape", "to_canonical", "from_canonical", "check_ndim", "shape_expr_values",
    "simplify", "can_prove", "provably_unequal", "require_attr_len", "np_dtype", "dtype_of", "low_precision",
    "intermediate_dtype",
    "tir_cast", "inferred_tensor_dtype", "tuple_field_dtype", "intrin", "compute_dtype", "rounded", "staged",
    "float_const", "check_float_tensor", "FloatOps", "tir_max_reduce",
]
