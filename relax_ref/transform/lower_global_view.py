"""LowerGlobalViewToLocalView: kernels of the global view become kernels of one worker's shards
(PASS.LOCALVIEW.*).

Follows TVM's ``src/relax/distributed/transform/lower_global_view_to_local_view.cc``. In every Relax
function whose parameters are DTensors (PASS.LOCALVIEW.1; a function mixing tensor and DTensor
parameters is an error), each binding of ``R.dist.call_tir(f, args, out_sinfo)`` becomes
(PASS.LOCALVIEW.2-4):

* ``R.dist.call_tir_local_view(f', args, out_sinfo)`` where ``f'`` is ``f`` compacted to the shards
  (:func:`shard_kernel`), added to the module under a fresh name from ``f``'s (an existing function
  structurally equal to ``f'`` is reused); ``f`` stays (DeadCodeElimination removes it when unused);
* wrapped in ``R.ccl.allreduce(..., op_type, in_group=False)`` (TVM's attributes) when a reduction
  axis of the kernel is sharded: each worker then holds a partial value, completed by the
  reduction's combiner.

relax-ref goes further than TVM for operators left high-level (PASS.LOCALVIEW.5): a ``matmul`` whose
contracted axis is sharded, or a ``sum``/``prod``/``max``/``min``/``mean`` over a sharded axis, is
wrapped in ``R.ccl.allreduce`` (``sum``, ``prod``, ``max``, ``min``, ``avg``), so that the local view
computes the global value; ``std``/``variance`` over a sharded axis, which no allreduce completes,
are an ``unsupported`` error. Every other high-level operator computes on the shards unchanged.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Tuple

from ..errors import UnsupportedError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.distributed import DTensorStructInfo
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from ..ir.struct_info import TensorStructInfo, TupleStructInfo
from ..ops.dist_infer import axis_maps
from .dist_axis_graph import _accesses, axis_group, buffer_axis_graph, sharding_var
from .pass_infra import Pass
from .tir_utils import TIRRewriter, renew_defs
from .utils import fresh_name, op_call, renormalize

_COMBINERS = ((P.Add, "sum"), (P.Mul, "prod"), (P.Min, "min"), (P.Max, "max"))


def is_dist_function(func: rx.Function) -> bool:
    """(PASS.LOCALVIEW.1) Whether the parameters of ``func`` are DTensors (tuple fields included)
    and no plain tensor; a mix is an ``unsupported`` error."""
    kinds = set()

    def walk(s) -> None:
        if isinstance(s, DTensorStructInfo):
            kinds.add("dtensor")
        elif isinstance(s, TensorStructInfo):
            kinds.add("tensor")
        elif isinstance(s, TupleStructInfo):
            for f in s.fields:
                walk(f)
    for p in func.params:
        walk(p.struct_info)
    if kinds == {"dtensor", "tensor"}:
        raise UnsupportedError("the parameters of a distributed function are DTensors, not tensors and DTensors mixed "
                               "(PASS.LOCALVIEW.1)")
    return "dtensor" in kinds


# ---------------------------------------------------------------------------------------------------
# Kernels (PASS.LOCALVIEW.3)
# ---------------------------------------------------------------------------------------------------


def _div(e: P.PrimExpr, n: int) -> P.PrimExpr:
    from ..arith import simplify

    return simplify(P.floordiv(e, P.IntImm(n, e.dtype if hasattr(e, "dtype") else "int64")))


class _Compactor(TIRRewriter):
    def __init__(self, shards: Dict[int, Dict[int, int]]) -> None:
        super().__init__()
        self.shards = shards
        self.iter_shards: Dict[P.PrimVar, int] = {}
        self.loop_shards: Dict[P.PrimVar, int] = {}
        self.reduce_kind = ""

    def block(self, b: tir.Block) -> tir.Block:
        acc: List[Tuple[tir.Buffer, tuple]] = []
        if b.init is not None:
            _accesses(b.init, acc)
        _accesses(b.body, acc)
        touched = {id(r.buffer) for r in tuple(b.reads) + tuple(b.writes)}
        for buf, idx in acc:
            dims = self.shards.get(id(buf))
            if id(buf) not in touched or not dims:
                continue
            doms = {iv.var: iv.dom for iv in b.iter_vars}
            for dim, n in dims.items():
                v = sharding_var(idx[dim], doms)
                if v is None:
                    continue
                if self.iter_shards.get(v, n) != n:
                    raise UnsupportedError(f"LowerGlobalViewToLocalView: the iteration variable {v.name} of block "
                                           f"'{b.name}' is split two ways (PASS.LOCALVIEW.3)")
                self.iter_shards[v] = n
        out = super().block(b)
        ivs = []
        for iv in out.iter_vars:
            n = self.iter_shards.get(iv.var, 1)
            if n > 1:
                from ..arith import can_prove
                if not can_prove(P.eq(iv.dom.min, P.IntImm(0, iv.dom.min.dtype))) or \
                        not can_prove(P.eq(P.floormod(iv.dom.extent, P.IntImm(n, iv.dom.extent.dtype)),
                                           P.IntImm(0, iv.dom.extent.dtype))):
                    raise UnsupportedError(f"LowerGlobalViewToLocalView: the iteration domain of {iv.var.name} does not "
                                           f"split into {n} (PASS.LOCALVIEW.3)")
                iv = tir.IterVar(iv.var, tir.Range(iv.dom.min, _div(iv.dom.extent, n)), iv.iter_type)
                if iv.iter_type == "reduce":
                    self._reduction(b)
            ivs.append(iv)
        return replace(out, iter_vars=tuple(ivs))

    def _reduction(self, b: tir.Block) -> None:
        if self.reduce_kind:
            return
        if len(b.writes) != 1:
            raise UnsupportedError(f"LowerGlobalViewToLocalView: block '{b.name}' reduces into {len(b.writes)} buffers "
                                   f"(PASS.LOCALVIEW.3)")
        target = b.writes[0].buffer
        kind = ""

        def walk(e) -> None:
            nonlocal kind
            for cls, name in _COMBINERS:
                if isinstance(e, cls) and any(isinstance(x, tir.BufferLoad) and x.buffer is target for x in (e.a, e.b)):
                    kind = name
            for c in P.children(e):
                walk(c)
        from ..ir.functor import stmt_prim_exprs, post_order_visit_stmt
        post_order_visit_stmt(b.body, lambda s: [walk(e) for e in stmt_prim_exprs(s)])
        if not kind:
            raise UnsupportedError(f"LowerGlobalViewToLocalView: the reduction of block '{b.name}' is not a sum, "
                                   f"product, min or max (PASS.LOCALVIEW.3)")
        self.reduce_kind = kind

    def stmt(self, s):
        if isinstance(s, tir.BlockRealize):
            out = super().stmt(s)
            for v, iv in zip(out.iter_values, out.block.iter_vars):
                if self.iter_shards.get(iv.var, 1) > 1:
                    if not isinstance(v, P.PrimVar):
                        raise UnsupportedError("LowerGlobalViewToLocalView: a split iteration variable is bound to an "
                                               "expression, not a loop variable (PASS.LOCALVIEW.3)")
                    self.loop_shards[v] = self.iter_shards[iv.var]
            return out
        if isinstance(s, tir.For):
            body = self.stmt(s.body)
            extent = self.expr(s.extent)
            n = self.loop_shards.get(s.loop_var, 1)
            if n > 1:
                extent = _div(extent, n)
            return tir.For(self.var(s.loop_var), self.expr(s.min), extent, s.kind, body, s.thread_binding,
                           s.annotations, span=s.span)
        return super().stmt(s)


def shard_kernel(func: tir.PrimFunc, specs: List[DTensorStructInfo]) -> Tuple[tir.PrimFunc, str]:
    """(PASS.LOCALVIEW.3) ``func`` on the shards given by ``specs`` (one per buffer parameter, in
    order), and the combiner of the allreduce its result needs ("" for none). Each mesh axis that
    shards axis ``a`` of a parameter divides, by its extent, every buffer axis joined to it
    (:func:`~relax_ref.transform.dist_axis_graph.buffer_axis_graph`, intermediate buffers included),
    the domains of the block iteration variables indexing such an axis, and the loops binding them."""
    func = renew_defs(func)
    graph = buffer_axis_graph(func)
    shards: Dict[int, Dict[int, int]] = {}
    visited: set = set()
    buffers = [func.buffer_of(p) for p in func.params if func.buffer_of(p) is not None]
    if len(buffers) != len(specs):
        raise UnsupportedError(f"LowerGlobalViewToLocalView: the kernel has {len(buffers)} buffer parameters for "
                               f"{len(specs)} DTensors (PASS.LOCALVIEW.3)")
    for buf, s in zip(buffers, specs):
        for j, spec in enumerate(s.placement.specs):
            if spec.axis is None:
                continue
            for bid, ax in axis_group(graph, (id(buf), spec.axis), visited):
                shards.setdefault(bid, {})[ax] = s.device_mesh.shape[j]
    c = _Compactor(shards)
    all_buffers: Dict[int, tir.Buffer] = {id(b): b for b in buffers}

    def collect(s) -> None:
        if isinstance(s, tir.Block):
            for b in s.alloc_buffers:
                all_buffers[id(b)] = b
    from ..ir.functor import post_order_visit_stmt
    post_order_visit_stmt(func.body, collect)
    for bid, dims in shards.items():
        b = all_buffers.get(bid)
        if b is None:
            continue
        shape = tuple(_div(d, dims[i]) if i in dims else d for i, d in enumerate(b.shape))
        c.buffer_map[bid] = replace(b, shape=shape)
        c._keep.append(b)
    bmap = tuple((p, c.buffer(b)) for p, b in func.buffer_map)
    body = c.stmt(func.body)
    return tir.PrimFunc(func.params, body, bmap, func.ret_type, attrs=func.attrs, span=func.span), c.reduce_kind


# ---------------------------------------------------------------------------------------------------
# Relax (PASS.LOCALVIEW.2, PASS.LOCALVIEW.4-5)
# ---------------------------------------------------------------------------------------------------

_HIGH_LEVEL_COMBINERS = {"relax.matmul": "sum", "relax.sum": "sum", "relax.prod": "prod", "relax.max": "max",
                         "relax.min": "min", "relax.mean": "avg"}
_NOT_COMBINABLE = ("relax.std", "relax.variance")


def _dtensors(s) -> List[DTensorStructInfo]:
    if isinstance(s, DTensorStructInfo):
        return [s]
    if isinstance(s, TupleStructInfo):
        return [f for f in s.fields if isinstance(f, DTensorStructInfo)]
    return []


class _Lowerer(ExprMutator):
    def __init__(self, mod: IRModule, added: Dict[str, Tuple[rx.GlobalVar, tir.PrimFunc]]) -> None:
        super().__init__()
        self.mod = mod
        self.added = added

    def add_function(self, f: tir.PrimFunc, hint: str) -> rx.GlobalVar:
        from ..analysis.structural_equal import structural_equal

        for gv, g in list(self.mod.functions_items()):
            if isinstance(g, tir.PrimFunc) and structural_equal(g, f):
                return gv
        for name, (gv, g) in self.added.items():
            if structural_equal(g, f):
                return gv
        name = fresh_name(set(n.name_hint for n, _ in self.mod.functions_items()) | set(self.added), hint)
        gv = rx.GlobalVar(name)
        self.added[name] = (gv, f)
        return gv

    def visit_binding(self, b: rx.Binding):
        v = b.value
        if isinstance(b, rx.VarBinding) and isinstance(v, rx.Call) and isinstance(v.op, rx.Op):
            if v.op.name == "relax.call_tir" and _dtensors(b.var.struct_info):
                return rx.VarBinding(b.var, self._local_call(self.visit_expr(v), b.var), span=b.span)
            name = v.op.name
            if name in _HIGH_LEVEL_COMBINERS or name in _NOT_COMBINABLE:
                new = self.visit_expr(v)
                if _partial(v, b.var.struct_info):
                    if name in _NOT_COMBINABLE:
                        raise UnsupportedError(f"LowerGlobalViewToLocalView: {name} over a sharded axis has no local "
                                               f"view (PASS.LOCALVIEW.5)", v.span)
                    kind = _HIGH_LEVEL_COMBINERS[name]
                    _check_group(kind, b.var.struct_info, v.span)
                    new = op_call("relax.ccl.allreduce", new, op_type=kind, in_group=False)
                return rx.VarBinding(b.var, new, span=b.span) if new is not v else b
        return super().visit_binding(b)

    def _local_call(self, call: rx.Call, out: rx.Var) -> rx.Expr:
        gv = call.args[0]
        f = self.mod[gv.name_hint] if isinstance(gv, rx.GlobalVar) and gv.name_hint in self.mod else None
        if not isinstance(f, tir.PrimFunc):
            raise UnsupportedError("LowerGlobalViewToLocalView: R.dist.call_tir needs a PrimFunc of the module "
                                   "(PASS.LOCALVIEW.2)", call.span)
        specs = []
        args = call.args[1].fields if isinstance(call.args[1], rx.Tuple) else ()
        for k, a in enumerate(args):
            if k < len(f.params) and f.buffer_of(f.params[k]) is not None:
                if not isinstance(a.struct_info, DTensorStructInfo):
                    raise UnsupportedError(f"LowerGlobalViewToLocalView: buffer parameter {k} of {gv.name_hint} receives "
                                           f"a value that is not a DTensor (PASS.LOCALVIEW.2)", call.span)
                specs.append(a.struct_info)
        specs += _dtensors(out.struct_info)
        new_f, kind = shard_kernel(f, specs)
        new_gv = self.add_function(new_f, gv.name_hint)
        local = rx.Call(rx.Op("relax.dist.call_tir_local_view"), (new_gv,) + tuple(call.args[1:]), call.attrs,
                        call.sinfo_args, span=call.span)
        if kind:
            _check_group(kind, _dtensors(out.struct_info)[0], call.span)
            return op_call("relax.ccl.allreduce", local, op_type=kind, in_group=False)
        return local


def _check_group(kind: str, out: DTensorStructInfo, span) -> None:
    """(PASS.LOCALVIEW.4) The allreduce combines the values of every worker of the mesh: a sum or a
    product is the global value only when a single mesh axis has more than one worker (otherwise
    the workers that replicate a partial value would count it several times)."""
    if kind in ("sum", "prod") and sum(1 for d in out.device_mesh.shape if d > 1) > 1:
        raise UnsupportedError(f"LowerGlobalViewToLocalView: a partial {kind} on a mesh of shape "
                               f"{out.device_mesh.shape} needs an allreduce within a mesh axis, which the collectives "
                               f"do not express (PASS.LOCALVIEW.4)", span)


def _partial(call: rx.Call, out) -> bool:
    """Whether some DTensor operand of ``call`` is sharded along an axis that maps to no axis of the
    result (a contracted or reduced axis, DIST.OP.5)."""
    args = [a.struct_info for a in call.args if isinstance(a.struct_info, DTensorStructInfo)]
    if not args or not isinstance(out, DTensorStructInfo):
        return False
    maps = axis_maps(call, args, out.tensor)
    if maps is None:
        return False
    return any(sp.axis is not None and sp.axis not in m for s, m in zip(args, maps) for sp in s.placement.specs)


class LowerGlobalViewToLocalView(Pass):
    """(PASS.LOCALVIEW.1-5)"""

    name = "LowerGlobalViewToLocalView"
    opt_level = 0

    def transform(self, mod: IRModule) -> IRModule:
        added: Dict[str, Tuple[rx.GlobalVar, tir.PrimFunc]] = {}
        new: Dict[str, rx.Function] = {}
        for gv, f in mod.functions_items():
            if isinstance(f, rx.Function) and is_dist_function(f):
                low = _Lowerer(mod, added)
                g = low.visit_expr(f)
                if g is not f:
                    new[gv.name_hint] = g
        if not new and not added:
            return mod
        items = {gv: new.get(gv.name_hint, f) for gv, f in mod.functions_items()}
        items.update({gv: f for gv, f in added.values()})
        return renormalize(IRModule(items, mod.attrs, mod.global_infos))


__all__ = ["LowerGlobalViewToLocalView", "shard_kernel", "is_dist_function"]
