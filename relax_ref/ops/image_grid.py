"""Sampling grids: ``image.affine_grid`` (spec page ``spec/ops/image.affine_grid.md``), part of the
image family (:mod:`.image`).

``affine_grid(theta, size)`` maps a uniform grid over the target ``size`` (``(H, W)`` or
``(D, H, W)``), normalized to ``[-1, 1]``, through the affine matrices ``theta`` ``(N, k, k + 1)``:
``out[n, d, *p] = theta[n, d, k] + sum over r of theta[n, d, k - 1 - r] * c_r(p_r)`` with the
terms added in that order (``r`` runs over the spatial dims slowest first, so the matrix columns are
``x, y, z``), each in the data dtype. The coordinate of index ``i`` of a dim of size ``s`` is
``start + i * step``: with ``align_corners`` ``start = -1``, ``step = (2 - 1e-7) / (s - 1)``, without
``start = -1 + 1 / s``, ``step = 2 / s`` (both constants rounded once to the dtype, as TVM's kernel).

The formula is written once over a small arithmetic interface (:func:`affine_grid_value`): the
reference evaluates it with numpy, the JAX executor with ``jax.numpy``, the legalization builds
TensorIR with it.
"""

from __future__ import annotations

from typing import Any, List, Sequence

import numpy as np

from ..errors import OpRuntimeError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import ShapeStructInfo, StructInfo, TensorStructInfo
from . import common
from . import nn_common
from . import te
from . import te_ops
from .args import OpArgs
from .opdef import OpDef, arg, attr


def _size_value(v: Any) -> Any:
    if isinstance(v, (int, P.PrimExpr)) and not isinstance(v, bool):
        return [v, v]
    return v


def _parse(opdef: OpDef, args: list, kwargs: dict, span) -> rx.Call:
    """As TVM's ``affine_grid``: an integer size is used for both dims."""
    from .opdef import build_call

    args = list(args)
    if len(args) >= 2:
        args[1] = _size_value(args[1])
    elif "size" in kwargs:
        kwargs = dict(kwargs, size=_size_value(kwargs["size"]))
    return build_call(_PLAIN, args, kwargs, span)


# ---------------------------------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------------------------------


