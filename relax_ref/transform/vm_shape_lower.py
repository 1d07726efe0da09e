"""VMShapeLower: function-boundary checks and symbolic shapes through a shape heap (PASS.SHAPELOWER.*).

What TVM's ``VMShapeLower`` (``src/relax/backend/vm/vm_shape_lower.cc``) does, as a pure
``IRModule -> IRModule`` pass whose output is still Relax: the checks of parameters, ``match_cast``
values and results, and the symbolic shapes, become calls of the ``vm.builtin`` shape-heap functions
(CALL.SHAPEHEAP.1-3) and host PrimFuncs, which the reference interpreter runs. The rules
(PASS.SHAPELOWER.1-6: slots, checks, matching, making, error contexts, the order of computed slots)
are in the spec's passes chapter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.attrs import Attrs
from ..ir.functor import prim_vars_in, substitute_prim
from ..ir.module import IRModule
from ..ir.struct_info import (
    FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo,
    TupleStructInfo,
)
from .pass_infra import Pass
from .utils import BindingMutator, fresh_name, renormalize

#: match codes of ``vm.builtin.match_shape`` (CALL.SHAPEHEAP.2)
MATCH_IMM, MATCH_STORE, MATCH_NOOP, MATCH_LOAD = 0, 1, 2, 3
#: codes of ``vm.builtin.make_shape``
MAKE_IMM, MAKE_LOAD = 0, 1

_VOID = TupleStructInfo(())


def _i64(v: int) -> rx.PrimValue:
    return rx.PrimValue(P.IntImm(v, "int64"))


def _builtin(name: str, *args: rx.Expr, sinfo: StructInfo = _VOID) -> rx.Call:
    return rx.Call(rx.ExternFunc(f"vm.builtin.{name}"), tuple(args), sinfo_args=(sinfo,))


def _sinfo_text(s: Optional[StructInfo]) -> str:
    from ..script.printer.struct_info import struct_info_to_str

    return struct_info_to_str(s) if s is not None else "None"


# ---------------------------------------------------------------------------------------------------
# Slots (PASS.SHAPELOWER.1)
# ---------------------------------------------------------------------------------------------------


@dataclass(eq=False)
class _Slot:
    expr: P.PrimExpr
    index: int
    users: List["_Slot"] = field(default_factory=list)
    outstanding: int = 0
    computed: bool = False


class _SlotCollector:
    """The symbolic PrimExprs of a function in TVM's visiting order (expressions, then their struct
    info; a match_cast contributes its target struct info; local functions are not entered)."""

    def __init__(self) -> None:
        self.slots: List[_Slot] = []
        self.by_expr: Dict[P.PrimExpr, _Slot] = {}

    def prim(self, e: Optional[P.PrimExpr]) -> None:
        if e is None or isinstance(e, P.IntImm) or e in self.by_expr:
            return
        slot = _Slot(e, len(self.slots))
        self.by_expr[e] = slot
        self.slots.append(slot)

    def sinfo(self, s: Optional[StructInfo]) -> None:
        if isinstance(s, TensorStructInfo):
            if s.shape is not None:
                self.expr(s.shape)
        elif isinstance(s, ShapeStructInfo):
            for v in s.values or ():
                self.prim(v)
        elif isinstance(s, PrimStructInfo):
            self.prim(s.value)
        elif isinstance(s, TupleStructInfo):
            for f in s.fields:
                self.sinfo(f)

    def expr(self, e: rx.Expr) -> None:
        if isinstance(e, rx.Function):
            return
        if isinstance(e, rx.Tuple):
            for f in e.fields:
                self.expr(f)
        elif isinstance(e, rx.Call):
            self.expr(e.op)
            for a in e.args:
                self.expr(a)
            for s in e.sinfo_args:
                self.sinfo(s)
        elif isinstance(e, rx.If):
            self.expr(e.cond)
            self.expr(e.true_branch)
            self.expr(e.false_branch)
        elif isinstance(e, rx.TupleGetItem):
            self.expr(e.tuple_value)
        elif isinstance(e, rx.ShapeExpr):
            for v in e.values:
                self.prim(v)
        elif isinstance(e, rx.PrimValue):
            self.prim(e.value)
        elif isinstance(e, rx.SeqExpr):
            for b in e.blocks:
                for binding in b.bindings:
                    if isinstance(binding, rx.MatchCast):
                        self.sinfo(binding.struct_info)
                    else:
                        self.expr(binding.value)
            self.expr(e.body)
        if not isinstance(e, (rx.GlobalVar, rx.Op, rx.ExternFunc)):
            self.sinfo(e.struct_info)

    @classmethod
    def collect(cls, func: rx.Function) -> "_SlotCollector":
        c = cls()
        for p in func.params:
            c.sinfo(p.struct_info)
        c.expr(func.body)
        c.sinfo(func.ret_struct_info)
        for slot in c.slots:
            if isinstance(slot.expr, P.PrimVar):
                continue
            deps = list(prim_vars_in(slot.expr))
            for v in deps:
                if v not in c.by_expr:
                    raise RelaxError(f"VMShapeLower: symbolic variable {v.name} is used in {slot.expr} but never "
                                     "defined by a shape of its own (PASS.SHAPELOWER.1)")
                c.by_expr[v].users.append(slot)
            slot.outstanding = len(deps)
        return c


# ---------------------------------------------------------------------------------------------------
# The rewriting of one function
# ---------------------------------------------------------------------------------------------------


@dataclass
class _Todo:
    value: rx.Expr
    pattern: Tuple[P.PrimExpr, ...]
    err: str


class _FunctionLowering:
    def __init__(self, owner: "_ModuleLowering", name: str, func: rx.Function) -> None:
        self.owner = owner
        self.name = name
        self.func = func
        c = _SlotCollector.collect(func)
        self.slots, self.by_expr = c.slots, c.by_expr
        self.ready: List[_Slot] = []
        self.remap: Dict[rx.Var, rx.Var] = {}
        self.bindings: List[rx.Binding] = []
        self.dataflow = False
        self.memo: Dict[int, Tuple[rx.Expr, rx.Var]] = {}
        n = len(self.slots)
        if n:
            heap_si = TensorStructInfo(None, "int64", 1)
            self.heap = rx.Var("shape_heap", struct_info=heap_si)
            self.heap_value: rx.Expr = rx.Call(rx.Op("relax.call_builtin_with_ctx"),
                                               (rx.ExternFunc("vm.builtin.alloc_shape_heap"), rx.Tuple((_i64(n),))),
                                               sinfo_args=(heap_si,))
        else:
            self.heap = rx.Var("shape_heap", struct_info=ObjectStructInfo())
            self.heap_value = rx.Call(rx.Op("relax.null_value"), ())

    # ---- emission ---------------------------------------------------------------------------------

    def err(self, text: str) -> rx.StringImm:
        return rx.StringImm(text if self.owner.emit_err_ctx else "")

    def emit(self, value: rx.Expr, hint: str = "_") -> rx.Var:
        cls = rx.DataflowVar if self.dataflow else rx.Var
        var = cls(name_hint=hint, struct_info=self.owner.infer(value))
        self.bindings.append(rx.VarBinding(var, value))
        return var

    def leaf(self, e: rx.Expr) -> rx.Expr:
        """``e`` as a call argument: a tuple item is bound (once per block)."""
        if not isinstance(e, rx.TupleGetItem):
            return e
        key = id(e)
        if key not in self.memo:    # the item is kept alive with its variable, so its id stays unique
            self.memo[key] = (e, self.emit(rx.TupleGetItem(self.leaf(e.tuple_value), e.index), "lv"))
        return self.memo[key][1]

    # ---- the function -----------------------------------------------------------------------------

    def run(self) -> rx.Function:
        f = self.func
        self.bindings = [rx.VarBinding(self.heap, self.heap_value)]
        num_input = f.attrs.get("num_input") if f.attrs else None
        n_in = int(num_input) if num_input is not None else len(f.params)
        todos: List[_Todo] = []
        for i, p in enumerate(f.params):
            err = (f"ErrorContext(fn={self.name}, loc=param[{i}], param={p.name_hint}, "
                   f"annotation={_sinfo_text(p.struct_info)}) ")
            self.check(p.struct_info, p, True, i >= n_in, err, todos)
        self.match_round(todos)
        blocks: List[rx.BindingBlock] = [rx.BindingBlock(tuple(self.bindings))]
        body_blocks, body = self.seq_parts(f.body)
        blocks += body_blocks
        self.bindings, self.dataflow, self.memo = [], False, {}
        todos = []
        err = f"ErrorContext(fn={self.name}, loc=return, annotation={_sinfo_text(f.ret_struct_info)}) "
        self.check(f.ret_struct_info, body, False, False, err, todos)
        self.run_match(todos, True)
        blocks.append(rx.BindingBlock(tuple(self.bindings)))
        return rx.Function(f.params, rx.SeqExpr(tuple(blocks), body), f.ret_struct_info, f.is_pure,
                           attrs=f.attrs, span=f.span)

    def seq_parts(self, seq: rx.SeqExpr) -> Tuple[List[rx.BindingBlock], rx.Expr]:
        """The rewritten blocks of ``seq`` and its body (a non-leaf body bound in a last block)."""
        saved = (self.bindings, self.dataflow, self.memo)
        blocks: List[rx.BindingBlock] = []
        for block in seq.blocks:
            self.bindings, self.dataflow, self.memo = [], isinstance(block, rx.DataflowBlock), {}
            for b in block.bindings:
                self.binding(b)
            blocks.append(type(block)(tuple(self.bindings), span=block.span))
        self.bindings, self.dataflow, self.memo = [], False, {}
        body = self.expr(seq.body)
        if not isinstance(body, (rx.Var, rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm, rx.DataTypeImm,
                                 rx.GlobalVar, rx.ExternFunc, rx.Op, rx.Tuple)):
            body = self.emit(body, "gv")
        if self.bindings:
            blocks.append(rx.BindingBlock(tuple(self.bindings)))
        self.bindings, self.dataflow, self.memo = saved
        return blocks, body

    def binding(self, b: rx.Binding) -> None:
        if isinstance(b, rx.MatchCast):
            value = self.expr(b.value)
            todos: List[_Todo] = []
            self.check(b.struct_info, value, False, False,
                       f"ErrorContext(match_cast, struct_info={_sinfo_text(b.struct_info)}) ", todos)
            self.match_round(todos)
            self.bindings.append(b if value is b.value else rx.MatchCast(b.var, value, b.struct_info, span=b.span))
            return
        value = self.expr(b.value, top=True)
        if value is b.value:
            self.bindings.append(b)
            return
        var = type(b.var)(name_hint=b.var.name_hint, span=b.var.span, struct_info=self.owner.infer(value))
        self.remap[b.var] = var
        self.bindings.append(rx.VarBinding(var, value, span=b.span))

    # ---- expressions (PASS.SHAPELOWER.4) ------------------------------------------------------------

    def expr(self, e: rx.Expr, top: bool = False) -> rx.Expr:
        if isinstance(e, rx.Var):
            return self.remap.get(e, e)
        if isinstance(e, rx.Function):
            raise RelaxError("VMShapeLower does not lower local functions: run LambdaLift first (PASS.SHAPELOWER.4)",
                             e.span)
        if isinstance(e, rx.ShapeExpr):
            if all(isinstance(v, P.IntImm) for v in e.values):
                return e
            args = [self.heap, _i64(len(e.values))]
            for v in e.values:
                args += self.make_args(v)
            return self.maybe_bind(_builtin("make_shape", *args, sinfo=ShapeStructInfo(ndim=len(e.values))), top)
        if isinstance(e, rx.PrimValue):
            if isinstance(e.value, (P.IntImm, P.FloatImm)):
                return e
            si = e.struct_info or PrimStructInfo(e.value.dtype, e.value)
            return self.maybe_bind(_builtin("make_prim_value", self.heap, *self.make_args(e.value), sinfo=si), top)
        if isinstance(e, rx.Call):
            op = self.expr(e.op)
            args = tuple(self.expr(a) for a in e.args)
            if op is e.op and all(x is y for x, y in zip(args, e.args)):
                return e
            return rx.Call(op, args, e.attrs, e.sinfo_args, span=e.span)
        if isinstance(e, rx.Tuple):
            fields = tuple(self.expr(f) for f in e.fields)
            return e if all(x is y for x, y in zip(fields, e.fields)) else rx.Tuple(fields, span=e.span)
        if isinstance(e, rx.TupleGetItem):
            t = self.expr(e.tuple_value)
            return e if t is e.tuple_value else rx.TupleGetItem(t, e.index, span=e.span)
        if isinstance(e, rx.If):
            cond = self.expr(e.cond)
            tb, fb = (rx.SeqExpr(*self.seq_parts(br)) for br in (e.true_branch, e.false_branch))
            return rx.If(cond, tb, fb, span=e.span)
        if isinstance(e, rx.SeqExpr):
            return rx.SeqExpr(*self.seq_parts(e))
        return e

    def maybe_bind(self, call: rx.Call, top: bool) -> rx.Expr:
        return call if top else self.emit(call, "lv")

    def slot(self, e: P.PrimExpr) -> _Slot:
        s = self.by_expr.get(e)
        if s is None:
            raise RelaxError(f"VMShapeLower: {e} has no slot in function {self.name} (PASS.SHAPELOWER.1)")
        return s

    def make_args(self, e: P.PrimExpr) -> List[rx.Expr]:
        if isinstance(e, P.IntImm):
            return [_i64(MAKE_IMM), _i64(e.value)]
        s = self.slot(e)
        if not s.computed:
            raise RelaxError(f"VMShapeLower: {e} in function {self.name} is used before it is known "
                             "(PASS.SHAPELOWER.4)")
        return [_i64(MAKE_LOAD), _i64(s.index)]

    # ---- checks (PASS.SHAPELOWER.2) ----------------------------------------------------------------

    def check(self, s: Optional[StructInfo], value: rx.Expr, always: bool, dynamic_only: bool, err: str,
              todos: List[_Todo]) -> None:
        from ..analysis.struct_info_ops import is_base_of

        if s is None:
            return
        vs = value.struct_info
        if not always and vs is not None and is_base_of(s, vs):
            return
        if isinstance(s, PrimStructInfo):
            if always or vs is None or not is_base_of(PrimStructInfo(s.dtype), vs):
                self.emit(_builtin("check_prim_value_info", self.leaf(value), rx.DataTypeImm(s.dtype), self.err(err)))
            if s.value is not None:
                todos.append(_Todo(value, (s.value,), err))
        elif isinstance(s, ShapeStructInfo):
            if always or vs is None or not is_base_of(ShapeStructInfo(ndim=s.ndim), vs):
                self.emit(_builtin("check_shape_info", self.leaf(value), _i64(s.ndim), self.err(err)))
            if s.values is not None:
                todos.append(_Todo(value, tuple(s.values), err))
        elif isinstance(s, TensorStructInfo):
            self.check_tensor(s, value, vs, always, dynamic_only, err, todos)
        elif isinstance(s, TupleStructInfo):
            if isinstance(vs, TupleStructInfo) and len(vs.fields) != len(s.fields):
                raise RelaxError(f"{err} during match-cast: a tuple of {len(vs.fields)} fields cannot match "
                                 f"{len(s.fields)}", value.span)
            if always or not isinstance(vs, TupleStructInfo):
                self.emit(_builtin("check_tuple_info", self.leaf(value), _i64(len(s.fields)), self.err(err)))
            for i, f in enumerate(s.fields):
                self.check(f, self.item(value, i), always, dynamic_only, err, todos)
        elif isinstance(s, FuncStructInfo):
            if not always and isinstance(vs, FuncStructInfo):
                return
            self.emit(_builtin("check_func_info", self.leaf(value), self.err(err)))

    def check_tensor(self, s: TensorStructInfo, value: rx.Expr, vs: Optional[StructInfo], always: bool,
                     dynamic_only: bool, err: str, todos: List[_Todo]) -> None:
        from ..analysis.struct_info_ops import is_base_of

        shape = s.shape
        if dynamic_only and isinstance(shape, rx.ShapeExpr) and all(isinstance(v, P.IntImm) for v in shape.values):
            return
        if always or vs is None or not is_base_of(TensorStructInfo(None, s.dtype, s.ndim), vs):
            self.emit(_builtin("check_tensor_info", self.leaf(value), _i64(s.ndim), rx.DataTypeImm(s.dtype),
                               self.err(err)))
        if isinstance(shape, rx.ShapeExpr):
            todos.append(_Todo(value, tuple(shape.values), err))
        elif isinstance(shape, rx.Var):
            raise RelaxError("VMShapeLower cannot match a tensor whose shape is a shape variable "
                             "(PASS.SHAPELOWER.2)", value.span)

    def item(self, value: rx.Expr, i: int) -> rx.Expr:
        if isinstance(value, rx.Tuple):
            return value.fields[i]
        vs = value.struct_info
        if isinstance(vs, TupleStructInfo):
            return rx.TupleGetItem(value, i, struct_info=vs.fields[i])
        return self.emit(_builtin("tuple_getitem", self.leaf(value), _i64(i), sinfo=ObjectStructInfo()), "lv")

    # ---- matching (PASS.SHAPELOWER.3) --------------------------------------------------------------

    def match_round(self, todos: List[_Todo]) -> None:
        rest = self.run_match(todos, False)
        self.compute_ready()
        self.run_match(rest, True)

    def match_arg(self, e: P.PrimExpr, require: bool) -> Tuple[int, int]:
        if isinstance(e, P.IntImm):
            return MATCH_IMM, e.value
        s = self.slot(e)
        if s.computed:
            return MATCH_LOAD, s.index
        if require:
            raise RelaxError(f"VMShapeLower: {e} in function {self.name} cannot be computed where it is "
                             "matched (PASS.SHAPELOWER.3)")
        if isinstance(e, P.PrimVar):
            s.computed = True
            self.ready.append(s)
            return MATCH_STORE, s.index
        return MATCH_NOOP, 0

    def run_match(self, todos: Sequence[_Todo], require: bool) -> List[_Todo]:
        rest: List[_Todo] = []
        for t in todos:
            prim = isinstance(t.value.struct_info, PrimStructInfo)
            args: List[rx.Expr] = [self.leaf(t.value), self.heap]
            if not prim:
                args.append(_i64(len(t.pattern)))
            codes = []
            for e in t.pattern:
                code, arg = self.match_arg(e, require)
                codes.append(code)
                args += [_i64(code), _i64(arg)]
            if MATCH_NOOP in codes:
                rest.append(t)
            args.append(self.err(t.err))
            if any(c != MATCH_NOOP for c in codes):
                self.emit(_builtin("match_prim_value" if prim else "match_shape", *args))
        return rest

    def compute_ready(self) -> None:
        todo: List[_Slot] = []
        for s in self.ready:
            for u in s.users:
                u.outstanding -= 1
                if u.outstanding == 0:
                    todo.append(u)
        self.ready = []
        if not todo:
            return
        todo.sort(key=lambda s: s.index)       # PASS.SHAPELOWER.6
        n = len(self.slots)
        heap = P.PrimVar("heap", "handle")
        buf = tir.Buffer("H", (P.IntImm(n, "int64"),), "int64", data=P.PrimVar("H", "handle"))
        stores = []
        for s in todo:
            s.computed = True
            vmap = {v: tir.BufferLoad(buf, (P.IntImm(self.by_expr[v].index, "int64"),), "int64")
                    for v in prim_vars_in(s.expr)}
            stores.append(tir.BufferStore(buf, substitute_prim(s.expr, vmap), (P.IntImm(s.index, "int64"),)))
        body = stores[0] if len(stores) == 1 else tir.SeqStmt(tuple(stores))
        func = tir.PrimFunc((heap,), body, ((heap, buf),), "void",
                            attrs=Attrs({"s_tir": True, "tir.is_host_func": True}))
        gv = self.owner.add_function(func)
        self.emit(rx.Call(gv, (self.heap,)))


class _ModuleLowering:
    def __init__(self, mod: IRModule, emit_err_ctx: bool) -> None:
        self.emit_err_ctx = emit_err_ctx
        self.names = set(mod)
        self.added: List[Tuple[rx.GlobalVar, tir.PrimFunc]] = []
        self.typer = BindingMutator(mod)

    def infer(self, value: rx.Expr) -> Optional[StructInfo]:
        """The struct info a new binding's variable takes from its value (TVM's re-emitted binding)."""
        if isinstance(value, rx.Call) and isinstance(value.op, rx.ExternFunc) and value.sinfo_args:
            return value.sinfo_args[0]
        if isinstance(value, rx.Call) and isinstance(value.op, rx.GlobalVar) and value.op.name_hint in self.names \
                and value.struct_info is None and any(value.op is gv for gv, _ in self.added):
            return _VOID
        return self.typer.value_struct_info(value)

    def add_function(self, func: tir.PrimFunc) -> rx.GlobalVar:
        """A new PrimFunc, or the one added before that is structurally equal (TVM's block builder)."""
        from ..analysis.structural_equal import structural_equal

        for gv, f in self.added:
            if structural_equal(f, func):
                return gv
        name = fresh_name(self.names, "shape_func")
        self.names.add(name)
        gv = rx.GlobalVar(name)
        self.added.append((gv, func))
        return gv


class VMShapeLower(Pass):
    """(PASS.SHAPELOWER.1-6)"""

    name = "VMShapeLower"
    opt_level = 0

    def __init__(self, emit_err_ctx: bool = True) -> None:
        self.emit_err_ctx = emit_err_ctx

    def transform(self, mod: IRModule) -> IRModule:
        m = _ModuleLowering(mod, self.emit_err_ctx)
        items = {}
        for gv, f in mod.functions_items():
            items[gv] = _FunctionLowering(m, gv.name_hint, f).run() if isinstance(f, rx.Function) else f
        for gv, f in m.added:
            items[gv] = f
        return renormalize(IRModule(items, mod.attrs, mod.global_infos))


__all__ = ["VMShapeLower", "MATCH_IMM", "MATCH_STORE", "MATCH_NOOP", "MATCH_LOAD", "MAKE_IMM", "MAKE_LOAD"]
