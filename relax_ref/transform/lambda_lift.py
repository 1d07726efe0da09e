"""LambdaLift: lift local functions to private global functions (PASS.LAMBDA.*).

Follows TVM 0.25 (``src/relax/transform/lambda_lift.cc``).

* **Names** (PASS.LAMBDA.1): a local function bound by ``f = R.function(...)`` at the path
  ``outer, v1, ..., vk`` (the global function and the binding variables of the enclosing local
  functions) is named, in order of preference, by its ``global_symbol`` attribute, then
  ``<outer>_<vk>``, then the whole path joined by ``_``, then ``<outer>_<vk>_<i>``; a candidate is
  used only when no existing global has that name and no other lambda proposes it in the same
  round (relax-ref also excludes names given in earlier rounds).
* **Lifting** (PASS.LAMBDA.2): the function's free variables other than its own binding variable
  (a recursive reference) are *captured*: they become extra trailing parameters. The lifted function
  keeps the attributes (so it is private unless it had a ``global_symbol``) and gets fresh
  variables. Without captures the binding disappears and every use of the variable becomes the
  global function (a direct call such as ``main_pure_fn(z)``); with captures the binding becomes
  ``f = R.make_closure(gv, (captures...))`` and each call ``f(args)`` becomes
  ``R.invoke_pure_closure(f, (args...), sinfo_args=(<call struct info>,))`` --
  ``R.invoke_closure`` when the value the closure variable is bound to is an impure call. A
  recursive call inside a capturing function calls the lifted function directly with the captures
  appended.
* Functions nested deeper are lifted first (inside out); a function literal that is not bound to a
  variable is left in place (TVM would fail on it).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from ..analysis.free_vars import free_vars
from ..errors import RelaxError
from ..ir import expr as rx
from ..ir.module import IRModule
from ..ir.struct_info import FuncStructInfo, ObjectStructInfo
from .pass_infra import Pass
from .utils import BindingMutator, _Copier, copy_function, renormalize


# ---------------------------------------------------------------------------------------------------
# Names (PASS.LAMBDA.1)
# ---------------------------------------------------------------------------------------------------


def _lambda_locations(mod: IRModule) -> Tuple[Dict[int, List[str]], Dict[int, str], list]:
    """``id(func) -> path`` for every bound local function, and the global symbols of those that
    have one."""
    locations: Dict[int, List[str]] = {}
    symbols: Dict[int, str] = {}
    keep: list = []
    public: Dict[str, List[str]] = {}
    existing = set(mod)

    def visit(e, stack: List[str]) -> None:
        if isinstance(e, rx.SeqExpr):
            for b in e.blocks:
                for x in b.bindings:
                    if isinstance(x, rx.VarBinding) and isinstance(x.value, rx.Function):
                        f = x.value
                        sym = f.attrs.get("global_symbol")
                        if sym is not None:
                            if sym in existing:
                                raise RelaxError(
                                    f"LambdaLift: function {stack[0]} contains a lambda with global_symbol "
                                    f"'{sym}', but the module already has a function of that name",
                                    x.span, function=stack[0])
                            if sym in public:
                                raise RelaxError(
                                    f"LambdaLift: lambdas in {public[sym][0]} and {stack[0]} share the "
                                    f"global_symbol '{sym}'", x.span, function=stack[0])
                            public[sym] = list(stack)
                            symbols[id(f)] = sym
                        path = stack + [x.var.name_hint]
                        locations[id(f)] = path
                        keep.append(f)
                        visit(f.body, path)
                    else:
                        visit(x.value, stack)
            visit(e.body, stack)
        elif isinstance(e, rx.If):
            visit(e.true_branch, stack)
            visit(e.false_branch, stack)
        elif isinstance(e, rx.Function):
            visit(e.body, stack)

    for gv, f in mod.relax_functions():
        visit(f.body, [gv.name_hint])
    return locations, symbols, keep


def lifted_names(mod: IRModule) -> Dict[int, str]:
    """(PASS.LAMBDA.1) ``id(local function) -> global name``."""
    locations, symbols, _keep = _lambda_locations(mod)
    remaining = dict(locations)
    names: Dict[int, str] = {}
    unavailable = set(mod)

    def attempt(propose) -> None:
        new: Dict[str, Optional[int]] = {}
        for fid, loc in remaining.items():
            name = propose(fid, loc)
            if name is None or name in unavailable:
                continue
            if name in new:
                new[name] = None
            else:
                new[name] = fid
        for name, fid in new.items():
            if fid is not None:
                names[fid] = name
                unavailable.add(name)
                del remaining[fid]

    attempt(lambda fid, loc: symbols.get(fid))
    attempt(lambda fid, loc: f"{loc[0]}_{loc[-1]}")
    attempt(lambda fid, loc: None if len(loc) == 2 else "_".join(loc))
    counts: Dict[str, int] = {}

    def numbered(fid, loc):
        base = f"{loc[0]}_{loc[-1]}"
        k = counts.get(base, 0)
        counts[base] = k + 1
        return f"{base}_{k}"

    while remaining:  # terminates: the counters only grow
        attempt(numbered)
    return names


# ---------------------------------------------------------------------------------------------------
# Lifting (PASS.LAMBDA.2)
# ---------------------------------------------------------------------------------------------------


class _Lifter(BindingMutator):
    def __init__(self, mod: IRModule, names: Dict[int, str], lifted: list,
                 closures: Set[str]) -> None:
        super().__init__(mod)
        self.mod = mod
        self.names = names
        self.lifted = lifted
        self.closures = closures
        self.current: Optional[rx.Var] = None
        self.rebind_map: Dict[rx.Var, rx.GlobalVar] = {}
        self.nested_closure: Dict[rx.Var, Tuple[rx.GlobalVar, List[rx.Var]]] = {}
        self.bound: Dict[rx.Var, rx.Expr] = {}

    # -- closures ---------------------------------------------------------------------------------
    def lookup(self, v: rx.Var) -> Optional[rx.Expr]:
        return self.bound.get(self.var_remap.get(v, v), self.bound.get(v))

    def is_closure(self, val) -> bool:
        seen = 0
        while isinstance(val, rx.Var) and seen < 1000:
            b = self.lookup(val)
            if b is None:
                return False
            val = b
            seen += 1
        if isinstance(val, rx.Call):
            op = val.op
            if isinstance(op, rx.Var):
                return self.is_closure(op)
            if isinstance(op, rx.GlobalVar):
                return self.is_closure(op)
            return isinstance(op, rx.Op) and op.name == "relax.make_closure"
        if isinstance(val, rx.GlobalVar):
            if val.name_hint in self.closures:
                return True
            f = self._function(val.name_hint)
            return isinstance(f, rx.Function) and self.is_closure(f.body)
        if isinstance(val, rx.Function):
            return self.is_closure(val.body)
        if isinstance(val, rx.SeqExpr):
            return self._seq_is_closure(val)
        return False

    def _seq_is_closure(self, seq: rx.SeqExpr) -> bool:
        """A SeqExpr returning a variable bound inside it: look through its own bindings."""
        local: Dict[rx.Var, rx.Expr] = {}
        for b in seq.blocks:
            for x in b.bindings:
                if isinstance(x, rx.VarBinding):
                    local[x.var] = x.value
        saved = dict(self.bound)
        self.bound.update(local)
        try:
            return self.is_closure(seq.body)
        finally:
            self.bound = saved

    def _function(self, name: str):
        for n, f, _ in self.lifted:
            if n == name:
                return f
        return self.mod[name] if name in self.mod else None

    # -- traversal --------------------------------------------------------------------------------
    def visit_binding(self, b: rx.Binding):
        if isinstance(b, rx.VarBinding) and isinstance(b.value, rx.Function) and id(b.value) in self.names:
            saved = self.current
            self.current = b.var
            value = self.visit_expr(b.value)
            self.current = saved
            if b.var in self.rebind_map:
                return None
            nb = self.rebind(b, value)
            self.bound[nb.var] = value
            self.bound[b.var] = value
            return nb
        nb = super().visit_binding(b)
        if isinstance(nb, rx.VarBinding):
            self.bound[nb.var] = nb.value
            self.bound[b.var] = nb.value
        return nb

    def visit_Var(self, v: rx.Var) -> rx.Expr:
        g = self.rebind_map.get(v)
        if g is not None:
            return g
        return self.var_remap.get(v, v)

    def visit_Call(self, call: rx.Call) -> rx.Expr:
        if isinstance(call.op, rx.Var) and self.is_closure(call.op):
            orig = self.lookup(call.op)
            if isinstance(orig, rx.Call):
                if isinstance(orig.op, rx.Op):
                    from ..ops import registry

                    pure = registry.get(orig.op.name).purity
                else:
                    s = orig.op.struct_info
                    if s is None and isinstance(orig.op, rx.GlobalVar):
                        # a function lifted by this pass: its signature (TVM gives its GlobalVar one)
                        s = next((FuncStructInfo(tuple(p.struct_info for p in f.params), f.ret_struct_info,
                                                 f.is_pure)
                                  for _, f, g in self.lifted if g is orig.op), None)
                    if not isinstance(s, FuncStructInfo):
                        raise RelaxError(f"LambdaLift: cannot determine the purity of the call producing "
                                         f"{call.op.name_hint}", call.span)
                    pure = s.purity
                op = rx.Op("relax.invoke_pure_closure" if pure else "relax.invoke_closure")
                call = rx.Call(op, (call.op, rx.Tuple(call.args)), sinfo_args=(call.struct_info,), span=call.span)
        if isinstance(call.op, rx.Var) and call.op in self.nested_closure:
            gv, captured = self.nested_closure[call.op]
            call = rx.Call(gv, tuple(call.args) + tuple(captured), call.attrs, call.sinfo_args, span=call.span)
        return self.generic_mutate_expr(call)

    def visit_Function(self, f: rx.Function) -> rx.Expr:
        if self.current is None or id(f) not in self.names:
            saved = self.current
            self.current = None
            out = self.generic_mutate_expr(f)
            self.current = saved
            return out
        cur = self.current
        name = self.names[id(f)]
        captured: List[rx.Var] = []
        recursive = False
        for v in free_vars(f):
            if v is cur:
                recursive = True
            else:
                captured.append(v)
        is_closure = bool(captured)
        gv = rx.GlobalVar(name)
        if recursive and is_closure:
            self.nested_closure[cur] = (gv, list(captured))
        if not is_closure:
            self.rebind_map[cur] = gv
        self.current = None
        body = self.visit_expr(f.body)
        self.current = cur
        # captured variables become typed trailing parameters (uses may refer to rebuilt copies)
        typed = [rx.Var(name_hint=v.name_hint, struct_info=v.struct_info, span=v.span) for v in captured]
        subst: Dict[rx.Var, rx.Expr] = {}
        for v, t in zip(captured, typed):
            subst[v] = t
            r = self.var_remap.get(v)
            if isinstance(r, rx.Var):
                subst[r] = t
        body = _Copier({}, subst).expr(body)
        # TVM gives the lifted function its body's struct info as return: a closure it returns is an
        # R.Object (made by make_closure), otherwise the declaration holds (NORM.FUNC.1)
        ret = f.ret_struct_info
        if not recursive and _returns_closure(body):
            ret = ObjectStructInfo()
        lifted = rx.Function(tuple(f.params) + tuple(typed), body, ret, f.is_pure, attrs=f.attrs, span=f.span)
        lifted = copy_function(lifted)
        if is_closure or self.is_closure(lifted.body):
            self.closures.add(name)
        self.lifted.append((name, lifted, gv))
        if is_closure:
            return rx.Call(rx.Op("relax.make_closure"),
                           (gv, rx.Tuple(tuple(self.var_remap.get(v, v) for v in captured))), span=f.span)
        return gv


def _returns_closure(body: rx.Expr) -> bool:
    """Whether a function body returns a variable bound to ``make_closure``."""
    if not isinstance(body, rx.SeqExpr) or not isinstance(body.body, rx.Var):
        return False
    for blk in body.blocks:
        for b in blk.bindings:
            if b.var is body.body:
                v = b.value
                return isinstance(v, rx.Call) and isinstance(v.op, rx.Op) and v.op.name == "relax.make_closure"
    return False


def lambda_lift(mod: IRModule) -> IRModule:
    """(PASS.LAMBDA.1-2)"""
    names = lifted_names(mod)
    if not names:
        return mod
    lifted: List[Tuple[str, rx.Function, rx.GlobalVar]] = []
    closures: Set[str] = set()
    items = {}
    for gv, f in mod.functions_items():
        if isinstance(f, rx.Function):
            items[gv] = _Lifter(mod, names, lifted, closures).visit_expr(f)
        else:
            items[gv] = f
    for name, f, gv in lifted:
        items[gv] = f
    return renormalize(IRModule(items, mod.attrs, mod.global_infos))


class LambdaLift(Pass):
    """(PASS.LAMBDA.*)"""

    name = "LambdaLift"
    opt_level = 1

    def transform(self, mod: IRModule) -> IRModule:
        return lambda_lift(mod)


__all__ = ["LambdaLift", "lambda_lift", "lifted_names"]