def _infer(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.image.affine_grid.C1-C3."""
    if len(call.args) != 2:
        raise common.error(call, f"AffineGrid expects two arguments, while the given number of arguments is "
                                 f"{len(call.args)}", ctx)
    data = common.arg_sinfo(call, 0, ctx)
    size = common.arg_sinfo(call, 1, ctx)
    if not isinstance(data, TensorStructInfo):
        raise common.error(call, "AffineGrid expects the input data to be a Tensor, while the given data is "
                                 f"{common.describe_sinfo(data)}", ctx)
    if not isinstance(size, ShapeStructInfo):
        raise common.error(call, "AffineGrid expects the target size to be a Shape, while the given one is "
                                 f"{common.describe_sinfo(size)}", ctx)
    k = size.ndim
    if k not in (2, 3):
        raise common.error(call, "AffineGrid expects the target size to be a 2-dim or 3-dim shape, while the given "
                                 f"one has ndim {k}", ctx)
    if data.ndim not in (-1, 3):
        raise common.error(call, "AffineGrid expects the input data to be 3-D (batch, spatial, spatial + 1), but got "
                                 f"ndim {data.ndim}", ctx)
    if data.dtype != "void" and not _dt.is_float(data.dtype):
        raise common.error(call, f"AffineGrid expects floating-point matrices, got {data.dtype}", ctx)
    vals = nn_common.shape_expr_values(data)
    if vals is not None:
        for i, want in ((1, k), (2, k + 1)):
            if isinstance(vals[i], P.IntImm) and vals[i].value != want:
                raise common.error(call, f"AffineGrid expects dimension {i} of the input to be {want}, but got "
                                         f"{vals[i].value}", ctx)
    sz = call.args[1]
    if vals is None or not isinstance(sz, rx.ShapeExpr):
        return TensorStructInfo(None, data.dtype, k + 2, data.vdevice)
    return TensorStructInfo(rx.ShapeExpr((vals[0], nn_common.i64(k)) + tuple(sz.values)), data.dtype,
                            vdevice=data.vdevice)


def _check(args: OpArgs) -> None:
    """OP.image.affine_grid.C4: ``theta`` is ``(N, k, k + 1)`` for a size of ``k`` values; with
    ``align_corners`` every size is at least 2."""
    op = args.op_name
    sizes = [int(v) for v in args.ints(1)]
    k = len(sizes)
    ts = args.shape(0)
    bad = len(ts) != 3
    if not bad:
        for i, want in ((1, k), (2, k + 1)):
            args.fail_if(ts[i] != want, lambda: OpRuntimeError(
                f"{op}: theta of shape {args.size_text(ts)} is not (N, {k}, {k + 1}) (OP.image.affine_grid.C4)"))
    if bad:
        raise args.error(OpRuntimeError, f"{op}: theta of shape {args.size_text(ts)} is not (N, {k}, {k + 1}) "
                                         "(OP.image.affine_grid.C4)")
    if bool(args.attrs["align_corners"]) and any(s < 2 for s in sizes):
        raise args.error(OpRuntimeError, f"{op}: align_corners needs every target size to be at least 2, got "
                                         f"{sizes} (OP.image.affine_grid.C4)")


# ---------------------------------------------------------------------------------------------------
# The formula
# ---------------------------------------------------------------------------------------------------


def grid_constants(sizes: Sequence[int], align_corners: bool):
    """``(start, step)`` per spatial dim, as Python floats (rounded to the dtype by the caller)."""
    if align_corners:
        return [(-1.0, (2.0 - 1e-7) / (s - 1)) for s in sizes]
    return [(-1.0 + 1.0 / s, 2.0 / s) for s in sizes]


def affine_grid_value(B, theta, coords: Sequence[Any], consts) -> Any:
    """One output component: ``theta(col)`` reads the matrix row, ``coords`` the indices per
    spatial dim (slowest first)."""
    k = len(coords)
    val = theta(k)
    for r in range(k):
        start, step = consts[r]
        c = B.add(B.const(start), B.mul(B.fi(coords[r]), B.const(step)))
        val = B.add(val, B.mul(theta(k - 1 - r), c))
    return val


class ArrayOps:
    """:func:`affine_grid_value`'s arithmetic on arrays of ``dtype`` (``xp`` numpy or jax.numpy)."""

    def __init__(self, xp, dtype):
        self.xp, self.dt = xp, np.dtype(dtype)

    def const(self, v):
        return self.xp.asarray(v, dtype=self.dt)

    def fi(self, i):
        return self.xp.asarray(i).astype(self.dt)

    def add(self, a, b):
        return (a + b).astype(self.dt)

    def mul(self, a, b):
        return (a * b).astype(self.dt)


def affine_grid_array(xp, theta, sizes: Sequence[int], align_corners: bool, ops=None):
    """The whole grid ``(N, k, *sizes)`` from ``theta`` ``(N, k, k + 1)``; ``ops`` an :class:`ArrayOps`
    subclass (an executor's own rounding of the products) or ArrayOps itself."""
    k = len(sizes)
    B = (ops or ArrayOps)(xp, theta.dtype)
    consts = grid_constants(sizes, align_corners)
    coords = [np.arange(s, dtype=np.int64).reshape((1, 1) + tuple(s if j == r else 1 for j in range(k)))
              for r, s in enumerate(sizes)]
    shape = (theta.shape[0], k) + (1,) * k

    def row(col):
        return theta[:, :, col].reshape(shape)

    out = affine_grid_value(B, row, coords, consts)
    return xp.broadcast_to(out, (theta.shape[0], k) + tuple(sizes)).astype(theta.dtype)


def _reference(args, attrs, call, ctx):
    theta, size = args
    with np.errstate(all="ignore"):
        return np.ascontiguousarray(affine_grid_array(np, theta, [int(v) for v in size], bool(attrs["align_corners"])))


class _TEOps:
    def __init__(self, dtype: str):
        self.dt = dtype

    def const(self, v):
        return te_ops.const(float(v), self.dt)

    def fi(self, i):
        return te_ops.cast(self.dt, i)

    def add(self, a, b):
        return te_ops.add(a, b)

    def mul(self, a, b):
        return te_ops.mul(a, b)


def te_affine_grid(theta: te.Tensor, sizes: Sequence[int], align_corners: bool) -> te.Tensor:
    k = len(sizes)
    B = _TEOps(theta.dtype)
    consts = grid_constants(sizes, align_corners)
    shape = (theta.shape[0], nn_common.i64(k)) + tuple(nn_common.i64(s) for s in sizes)

    def body(n, d, *p):
        return affine_grid_value(B, lambda col: theta(n, d, nn_common.i64(col)), p, consts)

    return te.compute(shape, body, name="affine_grid", index_names=["n", "dim"] + [f"i{r}" for r in range(k)])


def _legalize(call: rx.Call, ctx: Any):
    """Static target sizes only (as TVM's legalization); with ``align_corners`` each at least 2."""
    sz = call.args[1]
    s = call.struct_info
    if not isinstance(sz, rx.ShapeExpr) or not all(isinstance(v, P.IntImm) for v in sz.values):
        return None
    if not isinstance(s, TensorStructInfo) or s.shape is None or s.dtype == "void":
        return None
    sizes = [v.value for v in sz.values]
    align = bool(call.attrs["align_corners"])
    if align and any(v < 2 for v in sizes):
        return None
    return ctx.call_te(lambda t: te_affine_grid(t, sizes, align), call.args[0], primfunc_name_hint="affine_grid")


_PARAMS = (arg("data"), arg("size", "shape"), attr("align_corners", "bool", True))
_PLAIN = OpDef(name="relax.image.affine_grid", script="R.image.affine_grid", params=_PARAMS)

#: the grid operators (read by :mod:`.image`)
GRID_OPS: List[OpDef] = [
    OpDef(name="relax.image.affine_grid", script="R.image.affine_grid", params=_PARAMS, infer=_infer, check=_check,
          reference=_reference, legalize=_legalize, parse_call=_parse, category="image",
          doc="``R.image.affine_grid(data, size, align_corners=True)``: the sampling grid of affine matrices "
              "(OP.image.affine_grid.C1-C5)."),
]

__all__ = ["GRID_OPS", "affine_grid_array", "affine_grid_value", "grid_constants"]
