"""FoldConstant: evaluate what only depends on constants (PASS.FOLD.*).

Follows TVM 0.25 (``src/relax/transform/fold_constant.cc``), per Relax function, calls visited
after their arguments:

* (PASS.FOLD.1) every use of a variable bound to a constant is replaced by the constant (results
  and nested expressions included);
* (PASS.FOLD.2) ``R.call_tir(f, (constants...), out_sinfo)`` -- anywhere, not only in dataflow
  blocks -- with static output shapes and known dtypes is evaluated on the reference TensorIR
  interpreter (:func:`relax_ref.interp.run_prim_func`, fresh zero-filled outputs) and replaced by the
  constant (or a tuple of constants);
* (PASS.FOLD.3) an argument variable bound to a shape literal is replaced by the literal in every
  operator call;
* (PASS.FOLD.4) inside dataflow blocks, an operator with a legalization is legalized (as
  LegalizeOps would, the generated PrimFunc not added to the module) and folded when that yields a
  foldable ``call_tir``; ``R.tensor_to_shape`` of an int64 constant becomes a shape literal and
  ``R.shape_to_tensor`` of a literal with int64 constant dims an int64 constant;
* (PASS.FOLD.5) size limit: a call whose inferred struct info is a tensor of static shape with more
  than 1024 elements is only folded when some argument is (or contains) a tensor -- creation ops
  such as ``R.zeros((40, 40))`` stay. As in TVM, a call whose arguments were rewritten by this pass
  has no struct info yet at that point and escapes the limit;
* (PASS.FOLD.6) afterwards unused bindings are removed (:func:`remove_all_unused`).

Where TVM would crash or run undefined code, the call is left unfolded: an evaluation that raises a
relax-ref error (out-of-bounds access, division by zero, an unsupported construct), ``call_tir``
with ``tir_vars``, ``tensor_to_shape`` of a non-int64 constant, ``shape_to_tensor`` of a non-literal
or symbolic shape, and legalizations whose argument shapes are unknown (PASS.FOLD.7).
"""

from __future__ import annotations

from typing import Dict, List, Optional

import numpy as np

from ..errors import RelaxError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.module import IRModule
from ..ir.struct_info import TensorStructInfo, TupleStructInfo
from .dead_code_elimination import remove_all_unused
from .pass_infra import FunctionPass
from .utils import BindingMutator

MAX_FOLD_ELEMENTS = 1024


def _static_shape(s) -> Optional[tuple]:
    if not isinstance(s, TensorStructInfo) or not isinstance(s.shape, rx.ShapeExpr):
        return None
    out = []
    for d in s.shape.values:
        if not isinstance(d, P.IntImm):
            return None
        out.append(d.value)
    return tuple(out)


def _contains_tensor(e: rx.Expr) -> bool:
    if isinstance(e.struct_info, TensorStructInfo):
        return True
    if isinstance(e, rx.Tuple):
        return any(_contains_tensor(f) for f in e.fields)
    return False


def should_be_folded(e: rx.Expr) -> bool:
    """(PASS.FOLD.5)"""
    if not isinstance(e, rx.Call):
        return True
    s = e.struct_info
    if not isinstance(s, TensorStructInfo):
        return True
    if not isinstance(s.shape, rx.ShapeExpr):
        return True
    n = 1
    for d in s.shape.values:
        if not isinstance(d, P.IntImm):
            return True
        if d.value <= 0:
            return True
        n *= d.value
        if n > MAX_FOLD_ELEMENTS:
            break
    if n <= MAX_FOLD_ELEMENTS:
        return True
    return any(_contains_tensor(a) for a in e.args)


