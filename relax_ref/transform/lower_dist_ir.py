"""LowerDistIR: a local-view program of DTensors becomes a program of tensors that every worker runs
(PASS.DISTIR.*).

Follows TVM's ``src/relax/distributed/transform/lower_distir.cc``. Every Relax function whose
parameters are DTensors (PASS.LOCALVIEW.1) is rewritten (PASS.DISTIR.1-4):

1. Each DTensor parameter (and DTensor field of a tuple parameter) becomes a parameter of its global
   tensor struct info: every worker is given the whole tensor.
2. At the start of every binding block, each such parameter is distributed from worker 0:
   ``R.ccl.broadcast_from_worker0(p)`` when replicated, ``R.ccl.scatter_from_worker0(p, num_workers=n,
   axis=a)`` when sharded ``S[a]`` on a 1-d mesh of ``n`` workers; later uses of the parameter (or of
   ``p[j]``) use the result. A parameter sharded on a mesh of more than one axis is an
   ``unsupported`` error (TVM's lowering is for 1-d meshes).
3. Calls: ``R.dist.call_tir_local_view(f, args, out)`` becomes ``R.call_tir(f, args, out')`` with
   ``out'`` the shard struct info of the binding (DIST.LOCAL.1); ``R.reshape(x, shape)`` reshapes to
   the shard of ``shape`` under the binding's placement; the distributed KV-cache builtins call their
   plain forms, the view's shape and result sharded likewise; a ``call_tir`` with DTensor outputs
   (the global view) is an ``unsupported`` error: LowerGlobalViewToLocalView comes first.
4. Replicated DTensor constants become tensor constants; a sharded constant is an error. Every
   binding is re-inferred, so DTensors become the tensors a worker holds; the return struct info is
   inferred.

Evaluated on the workers of the original mesh, each given the global arguments, the function
computes what each worker's shard of the original computed (DIST.LOCAL.1).
"""

from __future__ import annotations

from typing import Dict, List, Tuple

from ..errors import UnsupportedError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.distributed import DTensorStructInfo
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from ..ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo
from .lower_global_view import is_dist_function
from .pass_infra import Pass
from .utils import op_call, renormalize, update_module

_KV_PLAIN = {"vm.builtin.distributed.attention_kv_cache_append": "vm.builtin.attention_kv_cache_append",
             "vm.builtin.distributed.attention_kv_cache_view": "vm.builtin.attention_kv_cache_view"}


def shard_shape(values, s: DTensorStructInfo) -> Tuple[P.PrimExpr, ...]:
    """(PASS.DISTIR.3) ``values`` with each sharded axis divided by its mesh axis' extent."""
    from ..arith import simplify

    out = list(values)
    for j, spec in enumerate(s.placement.specs):
        if spec.axis is not None:
            d = out[spec.axis]
            out[spec.axis] = simplify(P.floordiv(d, P.IntImm(s.device_mesh.shape[j], d.dtype)))
    return tuple(out)


def _global(s: StructInfo) -> StructInfo:
    if isinstance(s, DTensorStructInfo):
        return s.tensor
    if isinstance(s, TupleStructInfo):
        return TupleStructInfo(tuple(f.tensor if isinstance(f, DTensorStructInfo) else f for f in s.fields))
    return s


def _local(s: StructInfo) -> StructInfo:
    if isinstance(s, DTensorStructInfo):
        if s.shape_values is None:
            raise UnsupportedError("LowerDistIR: a DTensor of unknown shape has no local shape (PASS.DISTIR.3)")
        return TensorStructInfo(rx.ShapeExpr(shard_shape(s.shape_values, s)), s.dtype, vdevice=s.vdevice)
    if isinstance(s, TupleStructInfo):
        return TupleStructInfo(tuple(_local(f) for f in s.fields))
    return s


def _distribute(value: rx.Expr, s: DTensorStructInfo) -> rx.Expr:
    """(PASS.DISTIR.2)"""
    if all(sp.is_replica for sp in s.placement.specs):
        return op_call("relax.ccl.broadcast_from_worker0", value)
    if s.device_mesh.ndim != 1:
        raise UnsupportedError(f"LowerDistIR: a parameter sharded \"{s.placement}\" on a mesh of {s.device_mesh.ndim} "
                               f"axes has no lowering (PASS.DISTIR.2)")
    return op_call("relax.ccl.scatter_from_worker0", value, num_workers=s.device_mesh.shape[0],
                   axis=s.placement.specs[0].axis)


