"""Grid sampling: ``image.grid_sample`` (spec page ``spec/ops/image.grid_sample.md``), part of the
image family (:mod:`.image`).

``grid_sample(data, grid)`` reads ``data`` (``NCHW``, or ``NCDHW`` for volumes) at the normalized
coordinates of ``grid`` (``(N, 2, Ho, Wo)`` holding ``x, y``, or ``(N, 3, Do, Ho, Wo)`` holding
``x, y, z``). The kernel is TVM 0.27's (TOPI ``grid_sample``), evaluated in the dtype of the
operands with TIR's operation order:

* unnormalize: with ``align_corners`` ``(g + 1) * (size - 1) / 2``, else ``-0.5 + (g + 1) * size / 2``;
* ``padding_mode``: ``border`` clips the coordinate to ``[0, size - 1]``; ``reflection`` reflects it
  about ``[0, size - 1]`` (``align_corners``) or ``[-0.5, size - 0.5]`` and clips; ``zeros`` leaves it;
* ``nearest`` reads the coordinate rounded half to even, ``bilinear`` the 2 x 2 (2 x 2 x 2)
  neighbours from the floor, ``bicubic`` (2-d only) the 4 x 4 neighbours with the cubic weights of
  ``A = -0.75`` (there the padding applies to the integer neighbour indices, not the coordinate);
* a read outside ``data`` is 0.

The kernel is written once over an arithmetic interface (:func:`sample_value`): the reference and the
JAX executor evaluate it on arrays, the legalization builds TensorIR with it.
"""

from __future__ import annotations

from typing import Any, List, Sequence

import numpy as np

from ..errors import OpRuntimeError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir.struct_info import StructInfo, TensorStructInfo
from . import common
from . import nn_common
from . import te
from . import te_ops
from .args import OpArgs
from .nn import legalizable
from .opdef import OpDef, arg, attr
from .te_arith import TEArith

METHODS = {2: ("nearest", "bilinear", "bicubic"), 3: ("nearest", "bilinear")}
PADDING = ("zeros", "border", "reflection")


def _target(layout: str) -> str:
    return "NCDHW" if layout == "NCDHW" else "NCHW"


# ---------------------------------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------------------------------


