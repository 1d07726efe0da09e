"""Memory lowering that stays in Relax: LowerAllocTensor and KillAfterLastUse (PASS.ALLOC.*, PASS.KILL.*).

* ``LowerAllocTensor`` (TVM's ``lower_alloc_tensor.cc``) turns every
  ``R.builtin.alloc_tensor(shape, dtype, dev, scope)`` into a storage of its own,
  ``storage = R.memory.alloc_storage(R.shape([bytes]), dev, scope, "uint8")``, and
  ``R.memory.alloc_tensor(storage, 0, shape, dtype, dev)`` (PASS.ALLOC.1).
* ``KillAfterLastUse`` (TVM's ``kill_after_last_use.cc``) frees every tensor, storage and other VM
  object right after its last use (PASS.KILL.1-3).
"""

from __future__ import annotations

from typing import Dict, List, Optional

from ..errors import RelaxError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.functor import ExprMutator, ExprVisitor
from ..ir.module import IRModule
from ..ir.struct_info import FuncStructInfo, PrimStructInfo, ShapeStructInfo, TensorStructInfo
from .pass_infra import FunctionPass
from .utils import DropBindings, fresh_name, is_op

# ---------------------------------------------------------------------------------------------------
# LowerAllocTensor
# ---------------------------------------------------------------------------------------------------


def _shape_values(arg: rx.Expr) -> List[P.PrimExpr]:
    if isinstance(arg, rx.ShapeExpr):
        return list(arg.values)
    s = arg.struct_info
    if isinstance(s, ShapeStructInfo) and s.values is not None:
        return list(s.values)
    raise RelaxError("LowerAllocTensor: the shape of builtin.alloc_tensor must be a shape literal or a "
                     "variable holding one (PASS.ALLOC.1)", arg.span)


