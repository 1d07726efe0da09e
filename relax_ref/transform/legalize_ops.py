"""LegalizeOps: replace high-level operator calls by ``call_tir`` of generated PrimFuncs (PASS.LEGALIZE).

``LegalizeOps(skip_ops=(), customize=None, release=None)(mod)`` follows TVM's pass
(``src/relax/transform/legalize_ops.cc``) in the output form of TVM ``release`` (``"0.25"``,
``"0.27"``; None: the current release, :mod:`relax_ref.ops.releases`, PASS.RELEASE.1-2):

1. Every ``Call`` of an operator in every Relax function (nested functions included) is considered,
   except operators named in ``skip_ops`` (PASS.LEGALIZE.1).
2. A call is legalizable when every argument's struct info "knows all shape values" (a tensor whose
   shape is a ``ShapeExpr``, a shape with values, a prim, or a tuple of those) and so does the
   result -- unless the operator is data dependent (``OpDef.data_dependent``). Operators may opt out
   of the argument check with ``OpDef.extra["requires_arg_shapes"] = False`` (PASS.LEGALIZE.2).
3. The legalization used is ``customize[op_name]`` if given, else the registry's ``legalize``; when
   neither applies and the operator names a packed function in ``OpDef.extra["call_packed"]``, the
   call becomes a call of that ``ExternFunc`` (PASS.LEGALIZE.3). A legalization returning ``None``
   or the call itself leaves the call unchanged.
4. If a pure operator legalizes into an impure call (e.g. of an ``ExternFunc``), the result is wrapped
   as ``R.call_pure_packed(callee, *args)`` (PASS.LEGALIZE.4).
5. Generated PrimFuncs are added to the module with unique names (``add``, ``add1``, ...); a PrimFunc
   structurally equal (up to variable, buffer and block names) to one already in the module is
   reused, e.g. ``logical_xor`` of integers reuses the kernel of ``bitwise_xor`` (PASS.LEGALIZE.5).
6. The module is re-normalized; since a legalization may produce further high-level operator calls,
   the pass repeats until no call changes (at most 32 rounds, then RelaxError) (PASS.LEGALIZE.6).
7. A legalization may return a ``SeqExpr`` of one block: its bindings are emitted before the call's
   binding, whose value becomes the sequence's result (TVM's ``bb.emit`` / ``bb.match_cast`` inside a
   legalization) (PASS.LEGALIZE.7).

Legalization functions have the registry signature ``legalize(call, ctx) -> Expr | None`` where ``ctx``
is a :class:`LegalizeContext`:

* ``ctx.module`` -- the module being legalized (as of the current round);
* ``ctx.release`` -- the :class:`~relax_ref.ops.releases.Release` whose output form is written;
* ``ctx.analyzer`` -- an arithmetic analyzer (``relax_ref.arith.Analyzer``);
* ``ctx.span`` -- the span of the call being legalized;
* ``ctx.add_prim_func(func, name_hint) -> GlobalVar`` -- add (or reuse) a PrimFunc;
* ``ctx.call_te(fte, *args, primfunc_name_hint=None, **kwargs) -> Call`` -- TVM's ``bb.call_te``: build
  a kernel with :mod:`relax_ref.ops.te` from the Relax arguments (:mod:`relax_ref.ops.te_bridge`),
  add it and return ``R.call_tir(gv, (args...), out_sinfo=..., tir_vars=...)``;
* ``ctx.call_tir(gv, args, out_sinfo, tir_vars=None) -> Call`` -- build a ``call_tir`` call.

The result may be an arbitrary (non-ANF) expression tree; the normalizer binds its sub-expressions.
"""

from __future__ import annotations

import math
from dataclasses import fields, is_dataclass
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.attrs import Attrs
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from ..ir.struct_info import (
    FuncStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo,
)
from .pass_infra import Pass

LegalizeFunc = Callable[[rx.Call, "LegalizeContext"], Optional[rx.Expr]]

MAX_ROUNDS = 32


# ---------------------------------------------------------------------------------------------------
# Structural keys for PrimFunc de-duplication
# ---------------------------------------------------------------------------------------------------


