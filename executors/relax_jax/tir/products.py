"""Float products of a PrimFunc that need no rounding barrier (PRIM.FLOAT.1 on XLA).

A float32 product is lowered through :func:`relax_jax.float_rules.rounded_multiply`'s barrier because
XLA's CPU backend contracts a multiply with an add or subtract that consumes it. The barrier costs a
round trip through float64, and it keeps XLA from fusing the product into its consumer, so that a
product read by a reduction is written to memory. It is not needed where no consumer can contract:

* inside an expression, a ``Mul`` whose value is an operand of a float ``Mul`` or ``Div``
  (:meth:`relax_jax.prim_jax.PrimLowering.lower_factor`);
* a store ``B[J] = a * b`` into a buffer that the PrimFunc allocates and whose every load is
  - an operand of a float ``Mul`` or ``Div``;
  - the term of a zero-initialized sum reduction ``X[I] = X[I] + B[J]`` (``with T.init(): X[I] = 0``):
    RMSNorm's ``x * x`` before its sum, a variance's square. XLA reduces a product without contracting
    it with the accumulator (measured on jaxlib 0.10 for its own reduction emitter and for the YNN
    reduce fusion, row and column reductions; ``tests/jax/test_tir_products.py`` keeps the measurement
    as a test), and a sum reduction that runs as a loop reads the product as a loop operand, computed
    before the loop;
  - the argument of ``erf``, which XLA's implementation clamps before any arithmetic (the GELU's
    ``x * sqrt(1/2)``; ``tests/jax/test_gelu_products.py`` compares a million values bit for bit);
  - added to (or subtracted from) a float constant of magnitude at least 2**-100, when every product
    stored is an exact scaling: a load of a buffer holding ``erf``, ``tanh`` or ``sigmoid`` values times
    a power of two of magnitude at most 1 (the GELU's ``erf(...) * 0.5`` before ``0.5 + ...``). Such a
    product is exact wherever it is a normal float; below that it is far under half an ulp of the
    constant, so the sum is the same contracted or not.

The same holds across kernels: a ``call_tir`` result that the Relax function passes only to other
``call_tir`` kernels which read that parameter only in those ways (:func:`factor_outputs`,
:func:`factor_params`: the GELU, RMSNorm and SiLU-gate kernels before a matmul kernel) is such a
buffer too, and so is a buffer whose only other reader copies it into one (RMSNorm's ``T_cast``).

A buffer whose data variable appears anywhere else (a packed call's argument, a match_buffer source,
a load under a cast or a general add) keeps the barrier on every store.
"""

from __future__ import annotations

import dataclasses
import math
import weakref
from typing import Dict, FrozenSet, Iterable, List, Optional

from relax_ref.arith.intrinsics import canonical_name
from relax_ref.ir import dtype as _dt
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.functor import stmt_children, stmt_prim_exprs

_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _cached(func: tir.PrimFunc):
    hit = _CACHE.get(func)
    if hit is None:
        hit = _analyze(func)
        _CACHE[func] = hit
    return hit


def plain_stores(func: tir.PrimFunc, outputs: FrozenSet[int] = frozenset()) -> FrozenSet[int]:
    """``id``s of the stores of ``func`` whose value, a float ``Mul``, needs no barrier; ``outputs``:
    indices of output parameters whose readers outside ``func`` only take them as factors
    (:func:`factor_outputs`)."""
    allocated, uses = _cached(func)
    return _plain(func, allocated, uses, frozenset(outputs))


def product_free(func: tir.PrimFunc, buffer: tir.Buffer) -> bool:
    """Whether ``buffer`` is allocated by ``func`` and no value stored into it ends in a float product:
    neither a ``Mul`` (through casts) nor a load that could be one (a load of a buffer with the same
    property excepted), ``Select`` arms alike. A sum of its elements then holds no product that a fused
    sum could contract (PRIM.FLOAT.1): softmax's exponentials, masked or not, are such a buffer."""
    allocated, uses = _cached(func)
    return _product_free(buffer.data, allocated, uses, 0)


