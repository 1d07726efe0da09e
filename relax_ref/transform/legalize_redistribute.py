"""LegalizeRedistribute: ``R.dist.redistribute`` becomes what a worker does (PASS.REDIST.*).

Follows TVM's ``src/relax/distributed/transform/legalize_redistribute.cc``. In every Relax function,
each call ``R.dist.redistribute(x, mesh, placement)`` of a DTensor ``x`` is replaced
(PASS.REDIST.1):

* by ``x`` when the placement does not change (``R`` to ``R``, ``S[a]`` to ``S[a]``);
* by ``R.dist.redistribute_replica_to_shard(x, num_workers=n, axis=a)`` from ``R`` to ``S[a]`` on a
  1-d mesh of ``n`` workers (each worker keeps its block; the identity in the global view).

Any other redistribution -- to another mesh, on a mesh of more than one axis with a placement that
changes, from ``S[a]`` to ``R`` (an all-gather) or to ``S[b]`` (an all-to-all) -- is an
``unsupported`` error naming it (PASS.REDIST.2): TVM has no lowering for them either.
"""

from __future__ import annotations

from ..errors import UnsupportedError
from ..ir import expr as rx
from ..ir.distributed import DTensorStructInfo
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from .pass_infra import Pass
from .utils import op_call, renormalize, update_module


def legalize_redistribute_call(call: rx.Call) -> rx.Expr:
    """(PASS.REDIST.1-2) What one ``redistribute`` call becomes."""
    x = call.args[0]
    src = x.struct_info
    mesh, placement = call.attrs["device_mesh"], call.attrs["placement"]
    if not isinstance(src, DTensorStructInfo):
        raise UnsupportedError("LegalizeRedistribute: redistribute needs a DTensor operand (PASS.REDIST.2)", call.span)
    if src.device_mesh != mesh:
        raise UnsupportedError(f"LegalizeRedistribute: a redistribution from {src.device_mesh} to another mesh {mesh} "
                               f"has no lowering (PASS.REDIST.2)", call.span)
    if src.placement == placement:
        return x
    if mesh.ndim != 1:
        raise UnsupportedError(f"LegalizeRedistribute: a redistribution from \"{src.placement}\" to \"{placement}\" on a "
                               f"mesh of {mesh.ndim} axes has no lowering (PASS.REDIST.2)", call.span)
    a, b = src.placement.specs[0], placement.specs[0]
    if a.is_replica and not b.is_replica:
        return op_call("relax.dist.redistribute_replica_to_shard", x, num_workers=mesh.shape[0], axis=b.axis,
                       span=call.span)
    what = "an all-gather" if b.is_replica else "an all-to-all"
    raise UnsupportedError(f"LegalizeRedistribute: a redistribution from \"{src.placement}\" to \"{placement}\" is "
                           f"{what}, which has no lowering (PASS.REDIST.2)", call.span)


class _Legalizer(ExprMutator):
    def visit_Call(self, c: rx.Call) -> rx.Expr:
        out = self.generic_mutate_expr(c)
        if isinstance(out.op, rx.Op) and out.op.name == "relax.dist.redistribute":
            return legalize_redistribute_call(out)
        return out


class LegalizeRedistribute(Pass):
    """(PASS.REDIST.1-2)"""

    name = "LegalizeRedistribute"
    opt_level = 0

    def transform(self, mod: IRModule) -> IRModule:
        new = {}
        for gv, f in mod.functions_items():
            if isinstance(f, rx.Function):
                g = _Legalizer().visit_expr(f)
                if g is not f:
                    new[gv.name_hint] = g
        if not new:
            return mod
        return renormalize(update_module(mod, new))


__all__ = ["LegalizeRedistribute", "legalize_redistribute_call"]
