"""What an executable keeps per Relax function: its plan (:class:`Plan`) and its compilations
(:class:`Compiled`).

A plan is made once per function, on its first call (:func:`make_plan`): the parameters' layouts
(:mod:`relax_jax.layouts`), the symbolic variables they bind, how each variable is bucketed
(:meth:`Plan.bucket`), the declared bounds of the signature (CALL.FUNC.7), the parameters its
in-place calls consume (CALL.INPLACE.6) and those the caller donates, and the compile caches keyed
by bucket signature (padded) or by exact shapes (LRU). A function that cannot be compiled at all
has its reason in ``host_reason`` and runs in host mode.
"""

from __future__ import annotations

import collections
import struct
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

import numpy as np

from relax_ref.errors import RelaxRuntimeError, UnsupportedError, no_function
from relax_ref.interp.bounds import declared_bounds, violates
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P

from .layouts import NotJittable, all_dims_bucketable, cache_tied_vars, has_kv, headroom_of, layout_of, sym_vars_of


@dataclass
class Compiled:
    """One compilation of a function (a bucket signature or an exact shape)."""

    fn: Callable[..., Any]
    out_spec: Any
    n_tensors: int
    has_code: bool
    builders: list
    mutated: List[Tuple[Tuple[int, ...], int]]   # (param path, index among the extra outputs; ~i: result leaf i)
    phys_shapes: list                            # physical shape of each tensor leaf argument
    hot: Any = None                              # its fast paths (hotpath), each made once
    hot_made: bool = False
    padded_hot: Any = None
    padded_hot_made: bool = False
    kv: list = field(default_factory=list)       # (param path, fill delta, rows needed, capacity after) per cache
    donated: Tuple[int, ...] = ()                # flat positions of the consumed in-place parameters (CALL.INPLACE.6)
    given: Tuple[Tuple[int, int], ...] = ()      # (flat position, parameter index) of the donate_argnums parameters
    paged: list = field(default_factory=list)    # (param path, token counts its attention calls need) per paged cache
    lifted: Tuple[int, ...] = ()                 # flat positions of the caches' fill counts and positions (plan.lift)
    pattern: Tuple[bool, bool] = (True, True)    # which of them the vector carries as one value (plan.lift_pattern)
    host: Optional[Callable[..., bool]] = None   # whether a check made before the call fails (host_checks)


@dataclass
class Plan:
    """A function's plan (see the module docstring)."""

    name: str
    func: rx.Function
    layouts: Optional[list] = None
    sym_vars: List[P.PrimVar] = field(default_factory=list)
    host_reason: Optional[str] = None           # set: always host mode
    bounds: list = field(default_factory=list)  # declared bounds of the signature (CALL.FUNC.7)
    bucketing: bool = True
    hot: Optional[Callable] = None                # the per-call fast path (hotpath.make_hot)
    padded_calls: "collections.OrderedDict" = field(default_factory=collections.OrderedDict)   # count_padded_call
    headroom: Dict[Any, int] = field(default_factory=dict)   # PrimVar -> c of a result extent ``var + c``
    buckets: Any = None
    consumed: Optional[FrozenSet[int]] = None     # parameters its in-place calls consume (CALL.INPLACE.6)
    cap_tied: FrozenSet[int] = frozenset()        # ids of the variables bucketed to the caches' capacity
    has_kv: bool = False                          # a cache among the parameters (the key holds plan.lift_pattern)
    donate: FrozenSet[int] = frozenset()          # the parameters the caller donates (donate_argnums)
    reserve: Optional[int] = None                 # the least bucket of a growing variable (Executable(reserve=))
    cache: Dict[Any, Any] = field(default_factory=dict)
    exact_cache: "collections.OrderedDict" = field(default_factory=collections.OrderedDict)

    def bucket(self, v: P.PrimVar, n: int, cap: Optional[int] = None) -> int:
        """The bucket of variable ``v`` at value ``n``: the bucket of ``n + c`` for the largest result
        extent ``v + c`` (growth-aware: a result one row longer, fed back as the next input, stays in
        the bucket), at least ``n``. A variable bound only by shape parameters of a function with cache
        parameters takes the caches' capacity ``cap`` (the least of them) while ``n + c`` fits in it:
        its compilation is then keyed by the capacity alone (layouts.cache_tied_vars). A growing variable
        (one with a result extent ``v + c``) takes at least the bucket of ``reserve`` when one is set."""
        c = self.headroom.get(v, 0)
        n = n + c
        if cap is not None and n <= cap and id(v) in self.cap_tied:
            return cap
        if c and self.reserve is not None and n <= self.reserve:
            return self.buckets(self.reserve)
        return self.buckets(n)

    def bucket_range(self, v: P.PrimVar, b: int, cap: Optional[int] = None) -> Optional[Tuple[int, int]]:
        """The values ``n`` (at the caches' capacity ``cap``) whose bucket is ``b``, as an interval ``(lo,
        hi)``; None when the bucket policy is a function of the caller's (not known to be monotone) or no
        value has bucket ``b``. Under the power-of-two and listed-size policies :meth:`bucket` is a
        non-decreasing function of ``n`` (the reserve's bucket is the bucket of a larger value; the
        capacity is the bucket of the values up to it, a larger value's bucket is larger), so the values
        of one bucket form an interval, found by bisection over ``0..b`` (a bucket is at least its
        value)."""
        if self.buckets is None or callable(self.buckets.policy):
            return None
        if b < 0 or self.bucket(v, b, cap) < b:
            return None
        lo, hi = 0, b                  # the least value whose bucket is at least b
        while lo < hi:
            mid = (lo + hi) // 2
            if self.bucket(v, mid, cap) >= b:
                hi = mid
            else:
                lo = mid + 1
        first = lo
        lo, hi = first, b              # the greatest value whose bucket is at most b
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.bucket(v, mid, cap) <= b:
                lo = mid
            else:
                hi = mid - 1
        if self.bucket(v, first, cap) != b or self.bucket(v, lo, cap) != b:
            return None
        return first, lo


