"""StaticPlanBlockMemory: reuse storage between ``R.builtin.alloc_tensor``s (PASS.MEMPLAN.*).

Follows TVM 0.25 (``src/relax/transform/static_plan_block_memory.cc``) in three stages per Relax
function.

1. **Tokens** (PASS.MEMPLAN.1). Every ``builtin.alloc_tensor`` gets a storage token: ``bytes`` =
   element size x the product of the dims, where a dim is replaced by its upper bound when the
   function's ``tir_var_upper_bound`` attribute (``{"n": 1024}``, for variables of the signature;
   ``tir_var_lower_bound`` gives the lower end) bounds it; the token also has the dtype and the
   storage scope. Tokens flow through variables, tuples, ``TupleGetItem``, ``MatchCast`` and the
   view ops ``reshape``/``memory.view``/``memory.ensure_zero_offset``. Each argument use in a call
   of a module PrimFunc, an ``ExternFunc`` or ``vm.call_tir_dyn`` counts one reference -- if the
   token was created in another block, the token is *discarded* (not planned). Tokens reaching any
   other call, an ``If`` (condition or branch result), a ``SeqExpr`` result or a function result
   are discarded too.
2. **Planning** (PASS.MEMPLAN.2), in program order: a planned alloc requests a released token of
   the same scope and dtype -- for a constant size the smallest one of at least the size and at
   most 16x it, else the largest one of at least 1/16 of the size, which is enlarged; for a
   symbolic size one whose size is provably equal -- or gets a new storage. A token is released
   when its reference count drops to zero. An alloc without references gets new storage.
3. **Rewrite** (PASS.MEMPLAN.3): at the first alloc of a storage, ``storage =
   R.memory.alloc_storage(R.shape([bytes]), R.prim_value(dev), R.str(scope), R.dtype(dt))`` is
   emitted before it; each planned alloc becomes ``R.memory.alloc_tensor(storage, R.prim_value(0),
   R.shape(dims), R.dtype(dt), R.prim_value(dev))``. Unplanned allocs stay. With the function
   attribute ``relax.memory_plan_dynamic_func_output`` (removed by the pass), an unplanned alloc of
   a symbolic shape whose upper bound is known gets its own storage of the upper-bound size. Kills
   are left to later lowering.

Deviations from TVM, both to keep the result correct (PASS.MEMPLAN.4):

* TVM plans all blocks of a function with one pool, so a storage first allocated inside an ``If``
  branch (or a nested function) can be handed to an allocation in the other branch or after the
  ``If``, where its ``alloc_storage`` variable is not defined (TVM 0.25's VM then crashes). Here a
  storage allocated inside a ``SeqExpr`` (branch or function body) is withdrawn from the pool when
  that ``SeqExpr`` ends.
* A ``MatchCast`` variable keeps the tokens of its value (TVM drops them, so uses through the cast
  variable are not counted and the storage may be reused while still live).
* The ``alloc_storage`` variable is always a ``Var`` (TVM emits a ``DataflowVar`` inside dataflow
  blocks, which a later block could not use).
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple, Union

from ..errors import RelaxError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.attrs import Attrs
from ..ir.functor import ExprMutator, struct_info_prim_vars
from ..ir.module import IRModule
from ..ir.struct_info import TensorStructInfo
from .pass_infra import Pass
from .utils import fresh_name, renormalize

_VIEW_OPS = ("relax.reshape", "relax.memory.view", "relax.memory.ensure_zero_offset")
_MATCH_RANGE = 16


def dtype_bytes(dt: str) -> int:
    """TVM's ``DataType::bytes() * lanes()``."""
    m = re.search(r"x(\d+)$", dt)
    lanes = int(m.group(1)) if m else 1
    base = dt[:m.start()] if m else dt
    return (_dt.bits(base) + 7) // 8 * lanes


