"""Gradient: reverse-mode automatic differentiation of a Relax function (PASS.GRAD.*).

Follows TVM 0.25 (``src/relax/transform/gradient.cc``, ``gradient_simplifier.cc``, and the operator
gradients of :mod:`relax_ref.transform.gradient_ops`). ``Gradient(func_name, require_grads=None,
target_index=0)`` adds ``<func_name>_adjoint``: a copy of the function that also computes, after its
forward bindings, the adjoints of ``require_grads`` (default: every parameter) and returns
``(original result, (adjoints...))``. The rules are in the spec, PASS.GRAD.1-6.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Union

from ..errors import RelaxError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir.module import IRModule
from ..ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo
from .gradient_ops import GRADIENTS, NO_GRAD, C
from .pass_infra import Pass
from .utils import _Copier, renormalize

# ---------------------------------------------------------------------------------------------------
# Nested messages: an expression per tensor leaf of a (nested) tuple
# ---------------------------------------------------------------------------------------------------


class _Ctx:
    """The block builder of the adjoint function plus struct-info inference without emission."""

    def __init__(self, mod: IRModule, params: Sequence[rx.Var]) -> None:
        from ..static.normalize import Normalizer

        self.mod = mod
        self.n = Normalizer(mod, script_annotations=False)
        self.n.begin_scope(list(params))
        self.params = list(params)

    def struct_info(self, e: rx.Expr) -> StructInfo:
        if isinstance(e, rx.Var) or e.struct_info is not None:
            return e.struct_info
        if isinstance(e, rx.TupleGetItem):
            t = self.struct_info(e.tuple_value)
            if isinstance(t, TupleStructInfo):
                return t.fields[e.index]
        from ..static.normalize import Normalizer

        scratch = Normalizer(self.mod, script_annotations=False)
        scratch.begin_scope(self.params)
        scratch.begin_dataflow_block()
        out = scratch.normalize_expr(e)
        scratch.end_block()
        return out.struct_info

    def normalize(self, e: rx.Expr) -> rx.Expr:
        return self.n.normalize_expr(e)

    def emit(self, e: rx.Expr, name: str) -> rx.Var:
        return self.n.emit(e, name)

    def emit_output(self, e: rx.Expr, name: str) -> rx.Var:
        return self.n.emit_output(e, name)


def _to_msg(ctx: _Ctx, e: rx.Expr, si: Optional[StructInfo] = None):
    """(PASS.GRAD.2) A nested list of tensor expressions: a tuple literal by its fields, any other
    tuple-valued expression by ``TupleGetItem``s."""
    if isinstance(e, rx.Tuple):
        return [_to_msg(ctx, f) for f in e.fields]
    si = si if si is not None else ctx.struct_info(e)
    if isinstance(si, TupleStructInfo):
        return [_to_msg(ctx, rx.TupleGetItem(e, i), f) for i, f in enumerate(si.fields)]
    if not isinstance(si, TensorStructInfo):
        raise RelaxError(f"Gradient: an adjoint must be a tensor or a tuple of tensors, got {si}")
    return e


def _from_msg(msg) -> rx.Expr:
    """A tuple of the fields; ``(t[0], ..., t[n-1])`` of one expression ``t`` is ``t`` itself."""
    if isinstance(msg, list):
        fields = [_from_msg(m) for m in msg]
        if fields and all(isinstance(f, rx.TupleGetItem) and f.index == i and f.tuple_value is fields[0].tuple_value
                          for i, f in enumerate(fields)):
            return fields[0].tuple_value
        return rx.Tuple(tuple(fields))
    return msg


def _zeros(si: StructInfo) -> rx.Expr:
    if isinstance(si, TupleStructInfo):
        return rx.Tuple(tuple(_zeros(f) for f in si.fields))
    if not isinstance(si, TensorStructInfo) or not isinstance(si.shape, rx.ShapeExpr):
        raise RelaxError(f"Gradient: cannot build zeros for {si} (a tensor of known shape is needed)")
    return C("zeros", si.shape, si.dtype)


def _combine(ctx: _Ctx, a, b):
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            raise RelaxError("Gradient: adjoints of different structure")
        return [_combine(ctx, x, y) for x, y in zip(a, b)]
    return C("add", a, b)


# ---------------------------------------------------------------------------------------------------
# The backward bindings (PASS.GRAD.2-3)
# ---------------------------------------------------------------------------------------------------


class _Backward:
    def __init__(self, ctx: _Ctx, checkpoints: Optional["_Recompute"] = None) -> None:
        self.ctx = ctx
        self.adjoint: Dict[rx.Var, rx.Var] = {}
        self.checkpoints = checkpoints

    def emit_adjoint(self, var: rx.Var, value: rx.Expr, output: bool = False) -> rx.Var:
        if output:
            return self.ctx.emit_output(value, var.name_hint + "_adjoint_out")
        v = self.ctx.emit(value, var.name_hint + "_adjoint")
        self.adjoint[var] = v
        return v

    def update(self, expr: rx.Expr, partial: rx.Expr) -> None:
        """Add ``partial`` to the adjoint of every variable leaf of ``expr``."""
        msg = _to_msg(self.ctx, self.ctx.normalize(partial))
        self._decompose(expr, msg, partial)

    def _decompose(self, expr: rx.Expr, msg, partial) -> None:
        if isinstance(expr, rx.Tuple):
            if not isinstance(msg, list) or len(msg) != len(expr.fields):
                raise RelaxError("Gradient: an adjoint does not match its tuple")
            for f, m in zip(expr.fields, msg):
                self._decompose(f, m, partial)
            return
        if isinstance(expr, rx.Var):
            value = self.ctx.normalize(_from_msg(msg))
            old = self.adjoint.get(expr)
            if old is not None:
                value = _from_msg(_combine(self.ctx, _to_msg(self.ctx, old), _to_msg(self.ctx, value)))
            self.emit_adjoint(expr, value)
        elif isinstance(expr, rx.Constant):
            return
        else:
            raise RelaxError(f"Gradient: cannot propagate an adjoint to a {type(expr).__name__}")

    def binding(self, b: rx.Binding) -> None:
        if not isinstance(b, rx.VarBinding):
            raise RelaxError("Gradient: match_cast bindings are not supported", binding=b.var.name_hint)
        if b.var not in self.adjoint:
            return                               # not used on the way to the target
        v, g = b.value, self.adjoint[b.var]
        if isinstance(v, rx.Call):
            self._call(b.var, v, g)
        elif isinstance(v, rx.Tuple):
            self.update(v, g)
        elif isinstance(v, rx.TupleGetItem):
            self._tuple_get_item(v, g)
        elif isinstance(v, rx.Var):
            self.update(v, g)
        elif isinstance(v, rx.Constant):
            return
        else:
            raise RelaxError(f"Gradient: cannot differentiate a binding to a {type(v).__name__}",
                             binding=b.var.name_hint)

    def _call(self, var: rx.Var, call: rx.Call, g: rx.Var) -> None:
        if not isinstance(call.op, rx.Op):
            return
        name = call.op.name
        args = call.args                         # adjoints go to the forward variables
        if name in ("relax.call_tir", "relax.call_tir_with_grad"):
            raise RelaxError(f"Gradient: differentiating {name} is not supported", binding=var.name_hint)
        fn = GRADIENTS.get(name)
        if fn is None:
            raise RelaxError(f"Gradient: no gradient is defined for {name}", binding=var.name_hint)
        if self.checkpoints is not None:       # PASS.GRAD.6: the operands as the backward pass has them
            var, call = self.checkpoints.update(var, call)
        partials = fn(var, call, g, self.ctx)
        if len(partials) != len(call.args):
            raise RelaxError(f"Gradient: the gradient of {name} gives {len(partials)} partials for "
                             f"{len(call.args)} arguments")
        for arg, p in zip(args, partials):
            if p is NO_GRAD:
                continue
            self.update(arg, p)

    def _tuple_get_item(self, e: rx.TupleGetItem, g: rx.Var) -> None:
        t = e.tuple_value
        if not isinstance(t, rx.Var) or not isinstance(t.struct_info, TupleStructInfo):
            raise RelaxError("Gradient: TupleGetItem of something that is not a tuple variable")
        old = self.adjoint.get(t)
        if old is None:
            fields = list(_zeros(t.struct_info).fields)
            fields[e.index] = g
            self.emit_adjoint(t, rx.Tuple(tuple(fields)))
        else:
            n = len(t.struct_info.fields)
            fields = []
            for i in range(n):
                f = old.fields[i] if isinstance(old, rx.Tuple) else rx.TupleGetItem(old, i)
                if i == e.index:
                    f = _from_msg(_combine(self.ctx, _to_msg(self.ctx, f), _to_msg(self.ctx, g)))
                fields.append(f)
            self.emit_adjoint(t, rx.Tuple(tuple(fields)))

    def epilogue(self, require: Sequence[rx.Var], result: rx.Expr) -> rx.Expr:
        outs = []
        for v in require:
            if v not in self.adjoint:
                self.update(v, _zeros(v.struct_info))
            outs.append(self.emit_adjoint(v, self.adjoint[v], output=True))
        return rx.Tuple((result, rx.Tuple(tuple(outs))))


# ---------------------------------------------------------------------------------------------------
# Checkpoints (PASS.GRAD.6)
# ---------------------------------------------------------------------------------------------------

_START, _END = "relax.grad.start_checkpoint", "relax.grad.end_checkpoint"


def _vars_in(e: rx.Expr) -> List[rx.Var]:
    if isinstance(e, rx.Var):
        return [e]
    if isinstance(e, rx.Call):
        return [v for a in (e.op, *e.args) for v in _vars_in(a)]
    if isinstance(e, rx.Tuple):
        return [v for f in e.fields for v in _vars_in(f)]
    if isinstance(e, rx.TupleGetItem):
        return _vars_in(e.tuple_value)
    return []


def collect_checkpoints(params: Sequence[rx.Var], bindings: Sequence[rx.Binding]):
    """(PASS.GRAD.6) The forward bindings without the checkpoint markers (their variables replaced by
    the marked ones), and the variables the backward pass may read as computed: the parameters, the
    variables marked by ``start_checkpoint``, and every variable whose operands are all such variables
    or results of ``end_checkpoint``."""
    from ..ir.functor import ExprMutator

    kept = set(params)
    ends: set = set()
    remap: Dict[rx.Var, rx.Var] = {}

    class _Remap(ExprMutator):
        def visit_Var(self, v):
            return remap.get(v, v)

        visit_DataflowVar = visit_Var

    out: List[rx.Binding] = []
    for b in bindings:
        v = b.value
        marker = isinstance(b, rx.VarBinding) and isinstance(v, rx.Call) and isinstance(v.op, rx.Op) \
            and v.op.name in (_START, _END)
        if not marker:
            if all(x in kept or x in ends for x in _vars_in(v)):
                kept.add(b.var)
            nv = _Remap().visit_expr(v)
            out.append(b if nv is v else (rx.VarBinding(b.var, nv, span=b.span) if isinstance(b, rx.VarBinding)
                                          else rx.MatchCast(b.var, nv, b.struct_info, span=b.span)))
            continue
        arg = v.args[0]
        if not isinstance(arg, rx.Var):
            raise RelaxError(f"Gradient: the argument of {v.op.name} must be a variable", binding=b.var.name_hint)
        orig = remap.get(arg, arg)
        if not isinstance(b.var, rx.DataflowVar) and isinstance(arg, rx.DataflowVar):
            new = rx.Var(orig.name_hint, struct_info=orig.struct_info)     # the block's output
            out.append(rx.VarBinding(new, orig, span=b.span))
            remap[b.var] = new
        else:
            remap[b.var] = orig
        if v.op.name == _START:
            kept.add(orig)
        else:
            ends.add(b.var)
    return out, kept, remap


class _Recompute:
    """(PASS.GRAD.6) The forward values the backward pass reads: a kept variable as it is, any other
    recomputed from kept ones (``<name>_cp``), once."""

    def __init__(self, ctx: _Ctx, params: Sequence[rx.Var], bindings: Sequence[rx.Binding], kept: set) -> None:
        self.ctx = ctx
        self.map: Dict[rx.Var, rx.Var] = {p: p for p in params}
        self.values: Dict[rx.Var, rx.Expr] = {}
        for b in bindings:
            self.values[b.var] = b.value
            if b.var in kept:
                self.map[b.var] = b.var

    def update(self, var: rx.Var, call: rx.Call):
        args = tuple(self.expr(a) for a in call.args)
        if any(x is not y for x, y in zip(args, call.args)):
            call = rx.Call(call.op, args, call.attrs, call.sinfo_args, span=call.span, struct_info=call.struct_info)
        if var not in self.map:
            self.map[var] = self.ctx.emit(call, var.name_hint + "_cp")
        return self.map[var], call

    def expr(self, e: rx.Expr) -> rx.Expr:
        if isinstance(e, rx.Var):
            if e not in self.map:
                if e not in self.values:
                    return e
                self.map[e] = self.ctx.emit(self.expr(self.values[e]), e.name_hint + "_cp")
            return self.map[e]
        if isinstance(e, rx.Call):
            return rx.Call(self.expr(e.op), tuple(self.expr(a) for a in e.args), e.attrs, e.sinfo_args, span=e.span)
        if isinstance(e, rx.Tuple):
            return rx.Tuple(tuple(self.expr(f) for f in e.fields), span=e.span)
        if isinstance(e, rx.TupleGetItem):
            return rx.TupleGetItem(self.expr(e.tuple_value), e.index, span=e.span)
        return e


# ---------------------------------------------------------------------------------------------------
# The simplification of transposes (PASS.GRAD.4)
# ---------------------------------------------------------------------------------------------------


def _is_transpose(call: rx.Expr) -> bool:
    if not (isinstance(call, rx.Call) and isinstance(call.op, rx.Op) and call.op.name == "relax.permute_dims"):
        return False
    si = call.args[0].struct_info
    if not isinstance(si, TensorStructInfo) or si.ndim in (-1, 1):
        return False
    axes = call.attrs.get("axes")
    if axes is None:
        return si.ndim == 2
    axes = [int(a) for a in axes]
    n = si.ndim
    return axes[:n - 2] == list(range(n - 2)) and axes[n - 2:] == [n - 1, n - 2]


def _transpose_of(e: rx.Expr, known: Dict[rx.Var, rx.Expr]) -> rx.Expr:
    if isinstance(e, rx.Var) and _is_transpose(known.get(e)):
        return known[e].args[0]
    n = e.struct_info.ndim
    if n == 1:
        return e
    return C("permute_dims", e, axes=list(range(n - 2)) + [n - 1, n - 2])


def simplify_gradient(func: rx.Function, mod: IRModule) -> rx.Function:
    """(PASS.GRAD.4) ``permute_dims(permute_dims(a))`` is ``a`` and ``permute_dims(matmul(a, b))`` is
    ``matmul(permute_dims(b), permute_dims(a))`` (a transpose of a transposed operand being that
    operand), for transposes of the last two dimensions and operands of at least two dimensions."""
    from ..static.normalize import normalize_function
    from .dead_code_elimination import remove_all_unused
    from .utils import BindingMutator

    known: Dict[rx.Var, rx.Expr] = {}

    class _S(BindingMutator):
        def visit_binding(self, b):
            value = self.visit_expr(b.value)
            if isinstance(b, rx.VarBinding) and _is_transpose(value) and isinstance(value.args[0], rx.Var):
                prev = known.get(value.args[0])
                if _is_transpose(prev) and isinstance(prev.args[0], rx.Var):
                    self.var_remap[b.var] = prev.args[0]
                    return None
                if isinstance(prev, rx.Call) and isinstance(prev.op, rx.Op) and prev.op.name == "relax.matmul":
                    a, c = prev.args
                    if a.struct_info.ndim != 1 and c.struct_info.ndim != 1:
                        value = C("matmul", _transpose_of(c, known), _transpose_of(a, known),
                                  out_dtype=prev.attrs.get("out_dtype", "void"))
            out = self.rebind(b, value)
            if isinstance(out, rx.VarBinding):
                known[out.var] = out.value
            return out

    out = _S(mod).visit_expr(func)
    return remove_all_unused(normalize_function(out, mod, script_annotations=False))


# ---------------------------------------------------------------------------------------------------
# The pass (PASS.GRAD.1, 5)
# ---------------------------------------------------------------------------------------------------


def _float_leaves(si: StructInfo) -> bool:
    if isinstance(si, TupleStructInfo):
        return all(_float_leaves(f) for f in si.fields)
    return isinstance(si, TensorStructInfo) and _dt.is_float(si.dtype)


def _target(body: rx.SeqExpr, index: int) -> rx.Var:
    r = body.body
    if isinstance(r, rx.Var):
        if index != 0:
            raise RelaxError(f"Gradient: the function returns one value, target_index must be 0, not {index}")
        t = r
    elif isinstance(r, rx.Tuple):
        if not 0 <= index < len(r.fields):
            raise RelaxError(f"Gradient: target_index {index} is out of the {len(r.fields)} results")
        t = r.fields[index]
        if not isinstance(t, rx.Var):
            raise RelaxError("Gradient: the differentiated result must be a variable")
    else:
        raise RelaxError("Gradient: the function must return a variable or a tuple")
    si = t.struct_info
    if not (isinstance(si, TensorStructInfo) and si.ndim == 0 and _dt.is_float(si.dtype)):
        raise RelaxError(f"Gradient: the differentiated result must be a float scalar tensor, not {si}")
    return t


def _remap_vars(e: rx.Expr, remap: Dict[rx.Var, rx.Var]) -> rx.Expr:
    if isinstance(e, rx.Var):
        return remap.get(e, e)
    if isinstance(e, rx.Tuple):
        return rx.Tuple(tuple(_remap_vars(f, remap) for f in e.fields), span=e.span)
    return e


def gradient(mod: IRModule, func_name: str, require_grads=None, target_index: int = 0) -> IRModule:
    """(PASS.GRAD.1-6)"""
    f = mod.get(func_name)
    if not isinstance(f, rx.Function):
        raise RelaxError(f"Gradient: '{func_name}' is not a Relax function of the module", function=func_name)
    from ..analysis.free_vars import defined_symbolic_vars
    from ..ir import prim_expr as P

    copier = _Copier({v: P.PrimVar(v.name, v.dtype) for v in defined_symbolic_vars(f)})
    g = copier.expr(f)
    if require_grads is None:
        require = list(g.params)
        for r in f.params:
            if not _float_leaves(r.struct_info):
                raise RelaxError(f"Gradient: parameter {r.name_hint} (required by default) is not a float tensor "
                                 "or a tuple of them", function=func_name)
    else:
        if isinstance(require_grads, (rx.Var, str)):
            require_grads = [require_grads]
        require = []
        for r in require_grads:
            if isinstance(r, str):
                found = [p for p in f.params if p.name_hint == r]
                if len(found) != 1:
                    raise RelaxError(f"Gradient: '{func_name}' has no single parameter named '{r}'")
                r = found[0]
            mapped = copier.var_map.get(r)
            if not isinstance(mapped, rx.Var):
                raise RelaxError(f"Gradient: there is no variable {r.name_hint} in '{func_name}'")
            if mapped in require:
                raise RelaxError(f"Gradient: {r.name_hint} is required twice")
            if not _float_leaves(r.struct_info):
                raise RelaxError(f"Gradient: {r.name_hint} is not a float tensor or a tuple of them")
            require.append(mapped)
    body = g.body
    if not (isinstance(body, rx.SeqExpr) and len(body.blocks) == 1 and isinstance(body.blocks[0], rx.DataflowBlock)):
        raise RelaxError("Gradient: the function body must be one dataflow block", function=func_name)
    forward, kept, remap = collect_checkpoints(g.params, body.blocks[0].bindings)
    result_expr = _remap_vars(body.body, remap)
    target = _target(rx.SeqExpr(body.blocks, result_expr), target_index)
    ctx = _Ctx(mod, g.params)
    ctx.n.begin_dataflow_block()
    for i, b in enumerate(forward):
        if isinstance(b, rx.VarBinding) and b.value.struct_info is None:   # its operands were remapped
            b = forward[i] = rx.VarBinding(b.var, ctx.normalize(b.value), span=b.span)
        ctx.n.emit_normalized(b)
    back = _Backward(ctx, _Recompute(ctx, g.params, forward, kept))
    tsi = target.struct_info
    back.update(target, C("ones", tsi.shape, tsi.dtype))
    for b in reversed(forward):
        back.binding(b)
    result = back.epilogue(require, result_expr)
    block = ctx.n.end_block()
    new = rx.Function(g.params, rx.SeqExpr((block,), result), None, g.is_pure, attrs=g.attrs)
    from ..static.normalize import normalize_function
    from .dead_code_elimination import remove_all_unused

    new = remove_all_unused(normalize_function(new, mod, script_annotations=False))
    new = simplify_gradient(new, mod)
    name = f"{func_name}_adjoint"
    attrs = dict(new.attrs)
    attrs["global_symbol"] = name
    new = rx.Function(new.params, new.body, new.ret_struct_info, new.is_pure, attrs=attrs)
    if name in mod:
        raise RelaxError(f"Gradient: the module already has a function '{name}'", function=name)
    items = dict(mod.functions_items())
    items[rx.GlobalVar(name)] = new
    return renormalize(IRModule(items, mod.attrs, mod.global_infos))


class Gradient(Pass):
    """(PASS.GRAD.1-5) ``Gradient(func_name, require_grads=None, target_index=0)``."""

    name = "Gradient"
    opt_level = 0

    def __init__(self, func_name: str, require_grads: Union[None, rx.Var, str, Sequence[Union[rx.Var, str]]] = None,
                 target_index: int = 0) -> None:
        self.func_name = func_name
        self.require_grads = require_grads
        self.target_index = int(target_index)

    def transform(self, mod: IRModule) -> IRModule:
        return gradient(mod, self.func_name, self.require_grads, self.target_index)


__all__ = ["Gradient", "gradient", "simplify_gradient"]