#: the packed functions that only allocate: a paged KV cache with its zeroed page pool (CALL.PAGEDKV.1)
ALLOCATING = frozenset({"vm.builtin.paged_attention_kv_cache_create"})
#: the operators whose results are constants of static shape (the allocation's dtype witness)
CONSTANT_OPS = frozenset({"relax.zeros", "relax.ones"})


def _allocates(value: Any) -> Optional[bool]:
    """True: a call of an allocating packed function (:data:`ALLOCATING`); False: a constant of static
    shape (:data:`CONSTANT_OPS`), a tuple or a variable; None: anything else."""
    if isinstance(value, (rx.Var, rx.Tuple)):
        return False
    if not isinstance(value, rx.Call) or not isinstance(value.op, rx.Op):
        return None
    if value.op.name in CONSTANT_OPS:
        shape = value.args[0] if value.args else None
        static = isinstance(shape, rx.ShapeExpr) and all(isinstance(d, P.IntImm) for d in shape.values)
        return False if static else None
    if value.op.name == "relax.call_pure_packed" and value.args and isinstance(value.args[0], rx.ExternFunc) \
            and value.args[0].global_symbol in ALLOCATING:
        return True
    return None


def allocates_only(fn: rx.Function) -> bool:
    """Whether ``fn`` takes no parameter and its bindings only allocate (:func:`_allocates`: a paged
    cache's ``create``, the constants it takes, tuples of them), its result a variable or a tuple:
    nothing of it is computed on the device (TVM's VM calls the builtin at run time). It runs in host
    mode, without an XLA compilation of its own (compiled, a function that only made a cache's zeroed
    pool cost 40-70 ms of a small model's 1.2 s cold generation on a 2-core CPU)."""
    if fn.params or not isinstance(fn.body, rx.SeqExpr) or not isinstance(fn.body.body, (rx.Var, rx.Tuple)):
        return False
    found = False
    for block in fn.body.blocks:
        for b in block.bindings:
            kind = _allocates(b.value) if isinstance(b, rx.VarBinding) else None
            if kind is None:
                return False
            found = found or kind
    return found


def make_plan(mod: Any, entry: str, buckets: Any, reserve: Optional[int], donate: FrozenSet[int]) -> Plan:
    """The plan of function ``entry`` of ``mod`` (RelaxRuntimeError when there is none)."""
    if entry not in mod:
        raise RelaxRuntimeError(no_function(entry, mod))
    fn = mod[entry]
    if not isinstance(fn, rx.Function):
        raise UnsupportedError(f"'{entry}' is not a Relax function")
    p = Plan(entry, fn, bounds=declared_bounds(fn), donate=donate)
    try:
        p.layouts = [layout_of(q.struct_info) for q in fn.params]
        p.sym_vars = sym_vars_of(p.layouts)
        p.bucketing = buckets.enabled and all_dims_bucketable(p.layouts)
        p.buckets = buckets
        p.reserve = reserve if buckets.enabled else None
        p.headroom = headroom_of(fn.ret_struct_info, p.sym_vars)
        p.cap_tied = cache_tied_vars(p.layouts, p.sym_vars)
        p.has_kv = has_kv(p.layouts)
    except NotJittable as e:
        p.host_reason = str(e)
    if p.host_reason is None and allocates_only(fn):
        p.host_reason = "it only allocates (a cache's create): nothing to compile"
    return p


