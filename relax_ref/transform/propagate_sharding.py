"""PropagateSharding: a program of tensors with sharding annotations becomes a program of DTensors
(PASS.SHARD.*).

Follows TVM's ``src/relax/distributed/transform/propagate_sharding.cc``. Every Relax function that
calls ``R.dist.annotate_sharding`` is rewritten (PASS.SHARD.1):

1. The axis-group graph of the function is built (:mod:`.dist_axis_graph`, PASS.SHARD.2, PASS.SHARD.4)
   and each annotation ``y = annotate_sharding(x, mesh, placement)`` makes the axes of ``y`` it shards
   (and ``y`` as a whole, for the mesh) sources; the specs spread (PASS.SHARD.3).
2. Conflicts (PASS.SHARD.5): every tensor variable (parameters and bindings) must receive a single
   mesh and shard each mesh axis at most once; an axis of constant extent smaller than the mesh
   axis that would split it becomes a cut point, and the specs spread again.
3. Rewriting (PASS.SHARD.6): each tensor parameter (and tensor field of a tuple parameter) becomes
   an ``R.DTensor`` of its mesh and the placement its axes received; a constant operand becomes a
   replicated DTensor constant (``R.dist.const``); a ``call_tir`` gets DTensor outputs whose
   placement is inferred from its operands through its kernel's axis groups (``R.dist.call_tir``);
   every other call is re-inferred on the DTensors (DIST.OP.*). Where the inferred placement of a
   binding differs from the one the graph gave its variable, ``R.dist.redistribute`` is inserted;
   an annotation becomes its operand (or such a redistribute). The return struct info is inferred.

An axis the graph reaches from no annotation is replicated; a tensor that receives no mesh is an
error, as is a sharded constant.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ..errors import UnsupportedError
from ..ir import expr as rx
from ..ir.distributed import DeviceMesh, DTensorStructInfo, Placement, PlacementSpec, REPLICA
from ..ir.module import IRModule
from ..ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo
from .dist_axis_graph import AxisGroupGraph, DESCEND, join_call, join_call_tir, tensor_of
from .pass_infra import Pass
from .utils import BindingMutator, op_call, renormalize, update_module

ANNOTATE = "relax.dist.annotate_sharding"


def is_annotated(func: rx.Function) -> bool:
    """(PASS.SHARD.1) Whether ``func`` calls ``annotate_sharding`` in its bindings."""
    return any(isinstance(b.value, rx.Call) and isinstance(b.value.op, rx.Op) and b.value.op.name == ANNOTATE
               for b in _bindings(func))


def _bindings(func: rx.Function):
    for block in func.body.blocks:
        yield from block.bindings


def _plain_tensor(s) -> bool:
    return isinstance(s, TensorStructInfo) and not isinstance(s, DTensorStructInfo)


def build_graph(func: rx.Function, mod: IRModule) -> AxisGroupGraph:
    """Edges of every binding, then the annotations as sources (PASS.SHARD.2-3)."""
    g = AxisGroupGraph()
    for b in _bindings(func):
        v, val = b.var, b.value
        if isinstance(b, rx.VarBinding) and isinstance(val, rx.Call):
            join_call(g, v, val, mod)
        elif isinstance(b, rx.VarBinding) and isinstance(val, rx.TupleGetItem):
            g.join(g.axis(val.tuple_value, -1, val.index), g.axis(v, -1), DESCEND)
            t = tensor_of(v.struct_info)
            for i in range(t.ndim if t is not None else 0):
                g.join(g.axis(val.tuple_value, i, val.index), g.axis(v, i), DESCEND)
        elif isinstance(b, rx.VarBinding) and isinstance(val, rx.Var):
            s = v.struct_info
            fields = s.fields if isinstance(s, TupleStructInfo) else (s,)
            for idx, f in enumerate(fields):
                t = tensor_of(f)
                if t is None:
                    continue
                for i in range(-1, t.ndim):
                    g.join(g.axis(val, i, idx), g.axis(v, i, idx), DESCEND)
    for b in _bindings(func):
        if isinstance(b, rx.VarBinding) and isinstance(b.value, rx.Call) and isinstance(b.value.op, rx.Op) \
                and b.value.op.name == ANNOTATE:
            mesh, placement = b.value.attrs["device_mesh"], b.value.attrs["placement"]
            for j, spec in enumerate(placement.specs):
                if spec.axis is not None:
                    g.add_source(g.axis(b.var, spec.axis), (mesh, j))
            g.add_source(g.axis(b.var, -1), (mesh, -1))
    return g


def _check_var(g: AxisGroupGraph, v: rx.Var) -> None:
    """(PASS.SHARD.5) One mesh per tensor, each mesh axis sharding one of its axes; an axis too
    small for its mesh axis becomes a cut point."""
    t = tensor_of(v.struct_info)
    shape = t.shape_values if t is not None else None
    if shape is None:
        raise UnsupportedError(f"PropagateSharding: '{v.name_hint}' needs a known shape (PASS.SHARD.5)")
    mesh: Optional[DeviceMesh] = None
    used = set()
    for i in range(-1, t.ndim):
        spec = g.spec_of(g.axis(v, i))
        if spec is None:
            continue
        if mesh is None:
            mesh = spec[0]
        elif mesh != spec[0]:
            raise UnsupportedError(f"PropagateSharding: '{v.name_hint}' receives two device meshes (PASS.SHARD.5)")
        if i >= 0:
            if spec[1] in used:
                raise UnsupportedError(f"PropagateSharding: '{v.name_hint}' is sharded twice along mesh axis {spec[1]} "
                                       f"(PASS.SHARD.5)")
            used.add(spec[1])
            d = shape[i]
            if hasattr(d, "value") and d.value < mesh.shape[spec[1]]:
                g.add_cut(g.axis(v, i), spec)


def _check_constants(g: AxisGroupGraph, func: rx.Function) -> None:
    for b in _bindings(func):
        if isinstance(b.value, rx.Call):
            for a in _call_operands(b.value):
                if isinstance(a, rx.Constant):
                    for i in range(a.data.ndim):
                        if g.spec_of(g.axis(a, i)) is not None:
                            raise UnsupportedError("PropagateSharding: a constant cannot be sharded; make it a parameter "
                                                   "(PASS.SHARD.5)")


def _call_operands(call: rx.Call) -> Tuple[rx.Expr, ...]:
    if isinstance(call.op, rx.Op) and call.op.name == "relax.call_tir" and isinstance(call.args[1], rx.Tuple):
        return call.args[1].fields
    return call.args


def resolve_conflicts(g: AxisGroupGraph, func: rx.Function) -> None:
    g.propagate()
    _check_constants(g, func)
    for b in _bindings(func):
        if _plain_tensor(b.var.struct_info):
            _check_var(g, b.var)
    for p in func.params:
        if _plain_tensor(p.struct_info):
            _check_var(g, p)
    g.propagate()


def dtensor_of(g: AxisGroupGraph, t: TensorStructInfo, e: rx.Expr, index: int = 0,
               mesh: Optional[DeviceMesh] = None) -> DTensorStructInfo:
    """(PASS.SHARD.6) ``t`` on the mesh of ``e`` with the placement its axes received."""
    if mesh is None:
        spec = g.spec_of(g.axis(e, -1, index))
        if spec is None:
            name = getattr(e, "name_hint", "a constant")
            raise UnsupportedError(f"PropagateSharding: '{name}' is assigned no device mesh (PASS.SHARD.6)")
        mesh = spec[0]
    specs: List[PlacementSpec] = [REPLICA] * mesh.ndim
    for i in range(t.ndim):
        s = g.spec_of(g.axis(e, i, index))
        if s is not None:
            specs[s[1]] = PlacementSpec(i)
    return DTensorStructInfo.of(t, mesh, Placement(tuple(specs)))


def _distribute(g: AxisGroupGraph, s: StructInfo, e: rx.Expr) -> StructInfo:
    if _plain_tensor(s):
        return dtensor_of(g, s, e)
    if isinstance(s, TupleStructInfo):
        return TupleStructInfo(tuple(dtensor_of(g, f, e, i) if _plain_tensor(f) else f for i, f in enumerate(s.fields)))
    return s


class _Rewriter(BindingMutator):
    def __init__(self, mod: IRModule, g: AxisGroupGraph) -> None:
        super().__init__(mod)
        self.g = g
        self.getitem: Dict[Tuple[int, int], rx.Var] = {}
        self.names: set = set()
        self._keep: list = []

    def fresh(self, hint: str) -> str:
        from .utils import fresh_name

        name = fresh_name(self.names, hint)
        self.names.add(name)
        return name

    def visit_Constant(self, c: rx.Constant) -> rx.Expr:
        s = _distribute(self.g, c.struct_info, c)
        if isinstance(s, DTensorStructInfo) and any(not sp.is_replica for sp in s.placement.specs):
            raise UnsupportedError("PropagateSharding: a constant cannot be sharded (PASS.SHARD.5)")
        return rx.Constant(c.data, struct_info=s, span=c.span) if s is not c.struct_info else c

    def visit_Call(self, c: rx.Call) -> rx.Expr:
        out = self.generic_mutate_expr(c)
        if isinstance(out.op, rx.ExternFunc) and out.op.global_symbol in KV_CACHE_EXTERNS:
            op = rx.ExternFunc(KV_CACHE_EXTERNS[out.op.global_symbol], span=out.op.span)
            out = rx.Call(op, out.args, out.attrs, out.sinfo_args, span=out.span)
        return out

    def visit_binding(self, b: rx.Binding):
        if isinstance(b, rx.VarBinding) and isinstance(b.value, rx.TupleGetItem) and \
                isinstance(b.value.tuple_value, rx.Var):
            hit = self.getitem.get((id(b.value.tuple_value), b.value.index))
            if hit is not None:
                self.var_remap[b.var] = hit
                return None
        if not (isinstance(b, rx.VarBinding) and isinstance(b.value, rx.Call)):
            return super().visit_binding(b)
        s = b.var.struct_info
        fields = s.fields if isinstance(s, TupleStructInfo) else (s,)
        if not isinstance(s, (TensorStructInfo, TupleStructInfo)) or not all(isinstance(f, TensorStructInfo) for f in fields):
            return super().visit_binding(b)
        want = [dtensor_of(self.g, tensor_of(f), b.var, i, self._mesh(b.var)) for i, f in enumerate(fields)]
        call = self.visit_expr(b.value)
        call = self._call_tir_outputs(call, b.var)
        call = _kv_cache_extern(call, want[0])
        got = call.sinfo_args[0] if isinstance(call.op, rx.Op) and call.op.name == "relax.call_tir" \
            else self.value_struct_info(call)          # a call_tir gives its outputs (OP.call_tir.C1)
        if isinstance(got, DTensorStructInfo):
            value = call.args[0] if isinstance(call.op, rx.Op) and call.op.name == ANNOTATE else call
            target = DTensorStructInfo.of(got.tensor, want[0].device_mesh, want[0].placement)
            if got != target:
                value = op_call("relax.dist.redistribute", value, device_mesh=want[0].device_mesh,
                                placement=want[0].placement)
                if not isinstance(value.args[0], rx.Var):      # the normalizer binds the operand first
                    nv = type(b.var)(name_hint=b.var.name_hint, struct_info=target, span=b.var.span)
                    self.var_remap[b.var] = nv
                    return rx.VarBinding(nv, value, span=b.span)
            if isinstance(value, rx.Var) and not (isinstance(value, rx.DataflowVar) and
                                                  not isinstance(b.var, rx.DataflowVar)):
                self.var_remap[b.var] = value
                return None
            return self.rebind(b, value)     # an output of a dataflow block stays bound (PASS.SHARD.6)
        if not isinstance(got, TupleStructInfo):
            raise UnsupportedError(f"PropagateSharding: the call bound to {b.var.name_hint!r} does not give DTensors "
                                   f"(PASS.SHARD.6)")
        cls = type(b.var)
        nv = cls(name_hint=self.fresh("lv" if cls is rx.DataflowVar else "gv"), struct_info=got, span=b.var.span)
        out = [rx.VarBinding(nv, call, span=b.span)]
        self.var_remap[b.var] = nv
        for i, f in enumerate(got.fields):
            if f != DTensorStructInfo.of(f.tensor, want[i].device_mesh, want[i].placement):
                r = op_call("relax.dist.redistribute", rx.TupleGetItem(nv, i), device_mesh=want[i].device_mesh,
                            placement=want[i].placement)
                rv = cls(name_hint=self.fresh("lv" if cls is rx.DataflowVar else "gv"),
                         struct_info=self.value_struct_info(r), span=b.var.span)
                out.append(rx.VarBinding(rv, r, span=b.span))
                self.getitem[(id(b.var), i)] = rv
                self._keep.append(b.var)
        return out

    def _mesh(self, v: rx.Var) -> DeviceMesh:
        spec = self.g.spec_of(self.g.axis(v, -1))
        if spec is None:
            raise UnsupportedError(f"PropagateSharding: '{v.name_hint}' is assigned no device mesh (PASS.SHARD.6)")
        return spec[0]

    def _call_tir_outputs(self, call: rx.Call, out: rx.Var) -> rx.Call:
        """(PASS.SHARD.6) The DTensor outputs of a ``call_tir``, inferred from its operands' placements
        through the kernel's axis groups."""
        if not (isinstance(call.op, rx.Op) and call.op.name == "relax.call_tir" and isinstance(call.args[1], rx.Tuple)
                and call.args[1].fields):
            return call
        f = self.module[call.args[0].name_hint] if isinstance(call.args[0], rx.GlobalVar) else None
        dargs = [a for a in call.args[1].fields if isinstance(a.struct_info, DTensorStructInfo)]
        if f is None or not dargs:
            raise UnsupportedError("PropagateSharding: a call_tir needs a PrimFunc of the module and DTensor operands "
                                   "(PASS.SHARD.6)")
        mesh = dargs[0].struct_info.device_mesh
        if any(a.struct_info.device_mesh != mesh for a in dargs):
            raise UnsupportedError("PropagateSharding: the operands of a call_tir lie on different meshes (PASS.SHARD.6)")
        local = AxisGroupGraph()
        proxy = rx.Var("output", struct_info=call.sinfo_args[0])
        join_call_tir(local, proxy, call, f)
        for a in dargs:
            for j, sp in enumerate(a.struct_info.placement.specs):
                if sp.axis is not None:
                    local.add_source(local.axis(a, sp.axis), (mesh, j))
        local.propagate()
        orig = call.sinfo_args[0]
        outs = orig.fields if isinstance(orig, TupleStructInfo) else (orig,)
        new = [dtensor_of(local, tensor_of(t), proxy, i, mesh) for i, t in enumerate(outs)]
        si = new[0] if not isinstance(orig, TupleStructInfo) else TupleStructInfo(tuple(new))
        return rx.Call(call.op, call.args, call.attrs, (si,), span=call.span)


