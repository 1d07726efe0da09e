"""The program generator: random well-formed IRModules with known input domains.

:func:`generate(src, config) -> Program` builds a module whose entry function ``main`` takes tensor
parameters with static and symbolic dims (and sometimes a ``R.Prim("bool")`` flag). Its body is a
sequence of dataflow blocks and binding blocks made of the constructs below, each drawn from the
choice source ``src`` (:mod:`relax_ref.testing.source`), smallest choice = simplest program:

* operator calls from the rule table (:mod:`relax_ref.testing.rules`);
* ``R.call_tir`` of random kernels (:mod:`relax_ref.testing.tir_gen`);
* tuples and ``TupleGetItem`` (including tuple-valued operators such as ``split``);
* ``R.match_cast`` -- to the same struct info, to a shape with a fresh symbolic variable (later shapes
  may use it), or to a weaker struct info (unknown shape or rank);
* ``If`` on a bool flag, on a comparison computed from an exact tensor, or on a constant;
* calls of module-level helper functions (generated on demand with parameters that generalize the
  arguments' dims, reused when a later call fits; never recursive) and of local closures, which may
  capture statically shaped tensors of the enclosing function.

Every emission goes through the normalizer (:class:`~relax_ref.static.normalize.Normalizer`), so
struct info is inferred as it would be for parsed text; the finished module is normalized again and
checked for well-formedness -- a generator bug is reported as such, never passed on as a test
input. The generator keeps its own record of every tensor's true dims and value range
(:mod:`relax_ref.testing.domain`), which is what :mod:`relax_ref.testing.inputs` uses to build
concrete arguments.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..static.normalize import Normalizer, normalize_function, normalize_module
from ..analysis.signatures import prim_func_struct_info
from ..analysis.struct_info_ops import struct_info_lca
from ..static.well_formed import check_well_formed
from ..errors import RelaxError, StructInfoError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.attrs import Attrs
from ..ir.functor import prim_vars_in
from ..ir.module import IRModule
from ..ir.struct_info import PrimStructInfo, TensorStructInfo, TupleStructInfo
from . import tir_gen
from .domain import MAX_SYM, Dim, Range, TVal, const, is_float
from .rules import OpRule, Out, Result, active_rules, call, kind_of
from .source import Source

#: value ranges of float / integer parameters and constants (the domains of log, acosh, asin ...)
FLOAT_RANGES = (Range(-2.0, 2.0), Range(0.5, 2.0), Range(-1.0, 1.0), Range(-0.75, 0.75), Range(1.25, 2.0))
INT_RANGES = (Range(-8, 8), Range(0, 8), Range(1, 8), Range(-8, -1))

#: the constructs a generated program may use (``GenConfig.features``)
FEATURES = ("dataflow", "call_tir", "tuple", "match_cast", "if", "helper", "closure", "constant", "symbolic",
            "return_all")


#: what one generation step may emit, and how often by default (``GenConfig.construct_weights``)
STEP_KINDS = ("op", "call_tir", "tuple", "match_cast", "helper", "if", "closure")
DEFAULT_STEP_WEIGHTS = (("op", 12), ("call_tir", 3), ("tuple", 1), ("match_cast", 2), ("helper", 1), ("if", 1),
                        ("closure", 1))


@dataclass(frozen=True)
class GenConfig:
    """Knobs of the generator. ``ops`` restricts the operator rules (None: every active rule);
    ``features`` the constructs (see :data:`FEATURES`); ``dtypes`` the parameter dtypes with
    weights; ``op_pattern`` sets the ``op_pattern`` attribute on generated kernels (what TVM's
    ``AnnotateTIROpPattern`` would compute); ``construct_weights`` changes how often each construct of
    :data:`STEP_KINDS` is drawn (e.g. ``(("if", 6),)``); ``op_weights`` multiplies the weight of the
    named operators' rules (e.g. ``(("relax.floor_mod", 12),)``)."""

    max_bindings: int = 10
    max_params: int = 3
    max_rank: int = 4
    dtypes: Tuple[Tuple[str, int], ...] = (("float32", 8), ("int32", 2), ("bool", 1), ("float16", 1))
    ops: Optional[Tuple[str, ...]] = None
    features: frozenset = frozenset(FEATURES)
    op_pattern: bool = False
    max_depth: int = 2
    construct_weights: Optional[Tuple[Tuple[str, int], ...]] = None
    op_weights: Optional[Tuple[Tuple[str, int], ...]] = None

    def has(self, feature: str) -> bool:
        return feature in self.features

    def step_weights(self) -> List[int]:
        """Weights of the constructs of :data:`STEP_KINDS` (``construct_weights`` overrides some)."""
        w = dict(DEFAULT_STEP_WEIGHTS)
        if self.construct_weights:
            w.update(dict(self.construct_weights))
        return [w[k] for k in STEP_KINDS]