def _fold_mul(a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr:
    """TVM's ``*`` on sizes: constants fold, and a factor 1 disappears."""
    from ..ops.te_ops import mul

    return mul(a, b)


class _Token:
    __slots__ = ("ref_counter", "bytes", "dtype", "scope", "storage_id", "home")

    def __init__(self, shape, dtype: str, scope: str) -> None:
        coeff = dtype_bytes(dtype)
        size: Optional[P.PrimExpr] = None
        for d in shape:
            if isinstance(d, P.IntImm):
                coeff *= d.value
            else:
                size = d if size is None else _fold_mul(size, d)
        self.bytes: P.PrimExpr = P.IntImm(coeff, "int64") if size is None else _fold_mul(P.IntImm(coeff, "int64"),
                                                                                          size)
        self.ref_counter = 0
        self.dtype = dtype
        self.scope = scope
        self.storage_id = -1
        self.home: Optional[int] = None  # id of the SeqExpr where the storage is allocated

    def const_bytes(self) -> int:
        return self.bytes.value if isinstance(self.bytes, P.IntImm) else -1


# Tokens: None | _Token | list of Tokens
Tokens = Union[None, _Token, list]


def _leaves(t: Tokens, out: Optional[list] = None) -> List[_Token]:
    if out is None:
        out = []
    if isinstance(t, _Token):
        out.append(t)
    elif isinstance(t, list):
        for x in t:
            _leaves(x, out)
    return out


def _map_tokens(t: Tokens, fn) -> Tokens:
    if isinstance(t, _Token):
        return fn(t)
    if isinstance(t, list):
        return [_map_tokens(x, fn) for x in t]
    return t


def _is_alloc(e) -> bool:
    return isinstance(e, rx.Call) and isinstance(e.op, rx.Op) and e.op.name == "relax.builtin.alloc_tensor"


def _set_var_ranges(func: rx.Function, analyzer) -> None:
    """Bounds from ``tir_var_upper_bound`` / ``tir_var_lower_bound`` for signature variables."""
    upper = dict(func.attrs.get("tir_var_upper_bound") or {})
    lower = dict(func.attrs.get("tir_var_lower_bound") or {})
    vs: Dict = {}
    for p in func.params:
        if p.struct_info is not None:
            struct_info_prim_vars(p.struct_info, vs)
    if func.ret_struct_info is not None:
        struct_info_prim_vars(func.ret_struct_info, vs)
    for v in vs:
        if v.name in upper:
            hi = int(upper[v.name])
            lo = int(lower.get(v.name, 0))
            analyzer.bind_range(v, P.IntImm(lo, v.dtype), P.IntImm(hi - lo + 1, v.dtype))


def _upper_bound_shape(shape, analyzer) -> List[P.PrimExpr]:
    out = []
    for d in shape:
        if isinstance(d, P.IntImm):
            out.append(d)
            continue
        _, hi = analyzer.const_int_bound(d)
        out.append(P.IntImm(hi, "int64") if hi is not None else d)
    return out


# ---------------------------------------------------------------------------------------------------
# Stage 1: tokens (PASS.MEMPLAN.1)
# ---------------------------------------------------------------------------------------------------


class _Init:
    def __init__(self, mod: IRModule, analyzer) -> None:
        self.mod = mod
        self.analyzer = analyzer
        self.token_map: Dict[int, Tokens] = {}
        self.keep: list = []
        self.block_stack: List[rx.BindingBlock] = []
        self.token2block: Dict[int, rx.BindingBlock] = {}
        self.token2exprs: Dict[int, List[int]] = {}

    def set_tokens(self, e, t: Tokens) -> None:
        self.keep.append(e)
        self.token_map[id(e)] = t
        for leaf in _leaves(t):
            self.token2exprs.setdefault(id(leaf), []).append(id(e))

    def get_tokens(self, e) -> Tokens:
        self.visit(e)
        return self.token_map.get(id(e))

    def discard(self, t: Tokens) -> None:
        for leaf in _leaves(t):
            self.discard_token(leaf)

    def discard_token(self, tok: _Token) -> None:
        for eid in self.token2exprs.pop(id(tok), []):
            self.token_map[eid] = _map_tokens(self.token_map.get(eid), lambda x: None if x is tok else x)
        self.token2block.pop(id(tok), None)

    def function(self, f: rx.Function) -> None:
        _set_var_ranges(f, self.analyzer)
        self.discard(self.get_tokens(f.body))

    def visit(self, e) -> None:
        if isinstance(e, rx.Function):
            self.function(e)
        elif isinstance(e, rx.Call):
            self.call(e)
        elif isinstance(e, rx.If):
            c = self.get_tokens(e.cond)
            t = self.get_tokens(e.true_branch)
            f = self.get_tokens(e.false_branch)
            self.discard(c)
            self.discard(t)
            self.discard(f)
        elif isinstance(e, rx.SeqExpr):
            for b in e.blocks:
                self.block(b)
            self.discard(self.get_tokens(e.body))
        elif isinstance(e, rx.Tuple):
            self.set_tokens(e, [self.get_tokens(f) for f in e.fields])
        elif isinstance(e, rx.TupleGetItem):
            t = self.get_tokens(e.tuple_value)
            self.set_tokens(e, t[e.index] if isinstance(t, list) else None)

    def block(self, b: rx.BindingBlock) -> None:
        self.block_stack.append(b)
        for x in b.bindings:
            self.visit(x.value)
            self.set_tokens(x.var, self.token_map.get(id(x.value)))
        self.block_stack.pop()

    def _is_prim_func(self, op) -> bool:
        return isinstance(op, rx.GlobalVar) and op.name_hint in self.mod and \
            isinstance(self.mod[op.name_hint], tir.PrimFunc)

    def call(self, call: rx.Call) -> None:
        if _is_alloc(call):
            self.create_token(call)
            return
        if isinstance(call.op, rx.Op) and call.op.name in _VIEW_OPS:
            self.set_tokens(call, self.get_tokens(call.args[0]))
            return
        counted = self._is_prim_func(call.op) or isinstance(call.op, rx.ExternFunc) or \
            (isinstance(call.op, rx.Op) and call.op.name == "relax.vm.call_tir_dyn")
        for a in call.args:
            t = self.get_tokens(a)
            if counted:
                cur = self.block_stack[-1]
                for leaf in _leaves(t):
                    if self.token2block.get(id(leaf)) is not cur:
                        self.discard_token(leaf)
                for leaf in _leaves(self.token_map.get(id(a))):
                    leaf.ref_counter += 1
            else:
                self.discard(t)

    def create_token(self, call: rx.Call) -> None:
        s = call.struct_info
        if not (isinstance(s, TensorStructInfo) and isinstance(s.shape, rx.ShapeExpr)) or s.dtype == "void":
            raise RelaxError("StaticPlanBlockMemory: builtin.alloc_tensor needs a known shape and dtype", call.span)
        shape = _upper_bound_shape(s.shape.values, self.analyzer)
        scope = call.args[3].value if isinstance(call.args[3], rx.StringImm) else "global"
        tok = _Token(shape, s.dtype, scope)
        self.set_tokens(call, tok)
        self.token2block[id(tok)] = self.block_stack[-1]


# ---------------------------------------------------------------------------------------------------
# Stage 2: planning (PASS.MEMPLAN.2)
# ---------------------------------------------------------------------------------------------------


class _Pool:
    """TVM's ``TokenAllocatorMixed``."""

    def __init__(self, analyzer) -> None:
        self.analyzer = analyzer
        self.available: Dict[Tuple[str, str], List[Tuple[int, int, _Token]]] = {}
        self.seq = 0
        self.n_storage = 0

    def request_reuse(self, proto: _Token) -> Optional[_Token]:
        if proto.ref_counter == 0:
            return None
        pool = self.available.setdefault((proto.scope, proto.dtype), [])
        size = proto.const_bytes()
        if size == -1:
            for i, (k, _, tok) in enumerate(pool):
                if k == -1 and self.analyzer.can_prove_equal(proto.bytes, tok.bytes):
                    tok.ref_counter = proto.ref_counter
                    del pool[i]
                    return tok
            return None
        lo = size // _MATCH_RANGE
        hi = size * _MATCH_RANGE
        # smallest block in [size, size * 16]
        for i, (k, _, tok) in enumerate(pool):
            if size <= k <= hi:
                tok.ref_counter = proto.ref_counter
                del pool[i]
                return tok
        # else the largest block in [size / 16, size), enlarged
        best = None
        for i, (k, _, tok) in enumerate(pool):
            if lo <= k < size:
                best = i
        if best is not None:
            _, _, tok = pool.pop(best)
            tok.bytes = P.IntImm(size, "int64")
            tok.ref_counter = proto.ref_counter
            return tok
        return None

    def alloc(self, proto: _Token) -> _Token:
        proto.storage_id = self.n_storage
        self.n_storage += 1
        return proto

    def release(self, tok: _Token) -> None:
        pool = self.available.setdefault((tok.scope, tok.dtype), [])
        self.seq += 1
        pool.append((tok.const_bytes(), self.seq, tok))
        pool.sort(key=lambda x: (x[0], x[1]))

    def withdraw(self, home: int) -> None:
        """(PASS.MEMPLAN.4) Tokens whose storage is allocated in the ending scope ``home``."""
        for key, pool in self.available.items():
            self.available[key] = [x for x in pool if x[2].home != home]


class _Planner:
    def __init__(self, token_map: Dict[int, Tokens], keep: list, analyzer) -> None:
        self.token_map = token_map
        self.keep = keep
        self.pool = _Pool(analyzer)
        self.alloc2token: Dict[int, _Token] = {}
        self.scope_stack: List[int] = []

    def set_tokens(self, e, t: Tokens) -> None:
        self.keep.append(e)
        self.token_map[id(e)] = t

    def get_tokens(self, e) -> Tokens:
        self.visit(e)
        return self.token_map.get(id(e))

    def function(self, f: rx.Function) -> None:
        self.visit(f.body)

    def visit(self, e) -> None:
        if isinstance(e, rx.Function):
            self.visit(e.body)
        elif isinstance(e, rx.SeqExpr):
            self.scope_stack.append(id(e))
            for b in e.blocks:
                for x in b.bindings:
                    self.binding(x)
            self.visit(e.body)
            self.scope_stack.pop()
            self.pool.withdraw(id(e))
        elif isinstance(e, rx.If):
            self.visit(e.cond)
            self.visit(e.true_branch)
            self.visit(e.false_branch)
        elif isinstance(e, rx.Tuple):
            self.set_tokens(e, [self.get_tokens(f) for f in e.fields])
        elif isinstance(e, rx.TupleGetItem):
            t = self.get_tokens(e.tuple_value)
            self.set_tokens(e, t[e.index] if isinstance(t, list) else None)
        elif isinstance(e, rx.Call):
            self.visit(e.op)
            for a in e.args:
                self.visit(a)

    def binding(self, b: rx.Binding) -> None:
        v = b.value
        if isinstance(v, rx.Call) and isinstance(b, rx.VarBinding):
            self.call(v)
        else:
            self.visit(v)
        self.set_tokens(b.var, self.token_map.get(id(v)))

    def call(self, call: rx.Call) -> None:
        if _is_alloc(call):
            t = self.token_map.get(id(call))
            if t is None:
                return
            tok = self.pool.request_reuse(t)
            if tok is None:
                tok = self.pool.alloc(t)
                tok.home = self.scope_stack[-1] if self.scope_stack else None
            self.alloc2token[id(call)] = tok
            self.keep.append(call)
            self.set_tokens(call, tok)
            return
        if isinstance(call.op, rx.Op) and call.op.name in _VIEW_OPS:
            self.set_tokens(call, self.get_tokens(call.args[0]))
            return
        for a in call.args:
            for leaf in _leaves(self.get_tokens(a)):
                if leaf.ref_counter <= 0:
                    raise RelaxError("StaticPlanBlockMemory: internal reference count underflow", call.span)
                leaf.ref_counter -= 1
                if leaf.ref_counter == 0:
                    self.pool.release(leaf)


# ---------------------------------------------------------------------------------------------------
# Stage 3: rewrite (PASS.MEMPLAN.3)
# ---------------------------------------------------------------------------------------------------


class _Rewriter(ExprMutator):
    def __init__(self, alloc2token: Dict[int, _Token], names: set, plan_dynamic: bool, analyzer) -> None:
        super().__init__()
        self.alloc2token = alloc2token
        self.names = names
        self.storage: Dict[int, rx.Var] = {}
        self.plan_dynamic = plan_dynamic
        self.analyzer = analyzer

    def fresh(self, hint: str) -> str:
        n = fresh_name(self.names, hint)
        self.names.add(n)
        return n

    def visit_binding(self, b: rx.Binding):
        v = b.value
        if isinstance(b, rx.VarBinding) and _is_alloc(v):
            s = v.struct_info
            dev = v.args[2]
            tok = self.alloc2token.get(id(v))
            if tok is not None:
                out = []
                sv = self.storage.get(id(tok))
                if sv is None:
                    sv = rx.Var(name_hint=self.fresh("storage"))
                    out.append(rx.VarBinding(sv, rx.Call(rx.Op("relax.memory.alloc_storage"), (
                        rx.ShapeExpr((tok.bytes,)), dev, rx.StringImm(tok.scope), rx.DataTypeImm(tok.dtype)))))
                    self.storage[id(tok)] = sv
                call = rx.Call(rx.Op("relax.memory.alloc_tensor"), (
                    sv, rx.PrimValue(P.IntImm(0, "int64")), s.shape, rx.DataTypeImm(s.dtype), dev), span=v.span)
                out.append(rx.VarBinding(b.var, call, span=b.span))
                return out
            if self.plan_dynamic and not all(isinstance(d, P.IntImm) for d in s.shape.values):
                ub = _upper_bound_shape(s.shape.values, self.analyzer)
                nbytes = ub[0]
                for d in ub[1:]:
                    nbytes = _fold_mul(nbytes, d)
                nbytes = _fold_mul(nbytes, P.IntImm(dtype_bytes(s.dtype), "int64"))
                sv = rx.Var(name_hint=self.fresh("storage"))
                return [rx.VarBinding(sv, rx.Call(rx.Op("relax.memory.alloc_storage"), (
                            rx.ShapeExpr((nbytes,)), dev, v.args[3], rx.DataTypeImm(s.dtype)))),
                        rx.VarBinding(b.var, rx.Call(rx.Op("relax.memory.alloc_tensor"), (
                            sv, rx.PrimValue(P.IntImm(0, "int64")), s.shape, rx.DataTypeImm(s.dtype), dev),
                            span=v.span), span=b.span)]
        return super().visit_binding(b)


_PLAN_DYN = "relax.memory_plan_dynamic_func_output"


def static_plan_block_memory(mod: IRModule) -> IRModule:
    """(PASS.MEMPLAN.1-4)"""
    from ..analysis.free_vars import all_vars
    from ..arith import Analyzer

    items = {}
    changed = False
    for gv, f in mod.functions_items():
        if not isinstance(f, rx.Function):
            items[gv] = f
            continue
        analyzer = Analyzer()
        init = _Init(mod, analyzer)
        init.function(f)
        planner = _Planner(init.token_map, init.keep, analyzer)
        planner.function(f)
        plan_dyn = bool(f.attrs.get(_PLAN_DYN, False))
        names = {v.name_hint for v in all_vars(f)}
        nf = _Rewriter(planner.alloc2token, names, plan_dyn, analyzer).visit_expr(f)
        if _PLAN_DYN in f.attrs:
            nf = rx.Function(nf.params, nf.body, nf.ret_struct_info, nf.is_pure,
                             attrs=Attrs({k: v for k, v in nf.attrs.items() if k != _PLAN_DYN}), span=nf.span)
        changed = changed or nf is not f
        items[gv] = nf
    if not changed:
        return mod
    return renormalize(IRModule(items, mod.attrs, mod.global_infos))


class StaticPlanBlockMemory(Pass):
    """(PASS.MEMPLAN.*)"""

    name = "StaticPlanBlockMemory"
    opt_level = 0

    def transform(self, mod: IRModule) -> IRModule:
        return static_plan_block_memory(mod)


__all__ = ["StaticPlanBlockMemory", "static_plan_block_memory", "dtype_bytes"]