class _Folder(BindingMutator):
    def __init__(self, mod: IRModule) -> None:
        super().__init__(mod)
        self.mod = mod
        self.bound: Dict[rx.Var, rx.Expr] = {}
        self.in_dataflow = False
        self._legalize_ctx = None

    # -- variables --------------------------------------------------------------------------------
    def _var(self, v: rx.Var) -> rx.Expr:
        v2 = self.var_remap.get(v, v)
        b = self.bound.get(v2, self.bound.get(v))
        if isinstance(b, rx.Constant):
            return b
        return v2

    def visit_Var(self, v: rx.Var) -> rx.Expr:
        return self._var(v)

    def visit_DataflowVar(self, v: rx.DataflowVar) -> rx.Expr:
        return self._var(v)

    def visit_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        saved = self.in_dataflow
        self.in_dataflow = isinstance(b, rx.DataflowBlock)
        try:
            return super().visit_block(b)
        finally:
            self.in_dataflow = saved

    def visit_binding(self, b: rx.Binding):
        nb = super().visit_binding(b)
        if isinstance(nb, rx.VarBinding):
            self.bound[nb.var] = nb.value
            self.bound[b.var] = nb.value
        return nb

    # -- calls ------------------------------------------------------------------------------------
    def visit_Call(self, call: rx.Call) -> rx.Expr:
        post = self.generic_mutate_expr(call)
        if not should_be_folded(post):
            return post
        if not isinstance(post.op, rx.Op):
            return post
        name = post.op.name
        if name == "relax.call_tir":
            folded = self.fold_call_tir(post, self.mod)
            return folded if folded is not None else post
        new_args = []
        changed = False
        for a in post.args:
            if isinstance(a, rx.Var):
                val = self.bound.get(a)
                if isinstance(val, rx.ShapeExpr):
                    new_args.append(val)
                    changed = True
                    continue
            new_args.append(a)
        if changed:
            post = rx.Call(post.op, tuple(new_args), post.attrs, post.sinfo_args, span=post.span)
        if not self.in_dataflow:
            return post
        from ..ops import registry

        opdef = registry.lookup(name)
        if opdef is not None and opdef.legalize is not None:
            folded = self.fold_by_legalization(post, opdef)
            return folded if folded is not None else post
        if name == "relax.tensor_to_shape":
            a = post.args[0]
            if isinstance(a, rx.Constant) and a.data.ndim == 1 and a.dtype == "int64":
                return rx.ShapeExpr(tuple(P.IntImm(int(x), "int64") for x in a.data))
        elif name == "relax.shape_to_tensor":
            a = post.args[0]
            if isinstance(a, rx.ShapeExpr) and all(isinstance(v, P.IntImm) and v.dtype == "int64" for v in a.values):
                return rx.Constant(np.array([v.value for v in a.values], dtype=np.int64))
        return post

    def fold_by_legalization(self, call: rx.Call, opdef) -> Optional[rx.Expr]:
        """(PASS.FOLD.4)"""
        from ..static.normalize import Normalizer
        from .legalize_ops import LegalizeContext, know_all_shape_values

        norm = Normalizer(self.mod, script_annotations=False)
        try:
            normalized = norm.normalize_expr(call)
        except RelaxError:
            return None
        if not (all(know_all_shape_values(a.struct_info) for a in normalized.args)
                and (opdef.data_dependent or know_all_shape_values(normalized.struct_info))):
            return None
        if self._legalize_ctx is None:
            self._legalize_ctx = LegalizeContext(self.mod)
        ctx = self._legalize_ctx
        ctx.span = call.span
        out = opdef.legalize(normalized, ctx)
        if not (isinstance(out, rx.Call) and isinstance(out.op, rx.Op) and out.op.name == "relax.call_tir"):
            return None
        if not isinstance(out.args[1], rx.Tuple):
            return None
        added = {gv.name_hint: f for gv, f in ctx.added_functions}
        return self.fold_call_tir(out, self.mod, added)

    @staticmethod
    def fold_call_tir(call: rx.Call, mod: IRModule, extra: Optional[Dict[str, tir.PrimFunc]] = None) -> Optional[rx.Expr]:
        """(PASS.FOLD.2)"""
        gv = call.args[0]
        if not isinstance(gv, rx.GlobalVar):
            return None
        func = (extra or {}).get(gv.name_hint)
        if func is None and gv.name_hint in mod:
            func = mod[gv.name_hint]
        if not isinstance(func, tir.PrimFunc):
            return None
        args_tuple = call.args[1]
        if not isinstance(args_tuple, rx.Tuple) or not all(isinstance(a, rx.Constant) for a in args_tuple.fields):
            return None
        if len(call.args) > 2:
            return None
        if len(call.sinfo_args) != 1:
            return None
        s = call.sinfo_args[0]
        outs_si = list(s.fields) if isinstance(s, TupleStructInfo) else [s]
        outs: List[np.ndarray] = []
        for o in outs_si:
            shape = _static_shape(o)
            if shape is None or not isinstance(o, TensorStructInfo) or o.dtype == "void":
                return None
            outs.append(np.zeros(shape, dtype=_dt.to_numpy(o.dtype)))
        inputs = [np.array(a.data, copy=True) for a in args_tuple.fields]
        from ..interp import run_prim_func

        try:
            run_prim_func(func, inputs + outs, name=gv.name_hint)
        except RelaxError:
            return None
        consts = [rx.Constant(o) for o in outs]
        if isinstance(s, TupleStructInfo):
            return rx.Tuple(tuple(consts))
        return consts[0]


def fold_constant(func: rx.Function, mod: IRModule) -> rx.Function:
    """(PASS.FOLD.1-6) (not re-normalized)"""
    out = _Folder(mod).visit_expr(func)
    return remove_all_unused(out)


class FoldConstant(FunctionPass):
    """(PASS.FOLD.*)"""

    name = "FoldConstant"
    opt_level = 0

    def transform_function(self, func: rx.Function, mod: IRModule, name: str) -> rx.Function:
        return fold_constant(func, mod)


__all__ = ["FoldConstant", "fold_constant", "should_be_folded", "MAX_FOLD_ELEMENTS"]
