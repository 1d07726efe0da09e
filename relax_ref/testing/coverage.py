"""Coverage of generated programs: which operators and which program shapes a run has produced.

:func:`program_features(mod)` reads a generated module (not the generator's decisions, so that any
module can be measured) and returns the set of features it exercises:

* ``op:<name>`` -- every Relax operator called (``op:relax.add``), in any function;
* ``construct:<name>`` -- the program shapes of :data:`CONSTRUCTS`: dataflow and plain binding blocks,
  block outputs, ``call_tir`` per kernel kind, tuples and ``TupleGetItem``, a tuple result,
  ``match_cast`` to the same / a fresh symbolic variable / a weaker struct info, ``If`` on a flag / a
  computed condition / a constant, an unused ``match_cast`` (kept for its check), module helpers (called once or reused, taking a tuple), closures
  (with captures, spelled with the enclosing function's symbolic variables), dead code in the entry,
  constants, symbolic dims, rank 0 to 4 and the dtypes of values.

:class:`Coverage` counts how many programs reached each feature; ``check_pass`` uses the counts to
steer the generator towards what is still rare (:mod:`relax_ref.testing.schedule`) and reports
``covered / universe`` at the end.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Set

from ..ir import expr as rx
from ..ir.functor import ExprVisitor, struct_info_prim_vars
from ..ir.module import IRModule
from ..ir.struct_info import TensorStructInfo, TupleStructInfo

#: the program shapes the generator can produce (``construct:<name>`` features)
CONSTRUCTS = (
    "dataflow", "binding_block", "dataflow_output",
    "call_tir:elementwise", "call_tir:broadcast", "call_tir:reduction", "call_tir:two_stage",
    "tuple", "tuple_get_item", "tuple_result",
    "match_cast:same", "match_cast:fresh", "match_cast:weak", "match_cast:unused",
    "if:flag", "if:computed", "if:const",
    "helper", "helper_reused", "helper_tuple_param", "closure", "closure_capture", "closure_outer_symbolic",
    "constant", "dead_code", "symbolic:1", "symbolic:2",
    "rank:0", "rank:1", "rank:2", "rank:3", "rank:4",
    "dtype:float32", "dtype:float16", "dtype:float64", "dtype:int32", "dtype:int64", "dtype:bool",
)


class _Features(ExprVisitor):
    def __init__(self, mod: IRModule) -> None:
        self.mod = mod
        self.out: Set[str] = set()
        self.calls: Counter = Counter()
        self.defined: Set[int] = set()

    def add(self, name: str) -> None:
        self.out.add(name)

    def sinfo(self, s) -> None:
        if isinstance(s, TensorStructInfo):
            if s.ndim >= 0:
                self.add(f"construct:rank:{s.ndim}")
            if s.dtype and s.dtype != "void":
                self.add(f"construct:dtype:{s.dtype}")
        elif isinstance(s, TupleStructInfo):
            for f in s.fields:
                self.sinfo(f)

    def visit_Call(self, c: rx.Call) -> None:
        if isinstance(c.op, rx.Op):
            self.add(f"op:{c.op.name}")
            if c.op.name == "relax.call_tir" and isinstance(c.args[0], rx.GlobalVar):
                name = c.args[0].name_hint
                for kind in ("elementwise", "broadcast", "reduction", "two_stage"):
                    if name.startswith(f"tir_{kind}"):
                        self.add(f"construct:call_tir:{kind}")
        elif isinstance(c.op, rx.GlobalVar):
            self.calls[c.op.name_hint] += 1
        self.generic_visit_expr(c)

    def visit_Constant(self, c: rx.Constant) -> None:
        self.add("construct:constant")

    def visit_Tuple(self, t: rx.Tuple) -> None:
        if t.fields:
            self.add("construct:tuple")
        self.generic_visit_expr(t)

    def visit_TupleGetItem(self, t: rx.TupleGetItem) -> None:
        self.add("construct:tuple_get_item")
        self.generic_visit_expr(t)

    def visit_If(self, e: rx.If) -> None:
        if isinstance(e.cond, rx.PrimValue):
            self.add("construct:if:const")
        elif isinstance(e.cond, rx.Var) and any(e.cond is p for p in self._params):
            self.add("construct:if:flag")
        else:
            self.add("construct:if:computed")
        self.generic_visit_expr(e)

    def visit_Function(self, f: rx.Function) -> None:
        saved = self._params
        self._params = list(f.params)
        if self._depth > 0:
            self.add("construct:closure")
            if self._free_captures(f):
                self.add("construct:closure_capture")
            if any(id(v) in self.defined for p in f.params for v in struct_info_prim_vars(p.struct_info)):
                self.add("construct:closure_outer_symbolic")
        self._depth += 1
        self.generic_visit_expr(f)
        self._depth -= 1
        self._params = saved

    def _free_captures(self, f: rx.Function) -> bool:
        from ..analysis.free_vars import free_vars

        return bool(free_vars(f))

    def visit_block(self, b: rx.BindingBlock) -> None:
        if b.bindings:
            self.add("construct:dataflow" if isinstance(b, rx.DataflowBlock) else "construct:binding_block")
            if isinstance(b, rx.DataflowBlock) and any(not isinstance(x.var, rx.DataflowVar) for x in b.bindings):
                self.add("construct:dataflow_output")
        super().visit_block(b)

    def visit_binding(self, b: rx.Binding) -> None:
        if isinstance(b, rx.MatchCast):
            si = b.struct_info
            if isinstance(si, TensorStructInfo) and si.shape is None:
                self.add("construct:match_cast:weak")
            else:
                fresh = [v for v in struct_info_prim_vars(si) if id(v) not in self.defined]
                self.add("construct:match_cast:fresh" if fresh else "construct:match_cast:same")
        self.sinfo(b.var.struct_info)
        super().visit_binding(b)
        for v in struct_info_prim_vars(b.var.struct_info):
            self.defined.add(id(v))

    def run(self) -> Set[str]:
        self._params: List[rx.Var] = []
        self._depth = 0
        for gv, f in self.mod.relax_functions():
            self.defined = set()
            for p in f.params:
                self.sinfo(p.struct_info)
                for v in struct_info_prim_vars(p.struct_info):
                    self.defined.add(id(v))
            if any(isinstance(p.struct_info, TupleStructInfo) for p in f.params):
                self.add("construct:helper_tuple_param")
            if gv.name_hint == "main":
                nsym = len({id(v) for p in f.params for v in struct_info_prim_vars(p.struct_info)})
                if nsym:
                    self.add(f"construct:symbolic:{min(nsym, 2)}")
                if isinstance(f.body.body, rx.Tuple):
                    self.add("construct:tuple_result")
                if _has_dead_binding(f):
                    self.add("construct:dead_code")
                if _has_dead_binding(f, rx.MatchCast):
                    self.add("construct:match_cast:unused")
            self.visit_expr(f)
        for name, n in self.calls.items():
            if name != "main" and name in self.mod and isinstance(self.mod[name], rx.Function):
                self.add("construct:helper")
                if n > 1:
                    self.add("construct:helper_reused")
        return self.out


def _has_dead_binding(f: rx.Function, kind=rx.VarBinding) -> bool:
    """Some top-level binding of ``f`` (of class ``kind``) binds a value nothing reads."""
    from ..analysis.free_vars import free_vars

    used = {id(v) for blk in f.body.blocks for b in blk.bindings for v in free_vars(b.value)}
    used.update(id(v) for v in free_vars(f.body.body))
    return any(isinstance(b, kind) and id(b.var) not in used
               for blk in f.body.blocks for b in blk.bindings)


def program_features(mod: IRModule) -> Set[str]:
    """The features ``mod`` exercises (see the module docstring)."""
    return _Features(mod).run()


def universe(ops: Iterable[str]) -> List[str]:
    """Every feature a run over operators ``ops`` could reach."""
    return [f"op:{o}" for o in sorted(set(ops))] + [f"construct:{c}" for c in CONSTRUCTS]


@dataclass
class Coverage:
    """How many programs reached each feature, within a fixed universe."""

    universe: List[str]
    counts: Counter = field(default_factory=Counter)
    programs: int = 0

    def record(self, features: Iterable[str]) -> None:
        self.programs += 1
        self.counts.update(set(features))

    def count(self, feature: str) -> int:
        return self.counts.get(feature, 0)

    def missing(self, prefix: str = "") -> List[str]:
        return [f for f in self.universe if f.startswith(prefix) and not self.counts.get(f)]

    def covered(self, prefix: str = "") -> int:
        return sum(1 for f in self.universe if f.startswith(prefix) and self.counts.get(f))

    def total(self, prefix: str = "") -> int:
        return sum(1 for f in self.universe if f.startswith(prefix))

    def least(self, prefix: str) -> List[str]:
        """The features of ``prefix`` with the smallest count (ties in universe order)."""
        items = [f for f in self.universe if f.startswith(prefix)]
        if not items:
            return []
        low = min(self.count(f) for f in items)
        return [f for f in items if self.count(f) == low]

    def summary(self, missing: bool = True) -> str:
        ops = f"{self.covered('op:')}/{self.total('op:')} operators"
        cons = f"{self.covered('construct:')}/{self.total('construct:')} program shapes"
        text = f"coverage after {self.programs} programs: {ops}, {cons}"
        miss = self.missing()
        if miss and missing:
            shown = ", ".join(m.split(":", 1)[1] for m in miss[:12])
            text += f"; not reached: {shown}" + (f" (+{len(miss) - 12} more)" if len(miss) > 12 else "")
        return text

    def as_dict(self) -> Dict[str, object]:
        return {"programs": self.programs,
                "operators": [self.covered("op:"), self.total("op:")],
                "constructs": [self.covered("construct:"), self.total("construct:")],
                "missing": self.missing()}


__all__ = ["CONSTRUCTS", "program_features", "universe", "Coverage"]