class _KeyBuilder:
    """A hashable canonical form of a PrimFunc: variables and buffers are numbered in order of first
    appearance and their names are dropped, as are block names (TVM's structural equality, which
    its BlockBuilder uses to de-duplicate, ignores all three)."""

    def __init__(self) -> None:
        self.vars: Dict[int, int] = {}
        self.bufs: Dict[int, Tuple] = {}

    def key(self, x: Any) -> Any:
        if isinstance(x, P.PrimVar):
            idx = self.vars.setdefault(id(x), len(self.vars))
            return ("var", idx, x.dtype)
        if isinstance(x, tir.Buffer):
            if id(x) not in self.bufs:
                self.bufs[id(x)] = ("buf", len(self.bufs))  # placeholder while recursing
                self.bufs[id(x)] = ("buf", len(self.bufs) - 1, x.dtype, self.key(x.shape), self.key(x.strides),
                                    self.key(x.elem_offset), x.scope, x.axis_separators)
                return ("bufdef",) + self.bufs[id(x)][1:]
            return ("buf", self.bufs[id(x)][1])
        if isinstance(x, float):
            return ("float", "nan" if math.isnan(x) else x)
        if isinstance(x, (str, int, bool)) or x is None:
            return x
        if isinstance(x, (tuple, list)):
            return tuple(self.key(v) for v in x)
        if isinstance(x, Attrs):
            return ("attrs",) + tuple(sorted((k, self.key(v)) for k, v in x.items()))
        if is_dataclass(x):
            skip = ("span", "name") if isinstance(x, tir.Block) else ("span",)
            return (type(x).__name__,) + tuple(self.key(getattr(x, f.name)) for f in fields(x)
                                               if f.name not in skip)
        # anything else (e.g. an exotic annotation value) only compares equal to itself, so a
        # PrimFunc holding it is never merged with another one
        return ("object", id(x))


def prim_func_key(func: tir.PrimFunc) -> Tuple:
    """A key equal for PrimFuncs that differ only in variable, buffer and block names."""
    kb = _KeyBuilder()
    return ("PrimFunc", kb.key(func.params), kb.key(func.buffer_map), kb.key(func.body), func.ret_type,
            kb.key(func.attrs))


# ---------------------------------------------------------------------------------------------------
# The context handed to legalization functions
# ---------------------------------------------------------------------------------------------------


class LegalizeContext:
    """See the module docstring."""

    def __init__(self, module: IRModule, release: Optional[str] = None) -> None:
        from ..ops.releases import get_release

        self.module = module
        self.release = get_release(release)
        self.span = None
        self._analyzer = None
        self._added: List[Tuple[rx.GlobalVar, tir.PrimFunc]] = []
        self._names = set(module)
        self._dedup: Dict[Tuple, rx.GlobalVar] = {}
        for gv, f in module.prim_funcs():
            self._dedup.setdefault(prim_func_key(f), gv)

    @property
    def analyzer(self):
        if self._analyzer is None:
            from ..arith import Analyzer

            self._analyzer = Analyzer()
        return self._analyzer

    @property
    def added_functions(self) -> List[Tuple[rx.GlobalVar, tir.PrimFunc]]:
        return list(self._added)

    def fresh_name(self, hint: str) -> str:
        """``hint`` if unused, else ``hint1``, ``hint2``, ... (TVM's name supply)."""
        if hint not in self._names:
            return hint
        k = 1
        while f"{hint}{k}" in self._names:
            k += 1
        return f"{hint}{k}"

    def add_prim_func(self, func: tir.PrimFunc, name_hint: str) -> rx.GlobalVar:
        """Add ``func`` under a fresh name, or return the GlobalVar of an equal PrimFunc
        (PASS.LEGALIZE.5)."""
        key = prim_func_key(func)
        gv = self._dedup.get(key)
        if gv is not None:
            return gv
        name = self.fresh_name(name_hint)
        self._names.add(name)
        gv = rx.GlobalVar(name)
        self._added.append((gv, func))
        self._dedup[key] = gv
        return gv

    def call_tir(self, gv: rx.GlobalVar, args: Sequence[rx.Expr], out_sinfo: Sequence[StructInfo],
                 tir_vars: Optional[rx.ShapeExpr] = None) -> rx.Call:
        """``R.call_tir(gv, (args...), out_sinfo, tir_vars)``: one output gives its struct info,
        several a TupleStructInfo (as TVM's ``call_tir`` constructor)."""
        outs = list(out_sinfo)
        sinfo = outs[0] if len(outs) == 1 else TupleStructInfo(tuple(outs))
        call_args: Tuple[rx.Expr, ...] = (gv, rx.Tuple(tuple(args), span=self.span))
        if tir_vars is not None:
            call_args += (tir_vars,)
        return rx.Call(rx.Op("relax.call_tir"), call_args, Attrs(), (sinfo,), span=self.span)

    def call_te(self, fte: Callable[..., Any], *args: Any, primfunc_name_hint: Optional[str] = None,
                **kwargs: Any) -> rx.Call:
        """TVM's ``bb.call_te``: see :mod:`relax_ref.ops.te_bridge`."""
        from ..ops.te_bridge import gen_call_tir_inputs

        pieces = gen_call_tir_inputs(fte, args, kwargs, release=self.release.name)
        name = primfunc_name_hint or getattr(fte, "__name__", "te_func")
        gv = self.add_prim_func(pieces.func, name)
        return self.call_tir(gv, pieces.args, pieces.out_sinfo, pieces.tir_vars)


