"""Pieces of operator checks (``OpDef.check``) shared by several families, over
:class:`~relax_ref.ops.args.OpArgs` (see :mod:`relax_ref.ops.args` for how a check reports).

A check helper raises the same error, with the same message, in every evaluator; sizes that an
evaluator only knows while running are compared through ``args.fail_if``.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from ..errors import OpRuntimeError, UnsupportedError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir.struct_info import TensorStructInfo, TupleStructInfo
from .args import OpArgs


def no_kernel(args: OpArgs, what: str) -> UnsupportedError:
    """The operator has no TVM 0.25 kernel for ``what`` (raise it)."""
    return args.error(UnsupportedError, f"{args.op_name}: {what} (TVM 0.25 has no kernel for it)")


def reduce_axes(args: OpArgs, i: int, axis: Optional[Sequence[int]]) -> List[int]:
    """The normalized, sorted axes of a reduction over argument ``i`` (None: every axis); an axis out
    of range is an OpRuntimeError."""
    ndim = args.ndim(i)
    if axis is None:
        return list(range(ndim))
    axes = sorted({a + ndim if a < 0 else a for a in axis})
    for a in axes:
        if not 0 <= a < ndim:
            raise args.error(OpRuntimeError, f"{args.op_name}: axis {a} is out of range for a tensor of rank {ndim}")
    return axes


def check_axis(args: OpArgs, axis: int, ndim: int) -> int:
    """``axis`` in ``[-ndim, ndim)``, normalized; otherwise an OpRuntimeError naming it as given."""
    if not -ndim <= axis < ndim:
        raise args.error(OpRuntimeError, f"{args.op_name}: axis {axis} is out of range for a tensor of rank {ndim}")
    return axis % ndim if ndim else axis


def element_count(args: OpArgs, i: int, axes: Sequence[int]) -> Any:
    """The number of elements of argument ``i`` along ``axes`` (a run-time scalar when a size is)."""
    n: Any = 1
    for a in axes:
        n = n * args.shape(i)[a]
    return n


def operand_shape(args: OpArgs, i: int) -> Tuple[Any, ...]:
    """The shape an elementwise operand broadcasts with: a prim value counts as ``(1,)``
    (NORM.OP.BCAST.3)."""
    return (1,) if args.kind(i) == "prim" else args.shape(i)


def check_broadcast(args: OpArgs, idx: Sequence[int]) -> Tuple[Any, ...]:
    """OpRuntimeError when the (logical) shapes of the operands ``idx`` cannot be broadcast together
    (NORM.OP.BCAST.1 on the actual sizes, OP.SEM.2); returns the broadcast shape. A size that is not
    static (an evaluator's padded size) is checked against its true value: it must equal the other
    sizes of its axis unless one of the two is 1 -- padding never changes what is legal."""
    shapes = [operand_shape(args, i) for i in idx]
    first = shapes[0] if shapes else ()
    if all(args.is_static(n) for s in shapes for n in s) and all(s == first for s in shapes[1:]):
        return tuple(first)             # equal static shapes (the common case) broadcast to themselves
    nd = max((len(s) for s in shapes), default=0)
    cols = [(None,) * (nd - len(s)) + tuple(s) for s in shapes]
    out: List[Any] = []
    bad_static = False
    pending = []
    for ax in range(nd):
        col = [c[ax] for c in cols if c[ax] is not None]
        statics = {int(n) for n in col if args.is_static(n)}
        dynamic = [n for n in col if not args.is_static(n)]
        if len(statics - {1}) > 1:
            bad_static = True
        if dynamic:
            ref = dynamic[0]
            xp = args.xp
            for n in dynamic[1:]:
                if n is not ref:
                    pending.append(xp.logical_and(n != ref, xp.logical_and(n != 1, ref != 1)))
            for k in statics - {1}:
                pending.extend(xp.logical_and(n != k, n != 1) for n in dynamic)
            out.append(ref)
        else:
            out.append(max(statics) if statics else 1)
    if bad_static:
        txt = ", ".join(args.size_text(s) for s in shapes)
        raise args.error(OpRuntimeError, f"{args.op_name}: operands of shapes {txt} cannot be broadcast together")
    for cond in pending:
        txt = ", ".join(args.size_text(s) for s in shapes)
        args.fail_if(cond, lambda txt=txt: OpRuntimeError(
            f"{args.op_name}: operands of shapes {txt} cannot be broadcast together"))
    return tuple(out)


def float_only(args: OpArgs, i: int, what: str) -> str:
    """The dtype of argument ``i``; UnsupportedError unless it is a float (a run-time error of the nn
    pages, OP.SEM.2)."""
    dt = args.dtype(i)
    if not _dt.is_float(dt):
        raise args.error(UnsupportedError, f"{args.op_name}: {what} of dtype {dt} (only floats are supported)")
    return dt


__all__ = ["no_kernel", "reduce_axes", "check_axis", "element_count", "operand_shape", "check_broadcast",
           "float_only"]


def legalizable(call: rx.Call) -> bool:
    """The precondition of a kernel's legalization: every tensor argument and every tensor of the
    result has a ShapeExpr shape and a known dtype (LegalizeOps checks the shapes; the dtype check is
    ours)."""
    sinfos = [a.struct_info for a in call.args] + [call.struct_info]
    for s in sinfos:
        for t in (s.fields if isinstance(s, TupleStructInfo) else (s,)):
            if isinstance(t, TensorStructInfo):
                if not isinstance(t.shape, rx.ShapeExpr) or t.dtype == "void":
                    return False
    return True
