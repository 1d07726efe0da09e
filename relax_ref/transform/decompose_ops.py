"""DecomposeOpsForInference: rewrite composite operators for inference (PASS.DECOMPOSE.*).

Follows TVM 0.25 (``src/relax/transform/decompose_ops.cc``, ``DecomposeOps``), in every Relax function
(or only in ``func_name``):

* (PASS.DECOMPOSE.1) ``R.nn.batch_norm(x, gamma, beta, mean, var, axis, epsilon, center, scale)``
  becomes the tuple ``(out, mean, var)`` with ``out = (x - mean') / sqrt(var' + eps)`` ``* gamma'``
  (when ``scale``) ``+ beta'`` (when ``center``), where ``t'`` is ``R.expand_dims`` of ``t`` on every
  axis but ``axis`` and ``eps`` is ``R.const(epsilon, x.dtype)`` -- the moving statistics are used
  and returned unchanged. The training statistics of ``training=True`` are not used: the pass
  changes the results of such a call, by design;
* (PASS.DECOMPOSE.2) ``s = R.tensor_to_shape(t)`` becomes ``lv = R.call_pure_packed(
  "vm.builtin.tensor_to_shape", t, sinfo_args=(R.Shape(ndim=k),))``, ``y = R.match_cast(lv,
  R.Shape([x, x_1, ...]))`` with fresh symbolic variables (``y`` a non-dataflow ``Var``, as in TVM),
  and ``s = R.shape([x, x_1, ...])``. When
  the rank ``k`` is unknown the call is kept (TVM would cast to a rank-0 shape).
"""

from __future__ import annotations

from typing import List, Optional

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.module import IRModule
from ..ir.struct_info import ShapeStructInfo, TensorStructInfo
from .pass_infra import Pass, rewrite_functions
from .utils import BindingMutator, fresh_name, op_call


def _expand_to_match(e: rx.Expr, ndim: int, axis: int) -> rx.Expr:
    axis = axis + ndim if axis < 0 else axis
    expand = [i for i in range(ndim) if i != axis]
    return op_call("relax.expand_dims", e, axis=expand)


def decompose_batch_norm(call: rx.Call) -> rx.Expr:
    """(PASS.DECOMPOSE.1)"""
    data, gamma, beta, mean, var = call.args
    s = data.struct_info
    if not isinstance(s, TensorStructInfo) or s.ndim < 0:
        raise RelaxError("DecomposeOpsForInference: batch_norm needs a tensor of known rank", call.span)
    a = call.attrs
    axis = int(a["axis"])
    eps = rx.Constant(_scalar(float(a["epsilon"]), s.dtype))
    m = _expand_to_match(mean, s.ndim, axis)
    v = _expand_to_match(var, s.ndim, axis)
    sqrt_var = op_call("relax.sqrt", op_call("relax.add", v, eps))
    out = op_call("relax.divide", op_call("relax.subtract", data, m), sqrt_var)
    if a.get("scale", True):
        out = op_call("relax.multiply", out, _expand_to_match(gamma, s.ndim, axis))
    if a.get("center", True):
        out = op_call("relax.add", out, _expand_to_match(beta, s.ndim, axis))
    return rx.Tuple((out, mean, var), span=call.span)


def _scalar(value: float, dtype: str):
    import numpy as np

    from ..ir import dtype as _dt

    return np.array(value, dtype=_dt.to_numpy(dtype))


class _Decomposer(BindingMutator):
    def __init__(self, names: set) -> None:
        super().__init__()
        self.names = names

    def fresh(self, hint: str) -> str:
        n = fresh_name(self.names, hint)
        self.names.add(n)
        return n

    def visit_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        self._dataflow = isinstance(b, rx.DataflowBlock)
        return super().visit_block(b)

    def visit_binding(self, b: rx.Binding):
        value = self.visit_expr(b.value)
        if isinstance(b, rx.VarBinding) and isinstance(value, rx.Call) and isinstance(value.op, rx.Op):
            name = value.op.name
            if name == "relax.nn.batch_norm":
                return self.rebind(b, decompose_batch_norm(value))
            if name == "relax.tensor_to_shape":
                out = self.tensor_to_shape(b, value)
                if out is not None:
                    return out
        return self.rebind(b, value)

    def tensor_to_shape(self, b: rx.VarBinding, call: rx.Call) -> Optional[List[rx.Binding]]:
        """(PASS.DECOMPOSE.2)"""
        s = call.struct_info
        if not isinstance(s, ShapeStructInfo) or s.ndim < 0:
            return None
        df = getattr(self, "_dataflow", False)
        cls = rx.DataflowVar if df else rx.Var
        packed = rx.Call(rx.Op("relax.call_pure_packed"), (rx.ExternFunc("vm.builtin.tensor_to_shape"), call.args[0]),
                         sinfo_args=(ShapeStructInfo(ndim=s.ndim),), span=call.span)
        lv = cls(name_hint=self.fresh("lv"))
        xs = tuple(P.PrimVar("x", "int64") for _ in range(s.ndim))
        target = ShapeStructInfo(xs)
        y = rx.Var(name_hint=self.fresh("y"), struct_info=target)  # TVM binds a plain Var here
        shape = rx.ShapeExpr(xs)
        return [rx.VarBinding(lv, packed, span=call.span), rx.MatchCast(y, lv, target, span=call.span),
                self.rebind(b, shape)]


def decompose_ops(func: rx.Function) -> rx.Function:
    from ..analysis.free_vars import all_vars

    return _Decomposer({v.name_hint for v in all_vars(func)}).visit_expr(func)


class DecomposeOpsForInference(Pass):
    """``DecomposeOpsForInference(func_name=None)`` (PASS.DECOMPOSE.*)."""

    name = "DecomposeOpsForInference"
    opt_level = 0

    def __init__(self, func_name: Optional[str] = None) -> None:
        self.func_name = func_name

    def transform(self, mod: IRModule) -> IRModule:
        if self.func_name is not None and self.func_name not in mod:
            raise RelaxError(f"DecomposeOpsForInference: no function named '{self.func_name}'")
        return rewrite_functions(
            mod, lambda gv, f: decompose_ops(f) if self.func_name is None or gv.name_hint == self.func_name else f)


__all__ = ["DecomposeOpsForInference", "decompose_batch_norm", "decompose_ops"]