# ---------------------------------------------------------------------------------------------------
# The pass
# ---------------------------------------------------------------------------------------------------


def know_all_shape_values(s: Optional[StructInfo]) -> bool:
    """PASS.LEGALIZE.2: tensors with a ShapeExpr shape, shapes with values, prims, tuples of those."""
    if isinstance(s, TensorStructInfo):
        return isinstance(s.shape, rx.ShapeExpr)
    if isinstance(s, ShapeStructInfo):
        return s.values is not None
    if isinstance(s, TupleStructInfo):
        return all(know_all_shape_values(f) for f in s.fields)
    return isinstance(s, PrimStructInfo)


class LegalizeOps(Pass):
    """Lower operator calls to ``call_tir`` (see the module docstring)."""

    name = "LegalizeOps"
    rebuilds_returns = True   # PASS.UTIL.4

    def __init__(self, skip_ops: Iterable[str] = (), customize: Optional[Mapping[str, LegalizeFunc]] = None,
                 release: Optional[str] = None):
        from ..ops.releases import get_release

        self.skip_ops = frozenset(skip_ops)
        self.customize: Dict[str, LegalizeFunc] = dict(customize or {})
        self.release = get_release(release).name

    def transform(self, mod: IRModule) -> IRModule:
        from ..static.normalize import normalize_module

        for _ in range(MAX_ROUNDS):
            ctx = LegalizeContext(mod, self.release)
            items: Dict[rx.GlobalVar, Any] = {}
            changed = False
            for gv, func in mod.functions_items():
                if isinstance(func, rx.Function):
                    m = _Legalizer(self, ctx)
                    new = m.visit_expr(func)
                    changed = changed or m.changed
                    items[gv] = new
                else:
                    items[gv] = func
            if not changed:
                return mod
            for gv, f in ctx.added_functions:
                items[gv] = f
            mod = normalize_module(IRModule(items, mod.attrs, mod.global_infos))
        raise RelaxError(f"LegalizeOps: legalization did not reach a fixpoint after {MAX_ROUNDS} rounds "
                         "(a legalization keeps producing operator calls)")

    # -- one call ----------------------------------------------------------------------------------
    def legalize_call(self, call: rx.Call, ctx: LegalizeContext) -> Optional[rx.Expr]:
        """The legalized expression for ``call``, or None to keep it (PASS.LEGALIZE.1-4)."""
        from ..ops import registry

        if not isinstance(call.op, rx.Op):
            return None
        name = call.op.name
        if name in self.skip_ops:
            return None
        opdef = registry.lookup(name)
        if opdef is None:
            return None
        if opdef.extra.get("requires_arg_shapes", True):
            shapes_ok = all(know_all_shape_values(a.struct_info) for a in call.args) and (
                opdef.data_dependent or know_all_shape_values(call.struct_info))
        else:
            shapes_ok = True
        func: Optional[LegalizeFunc] = None
        if shapes_ok:
            func = self.customize.get(name) or opdef.legalize
        if func is None and opdef.extra.get("call_packed"):
            packed = opdef.extra["call_packed"]

            def func(c, _ctx):
                return rx.Call(rx.ExternFunc(packed), c.args, Attrs(), (c.struct_info,), span=c.span)
        if func is None:
            return None
        ctx.span = call.span
        try:
            out = func(call, ctx)
        except RelaxError as e:
            raise e.with_span(call.span)
        if out is None or out is call:
            return None
        if not isinstance(out, rx.Expr):
            raise RelaxError(f"the legalization of {name} returned {type(out).__name__}, not a Relax "
                             "expression", call.span)
        if opdef.purity and isinstance(out, rx.Call) and not _is_pure_callee(out.op, ctx):
            out = rx.Call(rx.Op("relax.call_pure_packed"), (out.op,) + tuple(out.args), out.attrs,
                          out.sinfo_args, span=out.span)
        return out