@dataclass(frozen=True)
class ParamSpec:
    """What the generator knows about one parameter of the entry function."""

    name: str
    kind: str  # "tensor" | "bool"
    dims: Tuple[Dim, ...] = ()
    dtype: str = "bool"
    range: Range = Range(0, 1)


@dataclass(frozen=True)
class Program:
    """A generated module with what is needed to build inputs for its entry function."""

    mod: IRModule
    entry: str
    params: Tuple[ParamSpec, ...]
    sym_vars: Tuple[P.PrimVar, ...]
    choices: Tuple[int, ...] = ()
    spans: Tuple[Tuple[int, int, Tuple[int, ...]], ...] = ()  # generation steps (see Source.record_span)

    def sym_env(self, size: int) -> Dict[P.PrimVar, int]:
        """Values of the entry's symbolic variables at ``size``: ``size, size + 1, ...`` capped at
        ``MAX_SYM``."""
        return {v: max(0, min(size + i, MAX_SYM)) for i, v in enumerate(self.sym_vars)}

    def script(self) -> str:
        return self.mod.script()

    @classmethod
    def from_module(cls, mod: IRModule, entry: str = "main") -> "Program":
        """Wrap a module not made by the generator (inputs then come from struct info alone)."""
        return cls(mod, entry, (), ())

    def __repr__(self) -> str:
        n = sum(len(b.bindings) for _, f in self.mod.relax_functions() for b in f.body.blocks)
        return f"Program({len(self.mod)} functions, {n} top-level bindings; .script() prints it)"


class GenerationError(RelaxError):
    """The generator produced a module that is not well formed (a generator bug)."""

    kind = "generation"


# ---------------------------------------------------------------------------------------------------
# Module-level state
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Helper:
    """A generated module-level function: its parameters (dims in its own variables) and result."""

    gv: rx.GlobalVar
    params: Tuple[TVal, ...]
    ret: Out
    vars: Tuple[P.PrimVar, ...]
    tuple_param: bool = False  # the parameters arrive as the fields of one tuple parameter

    def call(self, args: Sequence[TVal]) -> rx.Call:
        exprs = tuple(a.expr for a in args)
        return rx.Call(self.gv, (rx.Tuple(exprs),) if self.tuple_param else exprs)


class ModuleGen:
    def __init__(self, src: Source, cfg: GenConfig) -> None:
        self.src = src
        self.cfg = cfg
        self.funcs: Dict[str, object] = {}
        self.gvars: Dict[str, rx.GlobalVar] = {}
        self.helpers: List[Helper] = []
        self.rules: List[OpRule] = active_rules(cfg.ops)
        boost = dict(cfg.op_weights or ())
        self.weights: Dict[int, int] = {id(r): r.weight * boost.get(r.op, 1) for r in self.rules}
        self._names: Dict[str, int] = {}

    def fresh(self, prefix: str) -> str:
        k = self._names.get(prefix, 0)
        self._names[prefix] = k + 1
        return f"{prefix}{k}" if k or prefix[-1].isdigit() else prefix

    def module(self) -> IRModule:
        return IRModule({self.gvars[n]: f for n, f in self.funcs.items()})

    def add(self, name: str, func, sinfo) -> rx.GlobalVar:
        gv = rx.GlobalVar(name, struct_info=sinfo)
        self.funcs[name] = func
        self.gvars[name] = gv
        return gv


# ---------------------------------------------------------------------------------------------------
# One function
# ---------------------------------------------------------------------------------------------------