class _Lowerer(ExprMutator):
    def visit_Constant(self, c: rx.Constant) -> rx.Expr:
        s = c.struct_info
        if isinstance(s, DTensorStructInfo):
            if not all(sp.is_replica for sp in s.placement.specs):
                raise UnsupportedError("LowerDistIR: a sharded constant has no lowering (PASS.DISTIR.4)", c.span)
            return rx.Constant(c.data, struct_info=s.tensor, span=c.span)
        return c

    def call(self, call: rx.Call, out: rx.Var) -> rx.Expr:
        """(PASS.DISTIR.3)"""
        s = out.struct_info
        if isinstance(call.op, rx.Op):
            name = call.op.name
            if name == "relax.reshape" and isinstance(s, DTensorStructInfo) and isinstance(call.args[1], rx.ShapeExpr):
                shape = rx.ShapeExpr(shard_shape(call.args[1].values, s), span=call.args[1].span)
                call = rx.Call(call.op, (call.args[0], shape) + tuple(call.args[2:]), call.attrs, call.sinfo_args,
                               span=call.span)
            elif name == "relax.dist.call_tir_local_view":
                call = rx.Call(rx.Op("relax.call_tir"), call.args, call.attrs, (_local(s),), span=call.span)
            elif name == "relax.call_tir" and any(_global(x) != x for x in call.sinfo_args):
                raise UnsupportedError("LowerDistIR: R.dist.call_tir is the global view; lower it with "
                                       "LowerGlobalViewToLocalView first (PASS.DISTIR.3)", call.span)
        elif isinstance(call.op, rx.ExternFunc) and call.op.global_symbol in _KV_PLAIN:
            op = rx.ExternFunc(_KV_PLAIN[call.op.global_symbol], span=call.op.span)
            args, sinfo = call.args, call.sinfo_args
            if call.op.global_symbol.endswith("_view") and isinstance(s, DTensorStructInfo) and \
                    isinstance(args[1], rx.ShapeExpr):
                shape = shard_shape(args[1].values, s)
                args = (args[0], rx.ShapeExpr(shape)) + tuple(args[2:])
                sinfo = (TensorStructInfo(rx.ShapeExpr(shape), s.dtype),)
            call = rx.Call(op, args, call.attrs, sinfo, span=call.span)
        return self.visit_expr(call)


def lower_function(func: rx.Function) -> rx.Function:
    low = _Lowerer()
    params: List[rx.Var] = []
    for p in func.params:
        np_ = rx.Var(p.name_hint, struct_info=_global(p.struct_info), span=p.span)
        params.append(np_)
    getitem: Dict[Tuple[int, int], rx.Var] = {}
    blocks = []
    counter = [0]

    def fresh(dataflow: bool) -> rx.Var:
        n = counter[0]
        counter[0] += 1
        name = ("lv" if dataflow else "gv") + (str(n) if n else "")
        return (rx.DataflowVar if dataflow else rx.Var)(name)

    for block in func.body.blocks:
        df = isinstance(block, rx.DataflowBlock)
        out: List[rx.Binding] = []
        for old, new in zip(func.params, params):           # PASS.DISTIR.2, in every block
            s = old.struct_info
            if isinstance(s, DTensorStructInfo):
                v = fresh(df)
                out.append(rx.VarBinding(v, _distribute(new, s)))
                low.var_remap[old] = v
            elif isinstance(s, TupleStructInfo):
                low.var_remap[old] = new
                for j, f in enumerate(s.fields):
                    if isinstance(f, DTensorStructInfo):
                        v = fresh(df)
                        out.append(rx.VarBinding(v, _distribute(rx.TupleGetItem(new, j), f)))
                        getitem[(id(old), j)] = v
        for b in block.bindings:
            val = b.value
            if isinstance(b, rx.VarBinding) and isinstance(val, rx.TupleGetItem) and \
                    (id(val.tuple_value), val.index) in getitem:
                low.var_remap[b.var] = getitem[(id(val.tuple_value), val.index)]
                continue
            value = low.call(val, b.var) if isinstance(b, rx.VarBinding) and isinstance(val, rx.Call) \
                else low.visit_expr(val)
            if isinstance(b, rx.MatchCast):
                nv = type(b.var)(b.var.name_hint, struct_info=_local(b.struct_info), span=b.var.span)
                out.append(rx.MatchCast(nv, value, _local(b.struct_info), span=b.span))
            else:
                nv = type(b.var)(b.var.name_hint, span=b.var.span)
                out.append(rx.VarBinding(nv, value, span=b.span))
            low.var_remap[b.var] = nv
        blocks.append(type(block)(tuple(out), span=block.span))
    body = rx.SeqExpr(tuple(blocks), low.visit_expr(func.body.body), span=func.body.span)
    return rx.Function(tuple(params), body, None, func.is_pure, attrs=func.attrs, span=func.span)


class LowerDistIR(Pass):
    """(PASS.DISTIR.1-4)"""

    name = "LowerDistIR"
    opt_level = 0

    def transform(self, mod: IRModule) -> IRModule:
        new = {gv.name_hint: lower_function(f) for gv, f in mod.functions_items()
               if isinstance(f, rx.Function) and is_dist_function(f)}
        if not new:
            return mod
        return renormalize(update_module(mod, new))


__all__ = ["LowerDistIR", "lower_function", "shard_shape"]
