"""LiftTransformParams and BundleModelParams: separate the preprocessing of model weights
(PASS.LIFT.*, PASS.BUNDLE.*).

Follows TVM 0.25 (``src/relax/transform/lift_transform_params.cc``, ``bundle_model_params.cc``). A
function with the attribute ``num_input: k`` takes ``k`` runtime inputs followed by model weights.
``LiftTransformParams`` moves the dataflow bindings that depend only on weights into a function
``<name>_transform_params`` (or one shared ``transform_params``) that takes the weights as one tuple
and returns what the runtime function still needs; the runtime function takes those results instead
of the weights. The rules are in the spec, PASS.LIFT.1-6.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Set, Union

from ..analysis.free_vars import free_symbolic_vars, free_vars
from ..analysis.struct_info_ops import definable_sym_vars, sym_vars_in_struct_info
from ..errors import RelaxError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from ..ir.struct_info import ShapeStructInfo, TupleStructInfo
from .pass_infra import Pass, PassContext, register_config_option
from .utils import DropBindings, copy_function, renormalize

NUM_INPUT = "num_input"
CONSUME_PARAMS = "relax.lift_transform_params.consume_params"
register_config_option(CONSUME_PARAMS, bool)


# ---------------------------------------------------------------------------------------------------
# BundleModelParams
# ---------------------------------------------------------------------------------------------------


class _Bundler(ExprMutator):
    def __init__(self, name: Optional[str]) -> None:
        super().__init__()
        self.name = name or "model_params"
        self.items: Dict[rx.Var, rx.Expr] = {}

    def visit_Function(self, f: rx.Function) -> rx.Expr:
        k = f.attrs.get(NUM_INPUT)
        if k is None:
            return f
        k = int(k)
        if not 0 <= k <= len(f.params):
            raise RelaxError(f"BundleModelParams: num_input {k} does not fit {len(f.params)} parameters")
        tup = rx.Var(name_hint=self.name,
                     struct_info=TupleStructInfo(tuple(p.struct_info for p in f.params[k:])))
        for i, p in enumerate(f.params[k:]):
            self.items[p] = rx.TupleGetItem(tup, i)
        body = _BundleUses(self.items).visit_expr(f.body)
        return rx.Function(tuple(f.params[:k]) + (tup,), body, f.ret_struct_info, f.is_pure, attrs=f.attrs,
                           span=f.span)


class _BundleUses(ExprMutator):
    """Every use of a bundled parameter becomes a new binding ``p = params[i]`` right before the
    binding that uses it (TVM's mutator emits one per use)."""

    def __init__(self, items: Dict[rx.Var, rx.Expr]) -> None:
        super().__init__()
        self.items = items
        self.pending: List[rx.Binding] = []
        self.in_dataflow = False

    def visit_Var(self, v: rx.Var) -> rx.Expr:
        item = self.items.get(v)
        if item is None:
            return super().visit_Var(v)
        nv = (rx.DataflowVar if self.in_dataflow else rx.Var)(name_hint=v.name_hint)
        self.pending.append(rx.VarBinding(nv, item))
        return nv

    def visit_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        saved = self.in_dataflow
        self.in_dataflow = isinstance(b, rx.DataflowBlock)
        out: List[rx.Binding] = []
        for x in b.bindings:
            nb = self.visit_binding(x)
            out.extend(self.pending)
            self.pending = []
            out.append(nb)
        self.in_dataflow = saved
        return type(b)(tuple(out), span=b.span)

    def visit_SeqExpr(self, s: rx.SeqExpr) -> rx.Expr:
        blocks = [self.visit_block(b) for b in s.blocks]
        body = self.visit_expr(s.body)
        if self.pending:
            blocks.append(rx.BindingBlock(tuple(self.pending)))
            self.pending = []
        return rx.SeqExpr(tuple(blocks), body, span=s.span)


def bundle_model_params(func: rx.Function, name: Optional[str] = None) -> rx.Function:
    """(PASS.BUNDLE.1) ``func`` with its weights (the parameters after ``num_input``) in one tuple."""
    return _Bundler(name).visit_expr(func)


class BundleModelParams(Pass):
    """(PASS.BUNDLE.1) ``BundleModelParams(param_tuple_name=None)``."""

    name = "BundleModelParams"
    opt_level = 1

    def __init__(self, param_tuple_name: Optional[str] = None) -> None:
        self.param_tuple_name = param_tuple_name

    def transform(self, mod: IRModule) -> IRModule:
        items, changed = {}, False
        for gv, f in mod.functions_items():
            nf = bundle_model_params(f, self.param_tuple_name) if isinstance(f, rx.Function) else f
            changed |= nf is not f
            items[gv] = nf
        return renormalize(IRModule(items, mod.attrs, mod.global_infos)) if changed else mod


# ---------------------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------------------


def _cleanup(func: rx.Function, mod: Optional[IRModule]) -> rx.Function:
    from ..static.normalize import normalize_function
    from .canonicalize_bindings import canonicalize_bindings

    func = normalize_function(func, mod, script_annotations=False)
    return normalize_function(canonicalize_bindings(func), mod, script_annotations=False)


def compose_functions(a: rx.Function, b: rx.Function, mod: Optional[IRModule] = None) -> rx.Function:
    """(PASS.LIFT.6) ``b`` applied to the result of ``a`` (its fields, unless ``b`` takes one tuple)."""
    from .dead_code_elimination import remove_all_unused

    out_a = rx.Var(name_hint="func_a_output", struct_info=a.ret_struct_info)
    bindings: List[rx.Binding] = [rx.VarBinding(out_a, a.body)]
    if isinstance(a.ret_struct_info, TupleStructInfo):
        outs = [rx.TupleGetItem(out_a, i) for i in range(len(a.ret_struct_info.fields))]
    else:
        outs = [out_a]
    if len(b.params) == 1 and isinstance(b.params[0].struct_info, TupleStructInfo):
        bindings.append(rx.MatchCast(b.params[0], out_a, b.params[0].struct_info))
    else:
        if len(outs) != len(b.params):
            raise RelaxError(f"cannot compose functions: the first produces {len(outs)} values, the second "
                             f"takes {len(b.params)} parameters")
        for p, o in zip(b.params, outs):
            bindings.append(rx.MatchCast(p, o, p.struct_info))
    body = rx.SeqExpr((rx.BindingBlock(tuple(bindings)),), b.body)
    f = rx.Function(a.params, body, b.ret_struct_info, a.is_pure and b.is_pure, attrs=a.attrs)
    return remove_all_unused(_cleanup(copy_function(f), mod))


class _Info:
    """What the collectors find for one function (or, shared, for all of them)."""

    def __init__(self) -> None:
        self.computable: List[rx.Binding] = []
        self.requires_param: Set = set()     # Relax and symbolic variables (identity)
        self.required: Set = set()

    def outputs(self, params: Sequence[rx.Var]) -> List[rx.Var]:
        """(PASS.LIFT.3) The weights still needed at run time, then the lifted values needed."""
        out = [p for p in params if p in self.required]
        out += [b.var for b in self.computable if b.var in self.requires_param and b.var in self.required]
        return out


def _is_stop_lift(value: rx.Expr) -> bool:
    return isinstance(value, rx.Call) and isinstance(value.op, rx.Op) and \
        value.op.name == "relax.builtin.stop_lift_params"


class _Liftable:
    """(PASS.LIFT.2) Which bindings may be lifted."""

    def __init__(self) -> None:
        self.liftable: Set = set()

    def can_lift(self, b: rx.Binding, in_dataflow: bool) -> bool:
        v = b.value
        if not in_dataflow or _is_stop_lift(v) or isinstance(v, rx.ExternFunc):
            return False
        if any(x not in self.liftable for x in free_vars(v)):
            return False
        return all(x in self.liftable for x in sym_vars_in_struct_info(b.var.struct_info)) \
            if b.var.struct_info is not None else True


def _walk_bindings(e: rx.Expr, fn) -> None:
    """Calls ``fn(binding, in_dataflow)`` for the bindings of the function's body in order (as TVM's
    collectors, not those nested in bound values)."""
    if isinstance(e, rx.Function):
        _walk_bindings(e.body, fn)
    elif isinstance(e, rx.SeqExpr):
        for blk in e.blocks:
            for b in blk.bindings:
                fn(b, isinstance(blk, rx.DataflowBlock))
        _walk_bindings(e.body, fn)
    elif isinstance(e, rx.If):
        _walk_bindings(e.true_branch, fn)
        _walk_bindings(e.false_branch, fn)


def _seq_results(e: rx.Expr, out: Set) -> None:
    """Variables used as the result of a SeqExpr (needed at run time, PASS.LIFT.5)."""
    if isinstance(e, rx.Function):
        _seq_results(e.body, out)
    elif isinstance(e, rx.SeqExpr):
        out.update(free_vars(e.body))
        for blk in e.blocks:
            for b in blk.bindings:
                _seq_results(b.value, out)
    elif isinstance(e, rx.If):
        _seq_results(e.true_branch, out)
        _seq_results(e.false_branch, out)


# ---------------------------------------------------------------------------------------------------
# Planning (PASS.LIFT.1-3)
# ---------------------------------------------------------------------------------------------------


class _Local(_Info):
    """(PASS.LIFT.2) The plan for one function (TVM's ``LocalCollectInfo``)."""

    def __init__(self, func: rx.Function, shared: Optional["_Shared"] = None) -> None:
        super().__init__()
        self.func = func
        self.shared = shared
        k = func.attrs.get(NUM_INPUT)
        self.num_runtime = len(func.params) if k is None else int(k)
        lift = _Liftable()
        for p in self.weights:
            lift.liftable.add(p)
            self.requires_param.add(p)
            lift.liftable.update(definable_sym_vars(p.struct_info))

        def visit(b: rx.Binding, in_dataflow: bool) -> None:
            if lift.can_lift(b, in_dataflow) and (shared is None or b.var in shared.var_remap):
                self.computable.append(b)
                lift.liftable.add(b.var)
                if any(v in self.requires_param for v in free_vars(b.value)):
                    self.requires_param.add(b.var)
            else:
                self.required.add(b.var)
                self.required.update(free_vars(b.value))
                self.required.update(free_symbolic_vars(b.value))

        _walk_bindings(func, visit)
        results: Set = set()
        _seq_results(func, results)          # PASS.LIFT.5
        self.required.update(results)
        if shared is not None:
            for src, dst in ((self.requires_param, shared.requires_param), (self.required, shared.required)):
                for v in src:
                    dst.add(shared.var_remap.get(v, shared.sym_remap.get(v, v)))

    @property
    def weights(self) -> List[rx.Var]:
        return list(self.func.params[self.num_runtime:])

    @property
    def runtime_inputs(self) -> List[rx.Var]:
        return list(self.func.params[:self.num_runtime])

    def propagated_sym_vars(self) -> List[P.PrimVar]:
        """(PASS.LIFT.3) Symbolic variables the weights define that run time needs and can get from
        neither the runtime inputs nor the lifted outputs."""
        from_runtime = _definable(self.runtime_inputs)
        from_outputs = _definable(self.outputs(self.weights))
        return [v for v in _definable(self.func.params)
                if v in self.required and v not in from_runtime and v not in from_outputs]


def _definable(vs: Sequence[rx.Var]) -> List[P.PrimVar]:
    out: List[P.PrimVar] = []
    for v in vs:
        for s in definable_sym_vars(v.struct_info) if v.struct_info is not None else ():
            if s not in out:
                out.append(s)
    return out


class _Shared(_Info):
    """(PASS.LIFT.4) The plan shared by several functions (TVM's ``GlobalCollectInfo``)."""

    def __init__(self, funcs: List[rx.Function]) -> None:
        super().__init__()
        from ..analysis.structural_equal import structural_equal, structural_hash
        from .bind import bind

        self.funcs = funcs
        self.var_remap: Dict[rx.Var, rx.Expr] = {}
        self.sym_remap: Dict[P.PrimVar, P.PrimExpr] = {}
        self._map_params()
        self.params = list(funcs[0].params[int(funcs[0].attrs[NUM_INPUT]):])
        lift = _Liftable()
        remap = dict(self.var_remap)
        unified: List[rx.Binding] = []
        originals: Dict[int, List[tuple]] = {}

        def visit(b: rx.Binding, in_dataflow: bool) -> None:
            if isinstance(b, rx.MatchCast):
                raise RelaxError("LiftTransformParams: match_cast is not supported when the transform is shared")
            if not lift.can_lift(b, in_dataflow):
                return
            lift.liftable.add(b.var)
            value = bind(b.value, remap, self.sym_remap)
            h = structural_hash(value)
            entry = next((e for e in originals.get(h, ()) if structural_equal(e[0], value)), None)
            if entry is None:
                entry = (value, [])
                originals.setdefault(h, []).append(entry)
                unified.append(b)
                self._originals_of[id(b)] = entry[1]
            entry[1].append(b)
            remap[b.var] = entry[1][0].var

        self._originals_of: Dict[int, list] = {}
        for f in funcs:
            lift.liftable.update(f.params[int(f.attrs[NUM_INPUT]):])
            _walk_bindings(f, visit)
        for b in unified:
            orig = self._originals_of[id(b)]
            if len(orig) == len(funcs):
                self.computable.append(b)
                for o in orig:
                    self.var_remap[o.var] = b.var

    def _map_params(self) -> None:
        from ..analysis.structural_equal import structural_equal

        f0 = self.funcs[0]
        k0 = int(f0.attrs[NUM_INPUT])
        n = len(f0.params) - k0
        for f in self.funcs:
            k = int(f.attrs[NUM_INPUT])
            if len(f.params) - k != n:
                raise RelaxError("LiftTransformParams: the functions sharing a transform must have the same "
                                 "number of weights")
            for j in range(n):
                a, b = f.params[k + j], f0.params[k0 + j]
                prev = self.var_remap.get(a)
                if prev is not None and prev is not b:
                    raise RelaxError("LiftTransformParams: inconsistent weights across functions")
                self.var_remap[a] = b
                if not structural_equal(a.struct_info, b.struct_info, map_free_vars=True):
                    raise RelaxError(f"LiftTransformParams: weight '{a.name_hint}' has struct info "
                                     f"{a.struct_info} in one function and {b.struct_info} in another; a shared "
                                     f"transform needs the same")
                sa, sb = definable_sym_vars(a.struct_info), definable_sym_vars(b.struct_info)
                for x, y in zip(sa, sb):
                    if x in self.sym_remap and self.sym_remap[x] is not y:
                        raise RelaxError("LiftTransformParams: inconsistent symbolic variables across functions")
                    self.sym_remap[x] = y

    def propagated_sym_vars(self) -> List[P.PrimVar]:
        from_outputs = _definable(self.outputs(self.params))
        return [v for v in _definable(self.params) if v in self.required and v not in from_outputs]


# ---------------------------------------------------------------------------------------------------
# The new functions (PASS.LIFT.3-5)
# ---------------------------------------------------------------------------------------------------


def _compile_time_function(params: Sequence[rx.Var], bindings: Sequence[rx.Binding], syms: Sequence[P.PrimVar],
                           outputs: Sequence[rx.Var], mod: IRModule) -> rx.Function:
    """(PASS.LIFT.3) ``params -> (shape of syms?, outputs...)``, the weights bundled in one tuple."""
    from .dead_code_elimination import remove_all_unused

    out_bindings: List[rx.Binding] = []
    exprs: List[rx.Expr] = []
    if syms:
        exprs.append(rx.ShapeExpr(tuple(syms)))
    for v in outputs:
        ov = rx.DataflowVar(name_hint=v.name_hint + "_output", struct_info=v.struct_info)
        out_bindings.append(rx.VarBinding(ov, v))
        exprs.append(ov)
    tup = rx.Var(name_hint="output_tuple")
    out_bindings.append(rx.VarBinding(tup, rx.Tuple(tuple(exprs))))
    body = rx.SeqExpr((rx.DataflowBlock(tuple(bindings)), rx.DataflowBlock(tuple(out_bindings))), tup)
    f = rx.Function(tuple(params), body, None, True, attrs={NUM_INPUT: 0})
    f = copy_function(f)
    from ..static.normalize import normalize_function

    f = normalize_function(f, mod, script_annotations=False)
    f = bundle_model_params(f)
    return remove_all_unused(_cleanup(f, mod))


class _Suppress(DropBindings):
    def visit_Call(self, c: rx.Call) -> rx.Expr:
        if _is_stop_lift(c):
            return self.visit_expr(c.args[0])
        return self.generic_mutate_expr(c)


def _runtime_function(local: _Local, mod: IRModule) -> rx.Function:
    """(PASS.LIFT.4) The runtime inputs, the propagated symbolic variables as one shape, then the lifted
    outputs, which replace the bindings that computed them."""
    params = local.runtime_inputs
    syms = local.propagated_sym_vars()
    outputs = local.outputs(local.weights)
    shared = local.shared
    if shared is not None:
        back_sym = {shared.sym_remap[v]: v for v in syms if v in shared.sym_remap}
        syms = [back_sym.get(v, v) for v in shared.propagated_sym_vars()]
        back = {shared.var_remap[v]: v for v in outputs if v in shared.var_remap}
        outputs = [back.get(v, v) for v in shared.outputs(shared.params)]
    if syms:
        params = params + [rx.Var(name_hint="vars_from_compile_time_params", struct_info=ShapeStructInfo(tuple(syms)))]
    bindings = []
    for v in outputs:
        pv = rx.Var(name_hint=v.name_hint, struct_info=v.struct_info)
        bindings.append(rx.VarBinding(v, pv))
        params.append(pv)
    drop = {b.var for b in local.computable if b.var in local.requires_param}
    body = _Suppress(drop).visit_expr(local.func.body)
    body = rx.SeqExpr((rx.DataflowBlock(tuple(bindings)),), body)
    f = local.func
    g = rx.Function(tuple(params), body, f.ret_struct_info, f.is_pure, attrs=f.attrs, span=f.span)
    return _cleanup(copy_function(g), mod)


def _targets(mod: IRModule, shared_transform) -> List[str]:
    if isinstance(shared_transform, (list, tuple)) and shared_transform:
        out = []
        for name in shared_transform:
            f = mod.get(name)
            if f is None:
                raise RelaxError(f"LiftTransformParams: the module has no function '{name}'", function=name)
            if not isinstance(f, rx.Function) or f.attrs.get(NUM_INPUT) is None:
                raise RelaxError(f"LiftTransformParams: '{name}' must be a Relax function with 'num_input'",
                                 function=name)
            out.append(name)
        return out
    return sorted(gv.name_hint for gv, f in mod.functions_items()
                  if isinstance(f, rx.Function) and f.attrs.get(NUM_INPUT) is not None
                  and not gv.name_hint.endswith("transform_params"))


def partition_transform_params(mod: IRModule, shared_transform: Union[bool, Sequence[str]] = False) -> IRModule:
    """(PASS.LIFT.1-4, 6) The runtime functions and the transform functions (before PASS.LIFT.5)."""
    if not isinstance(shared_transform, (bool, list, tuple)):
        raise RelaxError("LiftTransformParams: shared_transform is a bool or a list of function names")
    names = _targets(mod, shared_transform)
    share = shared_transform is not False and names
    shared = _Shared([mod[n] for n in names]) if share else None
    locals_ = {n: _Local(mod[n], shared) for n in names}
    replace: Dict[str, rx.Function] = {n: _runtime_function(info, mod) for n, info in locals_.items()}
    lifted: Dict[str, rx.Function] = {}
    if shared is not None:
        lifted["transform_params"] = _compile_time_function(
            shared.params, shared.computable, shared.propagated_sym_vars(), shared.outputs(shared.params), mod)
    else:
        for n, info in locals_.items():
            lifted[f"{n}_transform_params"] = _compile_time_function(
                info.weights, info.computable, info.propagated_sym_vars(), info.outputs(info.weights), mod)
    items = {}
    for gv, f in mod.functions_items():
        if gv.name_hint in lifted:
            lifted[gv.name_hint] = compose_functions(f, lifted[gv.name_hint], mod)
            continue
        items[gv] = replace.get(gv.name_hint, f)
    for name, f in lifted.items():
        items[rx.GlobalVar(name)] = f
    return renormalize(IRModule(items, mod.attrs, mod.global_infos))


class _Consume(ExprMutator):
    """(PASS.LIFT.5) Each weight read from the bundled tuple is released from it right after the read."""

    def __init__(self, params: rx.Var) -> None:
        super().__init__()
        self.params = params
        self.seen: Dict[int, rx.Var] = {}

    def visit_binding(self, b):
        v = b.value
        if isinstance(b, rx.VarBinding) and isinstance(v, rx.TupleGetItem) and v.tuple_value is self.params:
            if v.index in self.seen:
                return rx.VarBinding(b.var, self.seen[v.index], span=b.span)
            self.seen[v.index] = b.var
            reset = rx.Call(rx.Op("relax.call_pure_packed"), (
                rx.ExternFunc("vm.builtin.tuple_reset_item"), self.params, rx.PrimValue(P.IntImm(v.index, "int32"))),
                sinfo_args=(TupleStructInfo(()),))
            cls = rx.DataflowVar if isinstance(b.var, rx.DataflowVar) else rx.Var
            return [b, rx.VarBinding(cls(name_hint="_"), reset)]
        return super().visit_binding(b)


def _post_process(mod: IRModule, consume: bool) -> IRModule:
    items, changed = {}, False
    for gv, f in mod.functions_items():
        if isinstance(f, rx.Function) and gv.name_hint.endswith("transform_params"):
            attrs = dict(f.attrs)
            attrs["global_symbol"] = gv.name_hint
            body = f.body
            if consume:
                k = int(f.attrs.get(NUM_INPUT, -1))
                if k < 0 or len(f.params) != k + 1 or not isinstance(f.params[-1].struct_info, TupleStructInfo):
                    raise RelaxError(f"LiftTransformParams: '{gv.name_hint}' does not take its weights as one tuple")
                body = _Consume(f.params[-1]).visit_expr(body)
            f = rx.Function(f.params, body, f.ret_struct_info, f.is_pure, attrs=attrs, span=f.span)
            changed = True
        items[gv] = f
    return renormalize(IRModule(items, mod.attrs, mod.global_infos)) if changed else mod


class LiftTransformParams(Pass):
    """(PASS.LIFT.1-6) ``LiftTransformParams(shared_transform=False)``."""

    name = "LiftTransformParams"
    opt_level = 1

    def __init__(self, shared_transform: Union[bool, Sequence[str]] = False) -> None:
        self.shared_transform = list(shared_transform) if isinstance(shared_transform, (list, tuple)) \
            else shared_transform

    def transform(self, mod: IRModule) -> IRModule:
        from .lambda_lift import LambdaLift

        mod = partition_transform_params(mod, self.shared_transform)
        mod = LambdaLift()(mod)
        consume = bool(PassContext.current().get_config(CONSUME_PARAMS, False))
        return _post_process(mod, consume)


__all__ = ["LiftTransformParams", "BundleModelParams", "bundle_model_params", "compose_functions",
           "partition_transform_params", "CONSUME_PARAMS"]