class FunctionGen:
    """Builds one Relax function binding by binding (the ``g`` of the rule table)."""

    def __init__(self, mg: ModuleGen, params: Sequence[TVal], depth: int, budget: int,
                 captures: Sequence[TVal] = (), flag: Optional[rx.Var] = None, tuple_param: bool = False) -> None:
        self.mg = mg
        self.src = mg.src
        self.cfg = mg.cfg
        self.depth = depth
        self.budget = budget
        self.fields: List[TVal] = []
        if tuple_param:
            # one parameter ``t: R.Tuple(...)``; its fields are bound at the top of the body
            self.fields = list(params)
            t = rx.Var("t", struct_info=TupleStructInfo(tuple(p.expr.struct_info for p in params)))
            params_exprs = [t]
            params = []
        else:
            params_exprs = [p.expr for p in params]
        self.pool: List[TVal] = list(params) + list(captures)
        self.tuples: List[Tuple[rx.Expr, List[Out]]] = []
        self.aliases: Dict[Dim, List[P.PrimVar]] = {}
        self.nz = Normalizer(mg.module(), script_annotations=False)
        self.blocks: List[rx.BindingBlock] = []
        self.params = params_exprs + ([flag] if flag is not None else [])
        self.roots = {id(d.var) for p in list(params) + self.fields for d in p.dims if d.var is not None}
        self.nz.begin_scope(self.params)
        self.flag = flag
        self.used: set = set()  # ids of the variables some emitted binding reads
        self.counts: Tuple[int, ...] = ()  # choice positions of the current body's step counts

    # -- services for rules ------------------------------------------------------------------------
    def pick(self, pred: Callable[[TVal], bool] = None) -> Optional[TVal]:
        cands = [t for t in self.pool if pred is None or pred(t)]
        if not cands:
            return None
        # biased towards recent values (so that most bindings feed the result) and shrinking
        # towards the newest fitting value, which keeps data dependencies short
        k = self.src.integer(0, len(cands) - 1)
        return cands[len(cands) - 1 - self.src.integer(0, k)]

    def dim(self, d: Dim) -> P.PrimExpr:
        opts = self.aliases.get(d, [])
        unit = self.aliases.get(Dim(1, d.var), []) if d.var is not None and d.coef != 1 else []
        if (opts or unit) and self.src.boolean(50):
            k = self.src.integer(0, len(opts) + len(unit) - 1)
            if k < len(opts):
                return opts[k]
            return d.prim(unit[k - len(opts)])
        return d.prim()

    def shape(self, dims: Sequence[Dim]) -> rx.ShapeExpr:
        return rx.ShapeExpr(tuple(self.dim(d) for d in dims))

    def scope_dims(self) -> List[Dim]:
        seen: List[Dim] = []
        for t in self.pool:
            for d in t.dims:
                if d not in seen:
                    seen.append(d)
        return seen

    def default_range(self, dtype: str) -> Range:
        if dtype == "bool":
            return Range(0, 1)
        if is_float(dtype):
            return self.src.choice(FLOAT_RANGES)
        return self.src.choice(INT_RANGES)

    def constant(self, dims: Sequence[Dim], dtype: str, rng: Range) -> Tuple[rx.Constant, Range]:
        shape = tuple(d.coef for d in dims)
        seed = self.src.integer(0, 2 ** 16)
        data = values_in(np.random.default_rng(seed), shape, dtype, rng)
        lo = float(data.min()) if data.size else rng.lo
        hi = float(data.max()) if data.size else rng.hi
        return rx.Constant(data), Range(lo, hi, True)

    # -- emission ------------------------------------------------------------------------------------
    def in_dataflow(self) -> bool:
        return self.nz.current_block_is_dataflow()

    def emit_value(self, value: rx.Expr, output: bool = False) -> rx.Var:
        if self.in_dataflow() and output:
            v = self.nz.emit_output(value)
        else:
            v = self.nz.emit(value)
        self.mark_uses(value)
        return v

    def mark_uses(self, value) -> None:
        """Record the variables ``value`` reads (closures: their free variables)."""
        stack = [value]
        while stack:
            e = stack.pop()
            if isinstance(e, rx.Var):
                self.used.add(id(e))
            elif isinstance(e, rx.Call):
                stack.extend(e.args)
                stack.append(e.op)
            elif isinstance(e, rx.Tuple):
                stack.extend(e.fields)
            elif isinstance(e, rx.TupleGetItem):
                stack.append(e.tuple_value)
            elif isinstance(e, rx.If):
                stack.append(e.cond)
                for br in (e.true_branch, e.false_branch):
                    stack.extend(_free(br))
            elif isinstance(e, rx.Function):
                stack.extend(_free(e))

    def plain(self, t: TVal) -> bool:
        """``t``'s struct info spells its dims with the function's own variables only (no weakening,
        no variable from a ``match_cast``), so inference sees what the generator knows."""
        vals = t.expr.struct_info.shape_values if isinstance(t.expr.struct_info, TensorStructInfo) else None
        if vals is None:
            return False
        found: Dict = {}
        for v in vals:
            prim_vars_in(v, found)
        return all(id(v) in self.roots for v in found)

    def plain_shapes(self, c: rx.Call) -> bool:
        """No shape argument of ``c`` uses a variable from a ``match_cast``."""
        found: Dict = {}
        for a in c.args:
            if isinstance(a, rx.ShapeExpr):
                for v in a.values:
                    prim_vars_in(v, found)
        return all(id(v) in self.roots for v in found)

    def emit_result(self, res: Result, hidden: bool) -> bool:
        """Emit the call of ``res``; ``hidden``: some operand's struct info does not show what the
        generator knows, so inference may legitimately reject the call (then it is skipped)."""
        try:
            v = self.emit_value(res.call, output=self.src.boolean(25))
        except StructInfoError:
            if hidden:
                return False
            raise
        if not res.is_tuple:
            o = res.outs[0]
            self.pool.append(TVal(v, o.dims, o.dtype, o.range))
            return True
        self.tuples.append((v, list(res.outs)))
        for i, o in enumerate(res.outs):
            if i == 0 or self.src.boolean(50):
                self.get_item(v, i, o)
        return True

    def get_item(self, tup: rx.Expr, i: int, o: Out) -> None:
        v = self.emit_value(rx.TupleGetItem(tup, i))
        self.pool.append(TVal(v, o.dims, o.dtype, o.range))

    # -- constructs ------------------------------------------------------------------------------------
    def step(self) -> None:
        """One construct; a construct that does not apply falls back to an operator call."""
        kinds = STEP_KINDS
        weights = self.cfg.step_weights()
        allowed = [self.cfg.has("call_tir"), self.cfg.has("tuple"), self.cfg.has("match_cast"),
                   self.cfg.has("helper") and self.depth < self.cfg.max_depth,
                   self.cfg.has("if") and not self.in_dataflow(),
                   self.cfg.has("closure") and not self.in_dataflow() and self.depth < self.cfg.max_depth]
        weights = [weights[0]] + [w if ok else 0 for w, ok in zip(weights[1:], allowed)]
        start = self.src.position()
        counts = self.counts
        kind = self.src.weighted(kinds, weights)
        done = getattr(self, "c_" + kind)()
        if not done and kind != "op":
            self.c_op()
        self.src.record_span(start, counts)

    def c_op(self, target: Optional[Callable[[Out], bool]] = None, rules=None) -> bool:
        rules = rules if rules is not None else self.mg.rules
        for _ in range(6):
            if not rules:
                return False
            rule = self.src.weighted(rules, [self.mg.weights.get(id(r), r.weight) for r in rules])
            x = self.pick(rule.accepts)
            if x is None:
                continue
            res = rule.build(self, x)
            if res is None or (target is not None and (res.is_tuple or not target(res.outs[0]))):
                continue
            plain = all(self.plain(t) for t in self.pool if _uses(res.call, t.expr)) \
                and self.plain_shapes(res.call)
            if self.emit_result(res, not plain):
                return True
        return False

    def c_call_tir(self) -> bool:
        # an argument of unknown rank is rejected by call_tir's validation, so operands are plain
        x = self.pick(lambda t: kind_of(t.dtype) in ("float", "int") and t.ndim <= 3 and self.plain(t))
        if x is None:
            return False
        made = tir_gen.kernel(self.src, x, lambda pred: self.pick(lambda t: self.plain(t) and pred(t)),
                              op_pattern=self.cfg.op_pattern)
        if made is None:
            return False
        func, operands, out, kind, out_axes = made
        gv = self.mg.add(self.mg.fresh(f"tir_{kind}"), func, prim_func_struct_info(func))
        # out_sinfo must be provably what the kernel's signature implies for these arguments, so
        # its dims are spelled as in the first operand's struct info
        known = x.expr.struct_info.shape_values if isinstance(x.expr.struct_info, TensorStructInfo) else None
        dims = []
        for i, d in zip(out_axes, out.dims):
            if d.is_static:
                dims.append(d.prim())  # a static buffer dim implies the constant
            elif known is not None:
                dims.append(known[i])
            else:
                dims.append(self.dim(d))
        out_si = TensorStructInfo(rx.ShapeExpr(tuple(dims)), out.dtype)
        c = call("relax.call_tir", gv, [t.expr for t in operands], out_sinfo=out_si)
        return self.emit_result(Result(c, (out,)), not all(self.plain(t) for t in operands))

    def c_tuple(self) -> bool:
        if self.tuples and self.src.boolean(50):
            tup, outs = self.src.choice(self.tuples)
            i = self.src.integer(0, len(outs) - 1)
            self.get_item(tup, i, outs[i])
            return True
        items = [self.pick() for _ in range(self.src.integer(1, 3))]
        items = [t for t in items if t is not None]
        if not items:
            return False
        v = self.emit_value(rx.Tuple(tuple(t.expr for t in items)), output=self.src.boolean(25))
        self.tuples.append((v, [Out(t.dims, t.dtype, t.range) for t in items]))
        return True

    def c_match_cast(self) -> bool:
        x = self.pick()
        if x is None:
            return False
        mode = self.src.choice(["same", "fresh", "weak"])
        if mode == "same":
            si = TensorStructInfo(self.shape(x.dims), x.dtype)
        elif mode == "fresh":
            if not x.dims:
                return False
            i = self.src.integer(0, x.ndim - 1)
            d = x.dims[i]
            if d.var is not None and d.coef != 1:
                return False
            k = P.PrimVar(self.mg.fresh("k"), "int64")
            dims = [self.dim(e) for e in x.dims]
            dims[i] = k
            self.aliases.setdefault(d, []).append(k)
            si = TensorStructInfo(rx.ShapeExpr(tuple(dims)), x.dtype)
        else:
            si = TensorStructInfo(None, x.dtype, ndim=x.ndim if self.src.boolean(70) else -1)
        v = self.nz.match_cast(x.expr, si)
        self.mark_uses(x.expr)
        if mode == "fresh" and self.src.boolean(30):
            return True  # a cast kept only for the check and the variable it defines (its value unused)
        self.pool.append(replace(x, expr=v))
        return True

    def c_helper(self) -> bool:
        args = [self.pick(self.plain)]
        if args[0] is None:
            return False
        if self.src.boolean(40):
            y = self.pick(lambda t: self.plain(t) and t is not args[0])
            if y is not None:
                args.append(y)
        reuse = [h for h in self.mg.helpers if _unify(h.params, args) is not None]
        if reuse and self.src.boolean(60):
            h = self.src.choice(reuse)
            vmap = _unify(h.params, args)
        else:
            h = self.make_helper(args)
            vmap = _unify(h.params, args)
        out = Out(tuple(d.substitute(vmap) for d in h.ret.dims), h.ret.dtype, h.ret.range)
        v = self.emit_value(h.call(args), output=self.src.boolean(25))
        self.pool.append(TVal(v, out.dims, out.dtype, out.range))
        return True

    def make_helper(self, args: Sequence[TVal]) -> Helper:
        name = self.mg.fresh("helper")
        params, hvars = generalize(self.src, args, self.mg.fresh)
        tuple_param = len(args) > 1 and self.src.boolean(35)
        fg = FunctionGen(self.mg, params, self.depth + 1, max(1, self.budget // 2), tuple_param=tuple_param)
        func, ret = fg.build()
        func = normalize_function(func, self.mg.module(), script_annotations=False)
        gv = self.mg.add(name, func, func.struct_info)
        h = Helper(gv, tuple(params), ret, hvars, tuple_param)
        self.mg.helpers.append(h)
        return h

    def c_closure(self) -> bool:
        args = [self.pick(self.plain)]
        if args[0] is None:
            return False
        if not args[0].static and all(d.coef == 1 or d.var is None for d in args[0].dims) and self.src.boolean(30):
            # the closure's parameter is spelled with the enclosing function's symbolic variables
            a = args[0]
            si = TensorStructInfo(rx.ShapeExpr(tuple(d.prim() for d in a.dims)), a.dtype)
            params = [TVal(rx.Var("p0", struct_info=si), a.dims, a.dtype, a.range)]
            outer = True
        else:
            outer = False
            params, _ = generalize(self.src, args, self.mg.fresh)
        captures = [t for t in self.pool if t.static and self.plain(t) and self.src.boolean(30)][:2]
        if len(captures) == 1 and self.src.boolean(50):
            # a second capture of the same type, so that the order of captures matters
            twin = [t for t in self.pool if t is not captures[0] and t.same_type(captures[0]) and self.plain(t)]
            if twin:
                captures.append(self.src.choice(twin))
        fg = FunctionGen(self.mg, params, self.depth + 1, max(1, self.budget // 2), captures)
        func, ret = fg.build(dataflow=False)
        func = normalize_function(func, self.mg.module(), script_annotations=False)
        fvar = rx.Var(self.mg.fresh("local_fn"), struct_info=func.struct_info)
        self.nz.emit_normalized(rx.VarBinding(fvar, func))
        self.mark_uses(func)
        if outer:
            out = Out(ret.dims, ret.dtype, ret.range)  # already spelled with this function's variables
        else:
            vmap = _unify(params, args)
            out = Out(tuple(d.substitute(vmap) for d in ret.dims), ret.dtype, ret.range)
        v = self.emit_value(rx.Call(fvar, tuple(a.expr for a in args)))
        self.pool.append(TVal(v, out.dims, out.dtype, out.range))
        return True

    def c_if(self) -> bool:
        x = self.pick(self.plain)
        if x is None:
            return False
        cond = self.condition()
        if cond is None:
            return False
        branches = []
        ranges = []
        saved = (list(self.pool), list(self.tuples), {d: list(v) for d, v in self.aliases.items()})
        for _ in range(2):
            self.nz.begin_scope()
            self.nz.begin_binding_block()
            cur = x
            for _ in range(self.src.integer(0, 2)):
                same = [r for r in self.mg.rules if r.accepts(cur)]
                before = len(self.pool)
                if self.c_op(target=lambda o, c=cur: o.dims == c.dims and o.dtype == c.dtype, rules=same) \
                        and len(self.pool) > before:
                    cur = self.pool[-1]
            block = self.nz.end_block()
            self.nz.end_scope()
            body = cur.expr
            branches.append(rx.SeqExpr((block,) if block.bindings else (), body, struct_info=body.struct_info))
            ranges.append(cur.range)
            self.pool, self.tuples = list(saved[0]), list(saved[1])
            self.aliases = {d: list(v) for d, v in saved[2].items()}
        si = struct_info_lca(branches[0].struct_info, branches[1].struct_info, self.nz.analyzer)
        var = rx.Var(self.mg.fresh("cond_out"), struct_info=si)
        if_expr = rx.If(cond, branches[0], branches[1], struct_info=si)
        self.nz.emit_normalized(rx.VarBinding(var, if_expr))
        self.mark_uses(if_expr)
        self.pool.append(TVal(var, x.dims, x.dtype, ranges[0].union(ranges[1])))
        return True

    def condition(self) -> Optional[rx.Expr]:
        opts = ["computed", "const"] + (["flag"] if self.flag is not None else [])
        kind = self.src.choice(opts)
        if kind == "flag":
            return self.flag
        if kind == "const":
            return rx.PrimValue(P.IntImm(int(self.src.boolean(50)), "bool"))
        t = self.pick(lambda v: v.range.exact and kind_of(v.dtype) in ("float", "int"))
        if t is None:
            return None
        red = self.nz.emit(call("relax.max" if self.src.boolean(50) else "relax.min", t.expr))
        mid = (t.range.lo + t.range.hi) / 2
        c, _ = self.constant((), t.dtype, Range(mid, mid))
        return self.nz.emit(call("relax.greater", red, c))

    # -- the function ----------------------------------------------------------------------------------
    def build(self, dataflow: Optional[bool] = None, allow_tuple: bool = False) -> Tuple[rx.Function, Out]:
        """Generate the body; returns the raw function (struct info filled in by normalization) and
        the generator's record of its result (the first field when ``allow_tuple`` let it return a
        tuple)."""
        total_at = self.src.position()
        remaining = self.src.integer(1, self.budget)
        while remaining > 0:
            use_df = (dataflow if dataflow is not None else self.cfg.has("dataflow")) and self.src.boolean(70)
            # a step's span names the two counts it contributes to, so that the shrinker can delete
            # the step and lower both (leaving the program otherwise as it was)
            self.counts = (total_at, self.src.position())
            n = self.src.integer(1, remaining)
            remaining -= n
            if use_df:
                self.nz.begin_dataflow_block()
            else:
                self.nz.begin_binding_block()
            if self.fields:
                for i, p in enumerate(self.fields):
                    v = self.emit_value(rx.TupleGetItem(self.params[0], i), output=True)
                    self.pool.insert(i, replace(p, expr=v))
                self.fields = []
            for _ in range(n):
                self.step()
            if use_df:
                self.close_dataflow()
            self.blocks.append(self.nz.end_block())
        ret = self.result()
        body_expr = ret.expr
        sinks = self.sinks() if allow_tuple and self.cfg.has("return_all") and self.src.boolean(75) else []
        if len(sinks) > 1:
            # every value nothing else reads is returned: no dead code, so a fault anywhere shows
            ret = sinks[-1]
            body_expr = rx.Tuple(tuple(t.expr for t in sinks[-8:]))
        elif allow_tuple and len(self.pool) > 1 and self.src.boolean(20):
            other = self.result()
            body_expr = rx.Tuple((ret.expr, other.expr))
        self.nz.end_scope()
        body = rx.SeqExpr(tuple(b for b in self.blocks if b.bindings), body_expr)
        return rx.Function(tuple(self.params), body, None, True), Out(ret.dims, ret.dtype, ret.range)

    def sinks(self) -> List[TVal]:
        """The values in scope that no binding reads (parameters excepted)."""
        params = {id(p) for p in self.params}
        return [t for t in self.pool if id(t.expr) not in self.used and id(t.expr) not in params]

    def close_dataflow(self) -> None:
        locals_ = [t for t in self.pool if isinstance(t.expr, rx.DataflowVar)]
        if locals_ and self.src.boolean(85):
            dead = [t for t in locals_ if id(t.expr) not in self.used]
            for t in (dead[-4:] or locals_[-1:]):
                self.pool.append(replace(t, expr=self.emit_value(t.expr, output=True)))
        self.pool = [t for t in self.pool if not isinstance(t.expr, rx.DataflowVar)]
        self.tuples = [(e, o) for e, o in self.tuples if not isinstance(e, rx.DataflowVar)]

    def result(self) -> TVal:
        cands = [t for t in self.pool if self.plain(t)] or self.pool
        if self.src.boolean(70):
            return cands[-1]
        return cands[len(cands) - 1 - self.src.integer(0, min(3, len(cands) - 1))]


def _free(e: rx.Expr) -> List[rx.Var]:
    from ..analysis.free_vars import free_vars

    return free_vars(e)


def _uses(e: rx.Expr, v: rx.Expr) -> bool:
    if e is v:
        return True
    if isinstance(e, rx.Call):
        return any(_uses(a, v) for a in e.args)
    if isinstance(e, rx.Tuple):
        return any(_uses(f, v) for f in e.fields)
    return False


def generalize(src: Source, args: Sequence[TVal], fresh) -> Tuple[List[TVal], Tuple[P.PrimVar, ...]]:
    """Parameters for a function called with ``args``: every symbolic dim (and some static ones)
    becomes a variable of the callee (equal dims share one), so the call is valid at every size."""
    mapping: Dict[Dim, Dim] = {}
    hvars: List[P.PrimVar] = []
    params = []
    for i, a in enumerate(args):
        dims = []
        for d in a.dims:
            if d in mapping:
                dims.append(mapping[d])
                continue
            if d.is_static and not src.boolean(30):
                nd = d
            else:
                v = P.PrimVar(fresh("d"), "int64")
                hvars.append(v)
                nd = Dim(1, v, d.max_value())
            mapping[d] = nd
            dims.append(nd)
        si = TensorStructInfo(rx.ShapeExpr(tuple(x.prim() for x in dims)), a.dtype)
        var = rx.Var(f"p{i}", struct_info=si)
        params.append(TVal(var, tuple(dims), a.dtype, a.range))
    return params, tuple(hvars)


def _unify(params: Sequence[TVal], args: Sequence[TVal]) -> Optional[Dict[P.PrimVar, Dim]]:
    """The binding of the callee's variables that makes ``args`` fit ``params``, or None."""
    if len(params) != len(args):
        return None
    vmap: Dict[P.PrimVar, Dim] = {}
    for p, a in zip(params, args):
        if p.dtype != a.dtype or p.ndim != a.ndim or not p.range.contains(a.range):
            return None
        if p.range.exact and not a.range.exact:
            return None
        for pd, ad in zip(p.dims, a.dims):
            if pd.var is None:
                if ad != pd:
                    return None
                continue
            if pd.coef != 1:
                return None
            if pd.var in vmap:
                if vmap[pd.var] != ad:
                    return None
            else:
                if ad.max_value() > pd.vmax:
                    return None
                vmap[pd.var] = ad
    return vmap


# ---------------------------------------------------------------------------------------------------
# Values and the entry function
# ---------------------------------------------------------------------------------------------------


def values_in(rng: np.random.Generator, shape: Tuple[int, ...], dtype: str, r: Range,
              distinct: bool = False) -> np.ndarray:
    """Random values in ``r``: floats on a grid of quarters (exactly representable, so exact
    operations stay exact), integers uniformly, bools fairly. With ``distinct`` the grid points are
    dealt out evenly in a random order (all different while there are enough of them), so that a
    fault that reads the wrong element or swaps operands changes the result (without it, ties are
    common, which faults in tie-breaking need)."""
    from ..ir import dtype as _dt

    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    scale = 4 if is_float(dtype) else 1
    lo, hi = int(np.ceil(r.lo * scale)), int(np.floor(r.hi * scale))
    hi = max(lo, hi)
    if distinct:
        n = int(np.prod(shape, dtype=np.int64))
        q = rng.permutation(np.resize(np.arange(lo, hi + 1), n)).reshape(shape)
    else:
        q = rng.integers(lo, hi + 1, size=shape)
    if is_float(dtype):
        return (q / 4.0).astype(_dt.to_numpy(dtype))
    return q.astype(_dt.to_numpy(dtype))


def _entry_params(src: Source, cfg: GenConfig, fresh) -> Tuple[List[TVal], List[ParamSpec], List[P.PrimVar]]:
    sym: List[P.PrimVar] = []
    if cfg.has("symbolic"):
        for name in ("n", "m")[:src.integer(0, 2)]:
            sym.append(P.PrimVar(name, "int64"))
    # small dims with 1 (broadcast), primes (2, 3, 5: off-by-one and stride faults) and 4
    dim_pool = [const(4), const(1), const(2), const(3), const(5)] + [Dim(1, v) for v in sym]
    dtypes = [d for d, _ in cfg.dtypes]
    weights = [w for _, w in cfg.dtypes]
    params, specs = [], []
    names = ["x", "y", "z", "w"]
    shared = None
    for i in range(src.integer(1, cfg.max_params)):
        dtype = src.weighted(dtypes, weights)
        if shared is not None and src.boolean(50):
            dims = shared  # a second tensor of the same shape makes binary ops likely
        else:
            rank = src.integer(1, cfg.max_rank) if not src.boolean(10) else 0
            dims = tuple(src.choice(dim_pool) for _ in range(rank))
            shared = dims
        if dtype == "bool":
            r = Range(0, 1)
        elif is_float(dtype):
            r = src.choice(FLOAT_RANGES)
        else:
            r = src.choice(INT_RANGES)
        si = TensorStructInfo(rx.ShapeExpr(tuple(d.prim() for d in dims)), dtype)
        var = rx.Var(names[i], struct_info=si)
        params.append(TVal(var, dims, dtype, r))
        specs.append(ParamSpec(names[i], "tensor", dims, dtype, r))
    used = {id(d.var) for p in params for d in p.dims if d.var is not None}
    sym = [v for v in sym if id(v) in used]
    return params, specs, sym


def generate(src: Source, cfg: GenConfig = GenConfig()) -> Program:
    """A random well-formed module (see the module docstring)."""
    mg = ModuleGen(src, cfg)
    params, specs, sym = _entry_params(src, cfg, mg.fresh)
    flag = None
    if cfg.has("if") and src.boolean(30):
        flag = rx.Var("flag", struct_info=PrimStructInfo("bool"))
        specs.append(ParamSpec("flag", "bool"))
    fg = FunctionGen(mg, params, 0, cfg.max_bindings, flag=flag)
    func, _ = fg.build(allow_tuple=True)
    mg.add("main", replace(func, attrs=Attrs({"global_symbol": "main"})), None)
    mod = mg.module()
    try:
        mod = normalize_module(mod, script_annotations=False)
        check_well_formed(mod)
    except RelaxError as err:
        raise GenerationError(f"the generator made an invalid module ({type(err).__name__}: {err.message})\n"
                              f"{_safe_script(mod)}") from err
    return Program(mod, "main", tuple(specs), tuple(sym), tuple(getattr(src, "choices", ())),
                   tuple(getattr(src, "spans", ())))


def _safe_script(mod: IRModule) -> str:
    try:
        return mod.script()
    except Exception as err:  # noqa: BLE001 - the text is only for the message
        return f"<module could not be printed: {err}>"


__all__ = ["GenConfig", "FEATURES", "ParamSpec", "Program", "GenerationError", "generate", "values_in",
           "FunctionGen", "ModuleGen", "generalize"]