def _product_free(dv: P.PrimVar, allocated: set, uses: "_Uses", depth: int) -> bool:
    stores = uses.stores.get(dv)
    if dv not in allocated or not stores or depth > 4:
        return False
    return all(_ends_free(st.value, allocated, uses, depth) for st in stores)


def _ends_free(e: P.PrimExpr, allocated: set, uses: "_Uses", depth: int) -> bool:
    while isinstance(e, P.Cast):
        e = e.value
    if _is_float_mul(e):
        return False
    if isinstance(e, tir.BufferLoad):
        return _product_free(e.buffer.data, allocated, uses, depth + 1)
    if isinstance(e, P.Select):
        return all(_ends_free(x, allocated, uses, depth) for x in (e.true_value, e.false_value))
    return True


def _is_float_mul(e: P.PrimExpr) -> bool:
    return type(e) is P.Mul and _dt.is_float(e.dtype)


def _children(e: P.PrimExpr) -> Iterable[P.PrimExpr]:
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if isinstance(v, P.PrimExpr):
            yield v
        elif isinstance(v, tuple):
            yield from (x for x in v if isinstance(x, P.PrimExpr))


#: intrinsics whose result lies in [-1, 1] (or is NaN)
_BOUNDED = frozenset({"tir.erf", "tir.tanh", "tir.sigmoid"})
#: an addend at least this large absorbs any product below the float32 normal range
_MIN_ADDEND = 2.0 ** -100


class _Uses:
    """Every occurrence of a buffer's data variable, by the position of the load: ``factor`` (an
    operand of a float ``Mul``/``Div``), ``sum`` (the term of a zero-initialized sum reduction),
    ``erf`` (the argument of ``erf``), ``addend`` (added to or subtracted from a float constant of
    magnitude at least 2**-100), ``bad`` (anything else)."""

    def __init__(self) -> None:
        self.kinds: Dict[P.PrimVar, set] = {}
        self.stores: Dict[P.PrimVar, List[tir.BufferStore]] = {}
        self.copies: Dict[P.PrimVar, set] = {}      # buffer -> the buffers a plain copy writes it to

    def _add(self, dv: P.PrimVar, kind: str) -> None:
        self.kinds.setdefault(dv, set()).add(kind)

    def expr(self, e: P.PrimExpr, pos: Optional[str] = None) -> None:
        if isinstance(e, tir.BufferLoad):
            self._add(e.buffer.data, pos or "bad")
            for i in e.indices:
                self.expr(i)
            return
        if isinstance(e, P.PrimVar):
            self._add(e, "bad")                 # a data variable as a value: a pointer that escapes
            return
        kids = list(_children(e))
        floating = _dt.is_float(e.dtype)
        if floating and type(e) in (P.Mul, P.Div):
            poss = ["factor"] * len(kids)
        elif floating and isinstance(e, P.PrimCall) and canonical_name(e.op) == "tir.erf" and len(kids) == 1:
            poss = ["erf"]                      # XLA's erf clamps its argument before any arithmetic
        elif floating and type(e) in (P.Add, P.Sub) and any(_large_const(k) for k in kids):
            poss = ["addend"] * len(kids)
        else:
            poss = [None] * len(kids)
        for k, ps in zip(kids, poss):
            self.expr(k, ps)

    def stmt(self, s: tir.Stmt, block: Optional[tir.Block]) -> None:
        if isinstance(s, tir.BufferStore):
            self.stores.setdefault(s.buffer.data, []).append(s)
            v = s.value
            if isinstance(v, tir.BufferLoad) and v.dtype == s.buffer.dtype and v.buffer.data is not s.buffer.data:
                self._add(v.buffer.data, "copy")        # ``D[J] = B[I]``: B's readers are D's readers
                self.copies.setdefault(v.buffer.data, set()).add(s.buffer.data)
                for e in tuple(v.indices) + tuple(s.indices):
                    self.expr(e)
                return
            term = _sum_term(s, block)
            if term is not None:
                self._add(term.buffer.data, "sum")
                for i in term.indices:
                    self.expr(i)
                for i in s.indices:
                    self.expr(i)
                return
        if isinstance(s, tir.Block):
            for m in s.match_buffers:
                self._add(m.source.buffer.data, "bad")
        for e in stmt_prim_exprs(s):
            self.expr(e)