def alloc_bytes(dtype: str, dims: List[P.PrimExpr]) -> P.PrimExpr:
    """The byte size ``bytes(dtype) * d0 * d1 * ...`` built with TIR's constant folding."""
    from ..ops import te_ops

    nbytes: P.PrimExpr = P.IntImm((_dt.bits(dtype) * _dt_lanes(dtype) + 7) // 8, "int64")
    for d in dims:
        nbytes = te_ops.mul(nbytes, d)
    return nbytes


def _dt_lanes(dtype: str) -> int:
    return int(dtype.split("x", 1)[1]) if "x" in dtype and dtype.split("x", 1)[1].isdigit() else 1


class _LowerAlloc(ExprMutator):
    def __init__(self, names) -> None:
        super().__init__()
        self.names = names

    def visit_binding(self, b: rx.Binding):
        v = b.value
        if not (isinstance(b, rx.VarBinding) and is_op(v, "relax.builtin.alloc_tensor")):
            return super().visit_binding(b)
        if len(v.args) != 4 or not isinstance(v.args[1], rx.DataTypeImm):
            raise RelaxError("LowerAllocTensor: builtin.alloc_tensor takes (shape, dtype, device index, "
                             "storage scope)", v.span)
        shape, dtype, dev, scope = v.args
        size = rx.ShapeExpr((alloc_bytes(dtype.value, _shape_values(shape)),))
        name = fresh_name(self.names, "storage")
        self.names.add(name)
        sv = type(b.var)(name_hint=name) if isinstance(b.var, rx.DataflowVar) else rx.Var(name_hint=name)
        storage = rx.Call(rx.Op("relax.memory.alloc_storage"), (size, dev, scope, rx.DataTypeImm("uint8")),
                          span=v.span)
        tensor = rx.Call(rx.Op("relax.memory.alloc_tensor"), (sv, rx.PrimValue(P.IntImm(0, "int64")), shape,
                                                               dtype, dev), span=v.span)
        return [rx.VarBinding(sv, storage, span=b.span), rx.VarBinding(b.var, tensor, span=b.span)]


class LowerAllocTensor(FunctionPass):
    """(PASS.ALLOC.1)"""

    name = "LowerAllocTensor"
    opt_level = 0

    def transform_function(self, func: rx.Function, mod: IRModule, name: str) -> rx.Function:
        from ..analysis.free_vars import all_vars

        return _LowerAlloc({v.name_hint for v in all_vars(func)}).visit_expr(func)


# ---------------------------------------------------------------------------------------------------
# KillAfterLastUse
# ---------------------------------------------------------------------------------------------------

_ALLOC_STORAGE = ("relax.memory.alloc_storage", "relax.vm.alloc_storage")
_KILLS = ("relax.memory.kill_tensor", "relax.memory.kill_storage", "relax.vm.kill_object")


def _trivial_unused(func: rx.Function) -> set:
    """(PASS.KILL.1) Variables bound to another variable (or cast to their value's own struct info)
    that nothing uses."""
    from ..analysis.structural_equal import structural_equal

    used, trivial = set(), set()

    class _C(ExprVisitor):
        def visit_Var(self, v):
            used.add(v)

        visit_DataflowVar = visit_Var

        def visit_binding(self, b):
            if isinstance(b.value, rx.Var):
                if isinstance(b, rx.VarBinding) or structural_equal(b.var.struct_info, b.value.struct_info):
                    trivial.add(b.var)
            super().visit_binding(b)

    _C().visit_expr(func)
    return trivial - used


class _LastUsage(ExprVisitor):
    """(PASS.KILL.2) For every variable bound inside an expression, the binding of its last use."""

    def __init__(self) -> None:
        self.current: Optional[rx.Var] = None
        self.order: List[rx.Var] = []
        self.last: Dict[rx.Var, Optional[rx.Var]] = {}
        self.storage: set = set()
        self.constants: set = set()
        self.killed: set = set()

    def visit_binding(self, b: rx.Binding) -> None:
        saved = self.current
        self.current = b.var
        self.order.append(b.var)
        v = b.value
        if isinstance(b, rx.VarBinding) and is_op(v, *_ALLOC_STORAGE):
            self.storage.add(b.var)
        elif isinstance(b, rx.VarBinding) and is_op(v, *_KILLS):
            if len(v.args) != 1 or not isinstance(v.args[0], rx.Var):
                raise RelaxError(f"{v.op.name} takes one variable", v.span)
            self.killed.add(v.args[0])
        elif isinstance(b, rx.VarBinding) and isinstance(v, rx.Constant):
            self.constants.add(b.var)
        else:
            super().visit_binding(b)
        self.current = saved

    def visit_Var(self, v: rx.Var) -> None:
        self.last[v] = self.current

    visit_DataflowVar = visit_Var

    def result(self) -> Dict[rx.Var, Dict[str, List[rx.Var]]]:
        out: Dict[rx.Var, Dict[str, List[rx.Var]]] = {}
        for var in self.order:
            if var not in self.last:
                continue
            point = self.last[var]
            if point is None or var in self.killed:      # an output, or freed already
                continue
            si = var.struct_info
            in_register = not (var in self.constants or isinstance(si, (FuncStructInfo, ShapeStructInfo,
                                                                          PrimStructInfo)))
            kinds = out.setdefault(point, {"tensor": [], "storage": [], "object": []})
            if var in self.storage:
                kinds["storage"].append(var)
            elif isinstance(si, TensorStructInfo) and in_register:
                kinds["tensor"].append(var)
            elif in_register:
                kinds["object"].append(var)
        return out


def _collect(e: rx.Expr):
    c = _LastUsage()
    c.visit_expr(e)
    return c.result()


def last_uses(e: rx.Expr) -> Dict[rx.Var, Optional[rx.Var]]:
    """(PASS.KILL.2) For every variable used in ``e`` (parameters included), the variable of the binding
    of its last use in program order; ``None`` when that use is a ``SeqExpr``'s result (the variable
    outlives the bindings). Bindings of nested ``SeqExpr``s and functions count as their own bindings."""
    c = _LastUsage()
    c.visit_expr(e)
    return dict(c.last)


class _KillInserter(ExprMutator):
    """(PASS.KILL.3) As TVM's: the last-use table is recomputed at every function and every
    ``SeqExpr`` and cleared when that ``SeqExpr`` ends."""

    _OPS = (("tensor", "relax.memory.kill_tensor"), ("storage", "relax.memory.kill_storage"),
            ("object", "relax.vm.kill_object"))

    def __init__(self) -> None:
        super().__init__()
        self.table: Dict[rx.Var, Dict[str, List[rx.Var]]] = {}

    def visit_Function(self, f: rx.Function) -> rx.Expr:
        self.table = _collect(f)
        out = self.generic_mutate_expr(f)
        self.table = {}
        return out

    def visit_SeqExpr(self, s: rx.SeqExpr) -> rx.Expr:
        self.table = _collect(s)
        out = self.generic_mutate_expr(s)
        self.table = {}
        return out

    def visit_binding(self, b: rx.Binding):
        new = super().visit_binding(b)
        kinds = self.table.get(b.var)
        if not kinds:
            return new
        out = [new]
        for kind, op in self._OPS:
            for v in kinds[kind]:
                var_cls = rx.DataflowVar if isinstance(b.var, rx.DataflowVar) else rx.Var
                out.append(rx.VarBinding(var_cls(name_hint="_"), rx.Call(rx.Op(op), (self.var_remap.get(v, v),))))
        return out


def kill_after_last_use(func: rx.Function, mod: Optional[IRModule] = None) -> rx.Function:
    """(PASS.KILL.1-3) on one function (re-normalized)."""
    from ..static.normalize import normalize_function
    from .canonicalize_bindings import canonicalize_bindings

    func = normalize_function(canonicalize_bindings(func), mod, script_annotations=False)
    drop = _trivial_unused(func)
    if drop:
        func = DropBindings(drop).visit_expr(func)
    return _KillInserter().visit_expr(func)


class KillAfterLastUse(FunctionPass):
    """(PASS.KILL.1-3)"""

    name = "KillAfterLastUse"
    opt_level = 0

    def transform_function(self, func: rx.Function, mod: IRModule, name: str) -> rx.Function:
        return kill_after_last_use(func, mod)


__all__ = ["LowerAllocTensor", "KillAfterLastUse", "kill_after_last_use", "alloc_bytes", "last_uses"]
