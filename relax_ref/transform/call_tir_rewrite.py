"""CallTIRRewrite: make destination passing explicit (PASS.CALLTIR.*).

Follows TVM 0.25 (``src/relax/transform/call_tir_rewrite.cc``). In every Relax function, a binding
``y = R.call_tir(f, (args...), out_sinfo, tir_vars)`` (likewise ``call_tir_inplace`` and
``call_dps_packed``) becomes

* one ``alloc = R.builtin.alloc_tensor(R.shape(dims), R.dtype(dt), R.prim_value(dev), R.str(scope),
  sinfo_args=(out_sinfo_i,))`` per freshly allocated output -- ``dev``/``scope`` from the output's
  virtual device (its index among the module's ``vdevice`` global infos), else the first declared
  device with scope ``"global"`` (0 when none) for a single output and 0 for tuple fields
  (PASS.CALLTIR.1); an in-place output reuses its input instead;
* the call ``f(args..., fresh outputs...)`` bound to ``_`` -- or, with ``tir_vars``,
  ``R.vm.call_tir_dyn(f, (args..., fresh outputs..., tir_vars))`` (PASS.CALLTIR.2);
* ``y = alloc`` (one output) or ``y = (alloc, alloc1, ...)`` (PASS.CALLTIR.3).

The direct call of a PrimFunc is impure: run :class:`ToNonDataflow` and :class:`RemovePurityChecking`
first (as TVM's default pipeline does) for a well-formed result.
"""

from __future__ import annotations

from typing import List, Tuple

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from ..ir.struct_info import TensorStructInfo, TupleStructInfo, VDevice
from .pass_infra import Pass, rewrite_functions
from .utils import fresh_name

_CALLS = ("relax.call_tir", "relax.call_tir_inplace", "relax.call_dps_packed")


def _vdevices(mod: IRModule) -> list:
    infos = mod.global_infos.get("vdevice") if mod.global_infos else None
    return list(infos or ())


def device_index_by_scope(mod: IRModule, scope: str) -> int:
    for i, d in enumerate(_vdevices(mod)):
        if isinstance(d, VDevice) and d.memory_scope == scope:
            return i
    return 0


def device_index(mod: IRModule, vdevice: VDevice) -> int:
    for i, d in enumerate(_vdevices(mod)):
        if d == vdevice:
            return i
    raise RelaxError(f"CallTIRRewrite: virtual device {vdevice} is not declared in the module")


class _Rewriter(ExprMutator):
    def __init__(self, mod: IRModule, names: set) -> None:
        super().__init__()
        self.mod = mod
        self.names = names

    def fresh(self, hint: str) -> str:
        n = fresh_name(self.names, hint)
        self.names.add(n)
        return n

    def _alloc(self, s: TensorStructInfo, single: bool, dataflow: bool) -> Tuple[rx.Binding, rx.Var]:
        if not isinstance(s, TensorStructInfo) or not isinstance(s.shape, rx.ShapeExpr):
            raise RelaxError("CallTIRRewrite: every output of call_tir needs a tensor struct info with a known shape")
        if s.vdevice is not None:
            dev, scope = device_index(self.mod, s.vdevice), s.vdevice.memory_scope
        else:
            scope = "global"
            dev = device_index_by_scope(self.mod, scope) if single else 0
        call = rx.Call(rx.Op("relax.builtin.alloc_tensor"),
                       (rx.ShapeExpr(s.shape.values), rx.DataTypeImm(s.dtype), rx.PrimValue(P.IntImm(dev, "int64")),
                        rx.StringImm(scope)), sinfo_args=(s,))
        cls = rx.DataflowVar if dataflow else rx.Var
        v = cls(name_hint=self.fresh("alloc"))
        return rx.VarBinding(v, call), v

    def visit_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        self._dataflow = isinstance(b, rx.DataflowBlock)
        return super().visit_block(b)

    def visit_binding(self, b: rx.Binding):
        value = self.visit_expr(b.value)
        if not (isinstance(b, rx.VarBinding) and isinstance(value, rx.Call) and isinstance(value.op, rx.Op)
                and value.op.name in _CALLS):
            if value is b.value:
                return b
            if isinstance(b, rx.MatchCast):
                return rx.MatchCast(b.var, value, b.struct_info, span=b.span)
            return rx.VarBinding(b.var, value, span=b.span)
        call = value
        df = getattr(self, "_dataflow", False)
        inplace = call.op.name == "relax.call_tir_inplace"
        idx: List[int] = []
        if inplace:
            raw = call.attrs.get("inplace_indices")
            idx = [int(raw)] if isinstance(raw, int) else [int(i) for i in raw]
        args_tuple = call.args[1]
        fields = list(args_tuple.fields) if isinstance(args_tuple, rx.Tuple) else None
        s = call.struct_info
        out: List[rx.Binding] = []
        outs: List[rx.Expr] = []
        if isinstance(s, TensorStructInfo):
            if not inplace:
                bnd, v = self._alloc(s, True, df)
                out.append(bnd)
                outs.append(v)
            else:
                if idx[0] == -1:
                    raise RelaxError("CallTIRRewrite: a single output of call_tir_inplace must be in place", call.span)
                outs.append(fields[idx[0]])
        elif isinstance(s, TupleStructInfo):
            for i, f in enumerate(s.fields):
                if not isinstance(f, TensorStructInfo):
                    raise RelaxError("CallTIRRewrite: call_tir expects a tuple of tensors as output", call.span)
                if not inplace or idx[i] == -1:
                    bnd, v = self._alloc(f, False, df)
                    out.append(bnd)
                    outs.append(v)
                else:
                    outs.append(fields[idx[i]])
        else:
            raise RelaxError(f"CallTIRRewrite: the struct info of {call.op.name} must be a tensor or a tuple", call.span)
        cls = rx.DataflowVar if df else rx.Var
        if fields is not None:
            args = list(fields)
            if not inplace:
                args.extend(outs)
            else:
                args.extend(o for o, i in zip(outs, idx) if i == -1)
            if len(call.args) == 2 or call.op.name == "relax.call_dps_packed":
                kernel = rx.Call(call.args[0], tuple(args), span=call.span)
            else:
                args.append(call.args[2])
                kernel = rx.Call(rx.Op("relax.vm.call_tir_dyn"), (call.args[0], rx.Tuple(tuple(args))), span=call.span)
        else:
            args = [args_tuple] + (outs if not inplace else [])
            kernel = rx.Call(call.args[0], tuple(args), span=call.span)
        out.append(rx.VarBinding(cls(name_hint=self.fresh("_")), kernel, span=b.span))
        result = outs[0] if len(outs) == 1 else rx.Tuple(tuple(outs))
        out.append(rx.VarBinding(b.var, result, span=b.span))
        return out


def call_tir_rewrite(mod: IRModule) -> IRModule:
    """(PASS.CALLTIR.1-3)"""
    from ..analysis.free_vars import all_vars

    return rewrite_functions(mod, lambda _gv, f: _Rewriter(mod, {v.name_hint for v in all_vars(f)}).visit_expr(f))


class CallTIRRewrite(Pass):
    """(PASS.CALLTIR.*)"""

    name = "CallTIRRewrite"
    opt_level = 0

    def transform(self, mod: IRModule) -> IRModule:
        return call_tir_rewrite(mod)


__all__ = ["CallTIRRewrite", "call_tir_rewrite", "device_index", "device_index_by_scope"]