def pack_sym(values: Sequence[int]) -> np.ndarray:
    """The symbolic values as a compilation takes them: each ``int64`` value as its two ``int32`` halves
    (the bytes of an ``int64`` vector), so that passing them needs no 64-bit mode of JAX on the host
    (``jax.enable_x64``); :func:`unpack_sym` is the inverse inside the compiled function."""
    return np.asarray(values, np.int64).view(np.int32)


def sym_packer(n: int) -> Callable[[Sequence[int]], np.ndarray]:
    """:func:`pack_sym` of ``n`` values as one C-level packing (a fast path's fixed count; a value
    outside ``int64`` raises ``struct.error``)."""
    pack = sym_struct(n)
    return lambda values: np.frombuffer(pack(*values), np.int32)


def sym_struct(n: int) -> Callable[..., bytes]:
    """The bytes of :func:`pack_sym` of ``n`` values given as ``n`` arguments (``np.frombuffer(...,
    np.int32)`` of them is the vector; a fast path calls the two inline, without :func:`sym_packer`'s
    frame)."""
    return struct.Struct(f"={n}q").pack


def sym_spec(n: int) -> Any:
    """The abstract value of :func:`pack_sym` of ``n`` values."""
    import jax

    return jax.ShapeDtypeStruct((2 * n,), np.int32)


def unpack_sym(packed: Any, n: int) -> Any:
    """The ``int64`` vector of ``n`` symbolic values from :func:`pack_sym`'s halves (a bitcast, exact)."""
    from jax import lax

    return lax.bitcast_convert_type(packed.reshape(n, 2), np.int64)


def lift(flat: list, lifted: Tuple[int, ...]) -> Tuple[list, list]:
    """``flat`` without the integer scalars at the ascending positions ``lifted`` (the caches' fill
    counts and window positions, which travel in the :func:`pack_sym` vector after the symbolic values:
    one transfer per call instead of one per scalar), and their values."""
    values = [int(flat[i]) for i in lifted]
    for i in reversed(lifted):
        del flat[i]
    return flat, values


def restore(flat: Sequence[Any], lifted: Tuple[int, ...], scalars: Sequence[Any]) -> list:
    """The inverse of :func:`lift` inside the compiled function: ``scalars[j]`` back at ``lifted[j]``."""
    out = list(flat)
    for i, s in zip(lifted, scalars):
        out.insert(i, s)
    return out


def lift_pattern(scalars: Sequence[int]) -> Tuple[bool, bool]:
    """Whether the caches' fill counts are all equal, and whether their window positions are (``scalars``
    in :func:`lift`'s order: fill and position of each cache). Part of a compilation's key: where they
    are, the vector carries one value for all (:func:`lifted_values`), and every layer's kernels read
    the same element, so that XLA compiles one kernel for the same code of all layers (each layer
    reading an element of its own, no two layers' kernels are the same computation)."""
    fills, positions = scalars[0::2], scalars[1::2]
    return fills.count(fills[0]) == len(fills) if fills else True, \
        positions.count(positions[0]) == len(positions) if positions else True


def lifted_values(scalars: Sequence[int], pattern: Tuple[bool, bool]) -> list:
    """The lifted values as the vector carries them under ``pattern`` (:func:`lift_pattern`): the fill
    counts, then the positions, each kind as one value where it is all equal."""
    fills, positions = list(scalars[0::2]), list(scalars[1::2])
    return (fills[:1] if pattern[0] else fills) + (positions[:1] if pattern[1] else positions)


def lifted_slots(n: int, pattern: Tuple[bool, bool]) -> Tuple[int, ...]:
    """For each of the ``n`` lifted scalars (:func:`lift`'s order), its index among
    :func:`lifted_values`: the inverse inside the compiled function."""
    n_fills = 1 if pattern[0] else n // 2
    out = []
    for j in range(n):
        cache, is_pos = divmod(j, 2)
        k = 0 if pattern[is_pos] else cache             # (one value for all caches: the first)
        out.append(n_fills + k if is_pos else k)
    return tuple(out)


def shifted(positions: Sequence[int], lifted: Tuple[int, ...]) -> Tuple[int, ...]:
    """Flat positions (none of them lifted) as they are once ``lifted`` are taken out (:func:`lift`)."""
    return tuple(p - sum(1 for i in lifted if i < p) for p in positions)


def out_of_bounds(plan: Plan, sym: Dict[P.PrimVar, int]) -> bool:
    """Whether a symbolic variable breaks its declared bound (CALL.FUNC.7): host mode reports it."""
    return any(b.var in sym and violates(b, int(sym[b.var])) for b in plan.bounds)


__all__ = ["Compiled", "Plan", "lift", "lift_pattern", "lifted_slots", "lifted_values", "make_plan", "out_of_bounds", "pack_sym", "restore", "shifted", "sym_packer",
           "sym_spec", "sym_struct", "unpack_sym"]