def _large_const(e: P.PrimExpr) -> bool:
    return isinstance(e, P.FloatImm) and math.isfinite(e.value) and abs(e.value) >= _MIN_ADDEND


def _exact_scaling(v: P.PrimExpr, bounded: set) -> bool:
    """``v`` is ``L * C`` (either order): ``C`` a power of two of magnitude at most 1, ``L`` a load of a
    buffer holding values in [-1, 1] -- a product that is exact wherever it is a normal float, so an
    addend of :data:`_MIN_ADDEND` or more gives the same sum contracted or not."""
    for c, load in ((v.a, v.b), (v.b, v.a)):
        if isinstance(c, P.FloatImm) and isinstance(load, tir.BufferLoad) and load.buffer.data in bounded and \
                c.value != 0 and math.isfinite(c.value) and abs(c.value) <= 1 and abs(math.frexp(c.value)[0]) == 0.5:
            return True
    return False


def _sum_term(s: tir.BufferStore, block: Optional[tir.Block]) -> Optional[tir.BufferLoad]:
    """The load ``B[J]`` of a store ``X[I] = X[I] + B[J]`` in a reduction block whose init stores a
    zero to ``X[I]`` (float, one dtype), else None."""
    v = s.value
    if type(v) is not P.Add or not _dt.is_float(v.dtype) or block is None or block.init is None:
        return None
    if not any(iv.iter_type == "reduce" for iv in block.iter_vars):
        return None
    init = block.init
    if not (isinstance(init, tir.BufferStore) and init.buffer.data is s.buffer.data and init.indices == s.indices
            and isinstance(init.value, P.FloatImm) and init.value.value == 0):
        return None
    for acc, term in ((v.a, v.b), (v.b, v.a)):
        if isinstance(acc, tir.BufferLoad) and acc.buffer.data is s.buffer.data and acc.indices == s.indices and \
                isinstance(term, tir.BufferLoad) and term.dtype == v.dtype and term.buffer.data is not s.buffer.data:
            return term
    return None


def _analyze(func: tir.PrimFunc):
    allocated: set = set()
    uses = _Uses()

    def visit(s: tir.Stmt, block: Optional[tir.Block] = None) -> None:
        if isinstance(s, tir.Block):
            allocated.update(b.data for b in s.alloc_buffers)
            block = s
        elif isinstance(s, tir.AllocBuffer):
            allocated.add(s.buffer.data)
        uses.stmt(s, block)
        for c in stmt_children(s):
            visit(c, block)

    visit(func.body)
    return allocated, uses


def _plain(func: tir.PrimFunc, allocated: set, uses: _Uses, outputs: FrozenSet[int]) -> FrozenSet[int]:
    cands = set(allocated)
    for i in outputs:
        buf = func.buffer_of(func.params[i])
        if buf is not None:
            cands.add(buf.data)
    products = {dv: [st for st in uses.stores.get(dv, ()) if _is_float_mul(st.value)
                     and st.value.dtype == st.buffer.dtype] for dv in cands}
    bounded = {dv for dv in allocated if "bad" not in uses.kinds.get(dv, ()) and uses.stores.get(dv) and all(
        isinstance(st.value, P.PrimCall) and canonical_name(st.value.op) in _BOUNDED for st in uses.stores[dv])}
    ok = set()
    for dv in cands:
        kinds = uses.kinds.get(dv, set())
        if "bad" in kinds:
            continue
        if "addend" in kinds and not all(_exact_scaling(st.value, bounded) for st in products[dv]):
            continue
        ok.add(dv)
    changed = True
    while changed:                  # a copy's source is plain only if every destination is
        changed = False
        for dv in list(ok):
            if any(d not in ok for d in uses.copies.get(dv, ())):
                ok.discard(dv)
                changed = True
    return frozenset(id(st) for dv in ok for st in products[dv])