#: the KV-cache builtins and their distributed forms (PASS.SHARD.6)
KV_CACHE_EXTERNS = {"vm.builtin.attention_kv_cache_append": "vm.builtin.distributed.attention_kv_cache_append",
                    "vm.builtin.attention_kv_cache_view": "vm.builtin.distributed.attention_kv_cache_view"}


def _kv_cache_extern(call: rx.Call, want: DTensorStructInfo) -> rx.Call:
    """(PASS.SHARD.6) A call of a KV-cache builtin calls its distributed form; the view's result is
    the DTensor the graph gave its variable."""
    if not isinstance(call.op, rx.ExternFunc) or call.op.global_symbol != KV_CACHE_EXTERNS[
            "vm.builtin.attention_kv_cache_view"]:
        return call
    sinfo = call.sinfo_args
    if sinfo and isinstance(sinfo[0], TensorStructInfo):
        sinfo = (DTensorStructInfo.of(tensor_of(sinfo[0]), want.device_mesh, want.placement),) + tuple(sinfo[1:])
    return rx.Call(call.op, call.args, call.attrs, sinfo, span=call.span)


def propagate_function(func: rx.Function, mod: IRModule) -> rx.Function:
    g = build_graph(func, mod)
    resolve_conflicts(g, func)
    r = _Rewriter(mod, g)
    r.names = {b.var.name_hint for b in _bindings(func)} | {p.name_hint for p in func.params}
    params = []
    for p in func.params:
        s = _distribute(g, p.struct_info, p)
        np_ = p if s is p.struct_info else rx.Var(p.name_hint, struct_info=s, span=p.span)
        r.var_remap[p] = np_
        params.append(np_)
    body = r.visit_expr(func.body)
    return rx.Function(tuple(params), body, None, func.is_pure, attrs=func.attrs, span=func.span)


class PropagateSharding(Pass):
    """(PASS.SHARD.1-6)"""

    name = "PropagateSharding"
    opt_level = 0

    def transform(self, mod: IRModule) -> IRModule:
        new = {}
        for gv, f in mod.functions_items():
            if isinstance(f, rx.Function) and is_annotated(f):
                new[gv.name_hint] = propagate_function(f, mod)
        if not new:
            return mod
        return renormalize(update_module(mod, new))


__all__ = ["PropagateSharding", "propagate_function", "is_annotated", "build_graph"]