def _is_pure_callee(op: rx.Expr, ctx: LegalizeContext) -> bool:
    from ..ops import registry

    if isinstance(op, rx.Op):
        d = registry.lookup(op.name)
        return bool(d is not None and d.purity)
    s = op.struct_info
    if isinstance(s, FuncStructInfo):
        return s.purity
    if isinstance(op, rx.GlobalVar) and op.name_hint in ctx.module:
        f = ctx.module[op.name_hint]
        if isinstance(f, rx.Function):
            return f.is_pure
        return False
    return False


class _Legalizer(ExprMutator):
    """Rewrites bindings whose value is an operator call; a rewritten ``VarBinding`` gets a fresh
    variable (same name and kind, struct info left to the normalizer) and later uses are remapped."""

    def __init__(self, pass_: LegalizeOps, ctx: LegalizeContext) -> None:
        super().__init__()
        self.pass_ = pass_
        self.ctx = ctx
        self.changed = False

    def visit_binding(self, b: rx.Binding):
        value = self.visit_expr(b.value)
        if isinstance(value, rx.Call) and value is not b.value and value.struct_info is None:
            si = _value_struct_info(value)      # re-inferred, as TVM's mutator normalizes the call
            if si is not None:
                value = value.with_struct_info(si)
        new = self.pass_.legalize_call(value, self.ctx) if isinstance(value, rx.Call) else None
        if new is None:
            if value is b.value:
                return b
            if isinstance(b, rx.MatchCast):
                return rx.MatchCast(b.var, value, b.struct_info, span=b.span)
            return rx.VarBinding(b.var, value, span=b.span)
        self.changed = True
        prelude: List[rx.Binding] = []
        if isinstance(new, rx.SeqExpr) and len(new.blocks) == 1:
            # bindings the legalization emits first (TVM's bb.emit / bb.match_cast): they precede the
            # binding, whose value becomes the sequence's result (PASS.LEGALIZE.7)
            prelude, new = list(new.blocks[0].bindings), new.body
        if isinstance(b, rx.MatchCast):
            return prelude + [rx.MatchCast(b.var, new, b.struct_info, span=b.span)]
        # the new variable gets the legalized value's struct info right away (so later calls of the
        # same round see known shapes, as in TVM's mutator), else the normalizer's
        var = type(b.var)(name_hint=b.var.name_hint, struct_info=_value_struct_info(new), span=b.var.span)
        self.var_remap[b.var] = var
        return prelude + [rx.VarBinding(var, new, span=b.span)]


def _value_struct_info(e: rx.Expr):
    from .utils import BindingMutator

    if isinstance(e, rx.Call) and isinstance(e.op, rx.Op) and len(e.sinfo_args) == 1 and e.op.name in (
            "relax.call_tir", "relax.call_tir_inplace", "relax.call_dps_packed", "relax.call_tir_with_grad"):
        return e.sinfo_args[0]     # the output struct info is the call's (CALL.TIR.1)
    try:
        return BindingMutator().value_struct_info(e)
    except RelaxError:
        return None


__all__ = ["LegalizeOps", "LegalizeContext", "LegalizeFunc", "know_all_shape_values", "prim_func_key",
           "MAX_ROUNDS"]