def factor_params(func: tir.PrimFunc) -> FrozenSet[int]:
    """Indices of the buffer parameters of ``func`` that it never writes and reads only where a product
    needs no barrier (a factor, a sum's term, ``erf``'s argument): a caller's product passed there
    cannot meet a contraction in ``func``."""
    allocated, uses = _cached(func)
    out = set()
    for i, p in enumerate(func.params):
        buf = func.buffer_of(p)
        if buf is None or buf.data in uses.stores or buf.data in uses.copies:
            continue
        if uses.kinds.get(buf.data, set()) <= {"factor", "sum", "erf"}:
            out.add(i)
    return frozenset(out)


def factor_outputs(mod) -> Dict[int, FrozenSet[int]]:
    """``id`` of a ``call_tir`` call of ``mod``'s Relax functions -> the indices of its PrimFunc's output
    parameters whose result the function reads only through :func:`factor_params` of other
    ``call_tir`` calls (single-output calls; a result returned, put in a tuple or passed to anything
    else is not one of them). Cached per module."""
    hit = _MODS.get(id(mod))
    if hit is not None and hit[0]() is mod:
        return hit[1]
    from relax_ref.ir import expr as rx
    from relax_ref.ir import struct_info as si
    from relax_ref.ir.functor import ExprVisitor

    def callee(call):
        gv = call.args[0] if call.args else None
        if not isinstance(gv, rx.GlobalVar) or gv.name_hint not in mod:
            return None
        f = mod[gv.name_hint]
        return f if isinstance(f, tir.PrimFunc) else None

    class Uses(ExprVisitor):
        def __init__(self) -> None:
            self.total: Dict[int, int] = {}
            self.factor: Dict[int, int] = {}
            self.produced: Dict[int, tuple] = {}

        def visit_Var(self, v) -> None:
            self.total[id(v)] = self.total.get(id(v), 0) + 1

        visit_DataflowVar = visit_Var

        def visit_binding(self, b) -> None:
            v = b.value
            if isinstance(v, rx.Call) and isinstance(v.op, rx.Op) and v.op.name == "relax.call_tir" and \
                    len(v.args) >= 2 and isinstance(v.args[1], rx.Tuple):
                f = callee(v)
                if f is not None:
                    fp = factor_params(f)
                    for k, a in enumerate(v.args[1].fields):
                        if isinstance(a, rx.Var) and k in fp:
                            self.factor[id(a)] = self.factor.get(id(a), 0) + 1
                    if isinstance(b, rx.VarBinding) and len(v.sinfo_args) == 1 and \
                            isinstance(v.sinfo_args[0], si.TensorStructInfo):
                        self.produced[id(b.var)] = (id(v), len(v.args[1].fields))
            super().visit_binding(b)

    out: Dict[int, FrozenSet[int]] = {}
    for _, fn in mod.functions_items():
        if isinstance(fn, rx.Function):
            u = Uses()
            u.visit_expr(fn)
            for var, (call, index) in u.produced.items():
                if u.total.get(var, 0) and u.total.get(var, 0) == u.factor.get(var, 0):
                    out[call] = frozenset({index})
    _MODS[id(mod)] = (weakref.ref(mod), out)
    if len(_MODS) > 256:
        _MODS.clear()
    return out


_MODS: Dict[int, tuple] = {}


__all__ = ["plain_stores", "factor_params", "factor_outputs", "product_free"]