def _infer(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.image.grid_sample.C1-C3."""
    if len(call.args) != 2:
        raise common.error(call, f"GridSample expects two arguments, while the given number of arguments is "
                                 f"{len(call.args)}", ctx)
    data, grid = (common.arg_sinfo(call, i, ctx) for i in range(2))
    for what, s in (("input data", data), ("grid", grid)):
        if not isinstance(s, TensorStructInfo):
            raise common.error(call, f"GridSample expects the {what} to be a Tensor, while the given one is "
                                     f"{common.describe_sinfo(s)}", ctx)
    a = call.attrs
    tgt = _target(a["layout"])
    k = len(tgt) - 2
    if a["method"] not in METHODS[k] or a["padding_mode"] not in PADDING:
        raise common.error(call, f"unknown method {a['method']!r} or padding_mode {a['padding_mode']!r} for {k}-d "
                                 f"sampling; expected one of {', '.join(METHODS[k])} and {', '.join(PADDING)}", ctx)
    perm = nn_common.layout_conversion(call, a["layout"], tgt, "data", ctx)
    nn_common.check_ndim(call, data, perm, a["layout"], ctx)
    if grid.ndim not in (-1, k + 2):
        raise common.error(call, f"GridSample expects a {k + 2}-d grid (N, {k}, ...), but the grid has ndim "
                                 f"{grid.ndim}", ctx)
    for s in (data, grid):
        if s.dtype != "void" and not _dt.is_float(s.dtype):
            raise common.error(call, f"GridSample expects floating-point operands, got {s.dtype}", ctx)
    if "void" not in (data.dtype, grid.dtype) and data.dtype != grid.dtype:
        raise common.error(call, f"GridSample expects data and grid of one dtype, got {data.dtype} and {grid.dtype}",
                           ctx)
    dvals, gvals = nn_common.shape_expr_values(data), nn_common.shape_expr_values(grid)
    if dvals is None or gvals is None:
        return TensorStructInfo(None, data.dtype, perm.ndim, data.vdevice)
    nn_common.check_sub_axes(call, data, perm, "data", ctx)
    d = nn_common.forward_shape(dvals, perm, ctx)
    out = list(d[:2]) + list(gvals[2:])
    return TensorStructInfo(rx.ShapeExpr(tuple(nn_common.backward_shape(out, perm, ctx))), data.dtype,
                            vdevice=data.vdevice)


def _check(args: OpArgs) -> None:
    """OP.image.grid_sample.C4: the grid is ``(N, k, ...)`` with the data's batch."""
    op = args.op_name
    tgt = _target(args.attrs["layout"])
    k = len(tgt) - 2
    perm = nn_common.layout_conversion(args.call, args.attrs["layout"], tgt, "data")
    nn_common.check_layout_arg(args, 0, perm, "data")
    d = nn_common.forward_shape(args.shape(0), perm)
    gs = args.shape(1)
    if len(gs) != k + 2:
        raise args.error(OpRuntimeError, f"{op}: the grid has rank {len(gs)}, not {k + 2} (OP.image.grid_sample.C4)")
    for a, b in ((gs[0], d[0]), (gs[1], k)):
        args.fail_if(a != b, lambda: OpRuntimeError(
            f"{op}: a grid of shape {args.size_text(gs)} for data of batch {d[0]} is not (N, {k}, ...) "
            "(OP.image.grid_sample.C4)"))


# ---------------------------------------------------------------------------------------------------
# The kernel, over an arithmetic interface
# ---------------------------------------------------------------------------------------------------


def _unnormalize(B, g, size: int, align: bool):
    if align:
        return B.div(B.mul(B.add(g, B.f(1.0)), B.f(size - 1)), B.f(2.0))
    return B.add(B.f(-0.5), B.div(B.mul(B.add(g, B.f(1.0)), B.f(size)), B.f(2.0)))


def _clip(B, x, size: int):
    return B.fmin(B.fmax(x, B.f(0.0)), B.f(size - 1))


def _reflect(B, x, size: int, align: bool):
    """TOPI's reflection of a float coordinate (the range ``[corner, corner + span]``)."""
    span, corner = (size - 1, 0.0) if align else (size, -0.5)
    inside = B.and_(B.ge(x, B.f(corner)), B.le(x, B.f(span + corner)))
    if span == 0:                                   # a single position: every reflection lands on it
        return B.select(inside, x, B.f(corner))
    idx = B.fabs(B.sub(B.f(corner), x))
    times = B.itruncdiv(B.ftoi(idx), span)
    extra = B.sub(idx, B.mul(B.itof(times), B.f(span)))
    even = B.ieq(B.imod(times, 2), 0)
    out = B.select(even, B.add(extra, B.f(corner)), B.add(B.sub(B.f(span), extra), B.f(corner)))
    return B.select(inside, x, out)


def _source(B, g, size: int, align: bool, padding: str):
    x = _unnormalize(B, g, size, align)
    if padding == "reflection":
        x = _clip(B, _reflect(B, x, size, align), size)
    elif padding == "border":
        x = _clip(B, x, size)
    return x


def _cubic(B, p, f):
    a = -0.75

    def w1(t):
        return B.add(B.mul(B.mul(B.sub(B.mul(B.f(a + 2), t), B.f(a + 3)), t), t), B.f(1.0))

    def w2(t):
        return B.sub(B.mul(B.add(B.mul(B.sub(B.mul(B.f(a), t), B.f(5 * a)), t), B.f(8 * a)), t), B.f(4 * a))

    ws = [w2(B.add(f, B.f(1.0))), w1(f), w1(B.sub(B.f(1.0), f)), w2(B.sub(B.f(2.0), f))]
    out = B.mul(p[0], ws[0])
    for v, w in zip(p[1:], ws[1:]):
        out = B.add(out, B.mul(v, w))
    return out


def _int_index(B, i, size: int, align: bool, padding: str):
    """The padding of bicubic's integer neighbour indices (TOPI reflects them as numbers)."""
    if padding == "border":
        return B.iclip(i, size)
    if padding == "reflection":
        if align:
            return B.iclip(B.ireflect(i, size - 1), size)
        return B.ftoi(_clip(B, _reflect(B, B.itof(i), size, False), size))
    return i


def sample_value(B, g: Sequence[Any], sizes: Sequence[int], method: str, padding: str, align: bool):
    """The sample at one output position; ``g`` the grid values ``x, y[, z]``, ``sizes`` the data's
    spatial extents slowest first; ``B.load(*idx)`` reads the data (0 outside) at integer indices
    slowest first."""
    k = len(sizes)
    coords = [g[k - 1 - r] for r in range(k)]           # slowest first: (z,) y, x
    if method == "bicubic":
        y, x = (_unnormalize(B, c, s, align) for c, s in zip(coords, sizes))
        yf, xf = B.floor_i(y), B.floor_i(x)
        fy, fx = B.sub(y, B.itof(yf)), B.sub(x, B.itof(xf))
        rows = []
        for i in range(4):
            yi = _int_index(B, B.iadd(yf, i - 1), sizes[0], align, padding)
            xs = [_int_index(B, B.iadd(xf, j - 1), sizes[1], align, padding) for j in range(4)]
            rows.append(_cubic(B, [B.load(yi, xj) for xj in xs], fx))
        return _cubic(B, rows, fy)
    src = [_source(B, c, s, align, padding) for c, s in zip(coords, sizes)]
    if method == "nearest":
        return B.load(*[B.round_i(c) for c in src])
    lo = [B.floor_i(c) for c in src]
    fr = [B.sub(c, B.itof(i)) for c, i in zip(src, lo)]
    if k == 2:
        (y, x), (y0, x0) = fr, lo
        y1, x1 = B.iadd(y0, 1), B.iadd(x0, 1)
        one = B.f(1.0)
        terms = [(y0, x0, B.sub(one, y), B.sub(one, x)), (y0, x1, B.sub(one, y), x),
                 (y1, x0, y, B.sub(one, x)), (y1, x1, y, x)]
        out = None
        for yi, xi, wy, wx in terms:
            t = B.mul(B.mul(B.load(yi, xi), wy), wx)
            out = t if out is None else B.add(out, t)
        return out
    (z, y, x), (z0, y0, x0) = fr, lo
    z1, y1, x1 = B.iadd(z0, 1), B.iadd(y0, 1), B.iadd(x0, 1)
    one = B.f(1.0)
    wx0, wx1, wy0, wy1, wz0, wz1 = B.sub(one, x), x, B.sub(one, y), y, B.sub(one, z), z
    # TOPI's order of the eight corners (x weight, then y, then z)
    corners = [(z0, y0, x0, wx0, wy0, wz0), (z0, y0, x1, wx1, wy0, wz0), (z1, y1, x0, wx0, wy1, wz1),
               (z1, y1, x1, wx1, wy1, wz1), (z0, y1, x0, wx0, wy1, wz0), (z1, y0, x1, wx1, wy0, wz1),
               (z1, y0, x0, wx0, wy0, wz1), (z0, y1, x1, wx1, wy1, wz0)]
    out = None
    for zi, yi, xi, wx, wy, wz in corners:
        t = B.mul(B.mul(B.mul(B.load(zi, yi, xi), wx), wy), wz)
        out = t if out is None else B.add(out, t)
    return out


class ArrayOps:
    """:func:`sample_value` on arrays (``xp`` numpy or jax.numpy); ``data`` canonical ``(N, C, *S)``,
    coordinates shaped ``(N, 1, *out)``."""

    def __init__(self, xp, data):
        self.xp, self.data, self.dt = xp, data, np.dtype(data.dtype)
        n, c = data.shape[:2]
        k = data.ndim - 2
        self.nidx = np.arange(n).reshape((n, 1) + (1,) * k)
        self.cidx = np.arange(c).reshape((1, c) + (1,) * k)

    def f(self, v):
        return self.xp.asarray(v, dtype=self.dt)

    def _t(self, a):
        return self.xp.asarray(a).astype(self.dt)

    def add(self, a, b):
        return self._t(a + b)

    def sub(self, a, b):
        return self._t(a - b)

    def mul(self, a, b):
        return self._t(a * b)

    def div(self, a, b):
        return self._t(a / b)

    def fmin(self, a, b):
        return self._t(self.xp.where(a < b, a, b))

    def fmax(self, a, b):
        return self._t(self.xp.where(a > b, a, b))

    def fabs(self, a):
        return self._t(self.xp.abs(a))

    def ge(self, a, b):
        return a >= b

    def le(self, a, b):
        return a <= b

    def and_(self, a, b):
        return a & b

    def select(self, c, a, b):
        return self.xp.where(c, a, b)

    def ftoi(self, a):
        a = self.xp.where(self.xp.isfinite(a), a, 0)
        return self.xp.trunc(a).astype(np.int64)

    def itof(self, i):
        return self._t(i)

    def floor_i(self, a):
        return self.ftoi(self.xp.floor(a))

    def round_i(self, a):
        return self.ftoi(self.xp.round(a))

    def iadd(self, i, k):
        return i + k

    def itruncdiv(self, i, k):
        q = self.xp.abs(i) // k
        return self.xp.where(i < 0, -q, q)

    def imod(self, i, k):
        return i - self.itruncdiv(i, k) * k

    def ieq(self, i, k):
        return i == k

    def iclip(self, i, size):
        return self.xp.minimum(self.xp.maximum(i, 0), size - 1)

    def ireflect(self, i, span):
        """TOPI's reflection of an integer index about ``[0, span]``."""
        if span == 0:
            return self.xp.zeros_like(i)
        idx = self.xp.abs(i)
        times = idx // span
        extra = idx - times * span
        out = self.xp.where(times % 2 == 0, extra, span - extra)
        return self.xp.where((i >= 0) & (i <= span), i, out)

    def load(self, *idx):
        spatial = self.data.shape[2:]
        ok = None
        clipped = []
        for i, s in zip(idx, spatial):
            good = (i >= 0) & (i < s)
            ok = good if ok is None else ok & good
            clipped.append(self.xp.clip(i, 0, s - 1))
        v = self.data[(self.nidx, self.cidx) + tuple(clipped)]
        return self.xp.where(ok, v, self.f(0.0))


def sample_array(xp, data, grid, method: str, padding: str, align: bool, op: str = "relax.image.grid_sample",
                 ops=None):
    """The whole result in the canonical layout; ``ops`` an :class:`ArrayOps` subclass (an executor's
    own rounding of the products) or ArrayOps itself."""
    k = data.ndim - 2
    if data.size == 0 or grid.size == 0:
        return xp.zeros(tuple(data.shape[:2]) + tuple(grid.shape[2:]), dtype=data.dtype)
    B = (ops or ArrayOps)(xp, data)
    g = [grid[:, r:r + 1] for r in range(k)]
    sizes = [int(s) for s in data.shape[2:]]
    out = sample_value(B, g, sizes, method, padding, align)
    return xp.broadcast_to(out, tuple(data.shape[:2]) + tuple(grid.shape[2:])).astype(data.dtype)


def _reference(args, attrs, call, ctx):
    data, grid = args
    tgt = _target(attrs["layout"])
    perm = nn_common.layout_conversion(call, attrs["layout"], tgt, "data")
    with np.errstate(all="ignore"):
        y = sample_array(np, nn_common.to_canonical(data, perm), grid, attrs["method"], attrs["padding_mode"],
                         bool(attrs["align_corners"]))
    return np.ascontiguousarray(nn_common.from_canonical(y, perm))


class _TEOps(TEArith):
    """The same operations as TIR expressions (int32 indices, as TOPI)."""

    def __init__(self, data: te.Tensor, n, c):
        self.data, self.n, self.c, self.dt = data, n, c, data.dtype

    def fmin(self, a, b):
        return te_ops.min_(a, b)

    def fmax(self, a, b):
        return te_ops.max_(a, b)

    def fabs(self, a):
        return te_ops.abs_(a)

    def ftoi(self, a):
        return te_ops.cast("int32", a)

    def itof(self, i):
        return te_ops.cast(self.dt, i)

    def floor_i(self, a):
        return te_ops.cast("int32", te_ops.floor(a))

    def round_i(self, a):
        return te_ops.cast("int32", te_ops.round_(a))

    def iadd(self, i, k):
        return te_ops.add(i, te_ops.const(k, "int32")) if k else i

    def itruncdiv(self, i, k):
        return te_ops.truncdiv(i, te_ops.const(k, "int32"))

    def imod(self, i, k):
        return te_ops.truncmod(i, te_ops.const(k, "int32"))

    def ieq(self, i, k):
        return te_ops.eq(i, te_ops.const(k, "int32"))

    def iclip(self, i, size):
        return te_ops.min_(te_ops.max_(i, te_ops.const(0, "int32")), te_ops.const(size - 1, "int32"))

    def ireflect(self, i, span):
        if span == 0:
            return te_ops.const(0, "int32")
        s = te_ops.const(span, "int32")
        idx = te_ops.abs_(i)
        times = te_ops.truncdiv(idx, s)
        extra = te_ops.sub(idx, te_ops.mul(times, s))
        out = te_ops.if_then_else(te_ops.eq(te_ops.truncmod(times, te_ops.const(2, "int32")),
                                            te_ops.const(0, "int32")), extra, te_ops.sub(s, extra))
        inside = te_ops.logical_and(te_ops.ge(i, te_ops.const(0, "int32")), te_ops.le(i, s))
        return te_ops.if_then_else(inside, i, out)

    def load(self, *idx):
        spatial = self.data.shape[2:]
        ok = None
        for i, s in zip(idx, spatial):
            good = te_ops.logical_and(te_ops.ge(i, te_ops.const(0, "int32")), te_ops.lt(te_ops.cast("int64", i), s))
            ok = good if ok is None else te_ops.logical_and(ok, good)
        v = self.data(self.n, self.c, *[te_ops.cast("int64", i) for i in idx])
        return te_ops.if_then_else(ok, v, self.f(0.0))


def te_grid_sample(data: te.Tensor, grid: te.Tensor, method: str, padding: str, align: bool) -> te.Tensor:
    k = data.ndim - 2
    sizes = [int(s.value) for s in data.shape[2:]]
    shape = tuple(data.shape[:2]) + tuple(grid.shape[2:])

    def body(n, c, *p):
        B = _TEOps(data, n, c)
        g = [grid(n, nn_common.i64(r), *p) for r in range(k)]
        return sample_value(B, g, sizes, method, padding, align)

    return te.compute(shape, body, name="grid_sample", index_names=["n", "c"] + [f"o{r}" for r in range(k)])


def _legalize(call: rx.Call, ctx: Any):
    """The canonical layouts only (TOPI's kernel asserts ``NCHW`` / ``NCDHW``), static data shapes."""
    if not legalizable(call) or call.attrs["layout"] not in ("NCHW", "NCDHW"):
        return None
    d = call.args[0].struct_info
    vals = nn_common.shape_expr_values(d)
    if vals is None or not all(hasattr(v, "value") for v in vals[2:]):
        return None
    a = call.attrs
    return ctx.call_te(lambda x, g: te_grid_sample(x, g, a["method"], a["padding_mode"], bool(a["align_corners"])),
                       *call.args, primfunc_name_hint="grid_sample")


_ATTRS = ("method", "layout", "padding_mode", "align_corners")

#: the sampling operators (read by :mod:`.image`)
SAMPLE_OPS: List[OpDef] = [
    OpDef(name="relax.image.grid_sample", script="R.image.grid_sample",
          params=(arg("data"), arg("grid"), attr("method", "str", "bilinear"), attr("layout", "str", "NCHW"),
                  attr("padding_mode", "str", "zeros"), attr("align_corners", "bool", False)),
          infer=_infer, check=_check, reference=_reference, legalize=_legalize, category="image",
          print_call=nn_common.print_in_order(_ATTRS),
          doc="``R.image.grid_sample(data, grid, method='bilinear', layout='NCHW', padding_mode='zeros', "
              "align_corners=False)``: sampling at normalized grid coordinates (OP.image.grid_sample.C1-C5)."),
]

__all__ = ["SAMPLE_OPS", "sample_array", "sample_value"]
