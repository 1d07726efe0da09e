"""The executable: host-side argument checks, bucketing, the compile cache, dispatch and results.

Calling ``exe(entry, *args)``:

1. **Entry checks on the host** (EVAL.CHECK.*, CALL.FUNC.2). A precompiled fast path compares ranks,
   dtypes and dimensions of the arguments with the parameters' struct info and binds the symbolic
   variables; whenever it cannot decide, or finds a mismatch, the reference interpreter's
   :class:`~relax_ref.interp.checks.Matcher` decides and raises the reference's error.
2. **Bucket signature.** Each symbolic variable's value is rounded up to its bucket
   (:class:`~relax_jax.symbolic.ShapeBuckets`). The compiled function is keyed by the buckets (plus the
   static facts of parameters without a symbolic shape); the actual values are passed as one traced
   ``int64`` vector, so every size in a bucket shares one compilation.
3. **Compile** (on a cache miss): trace the function with :class:`~relax_jax.walker.Walker` in traced mode
   and compile it with ``jax.jit`` for the executable's device. If an operation cannot be made exact
   on padded arrays (:class:`~relax_jax.errors.NeedsExact`) the function switches to exact-shape
   compilation (one per distinct shape, LRU-cached). If tracing meets a host-only construct
   (:class:`~relax_jax.errors.TraceAbort`) the call runs in host mode (for good when the construct does
   not depend on shapes).
4. **Run.** Tensor arguments are padded to their buckets (on the host, without per-shape compiles),
   the compiled function runs; if its error code is set, the call is evaluated again in host mode,
   which raises the reference's error at the right place. Padded results are cut to their logical
   shape.

``exe.stats`` counts compilations, cache hits, exact-shape fallbacks, host-mode calls and error
re-runs.
"""

from __future__ import annotations

import collections
import functools
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import SingleDeviceSharding

from relax_ref.errors import (
    PackedFuncError, RelaxError, RelaxRuntimeError, TypeMismatchError, UnsupportedError,
)
from relax_ref.interp import values as rv
from relax_ref.interp.builtins import STATIC_BUILTINS, from_host, global_func, wrap_host_function
from relax_ref.ir import dtype as _dt
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.module import IRModule

from .errors import ErrorSink, NeedsExact, TraceAbort
from .hotpath import MISS as _MISS
from .hotpath import make_hot, make_padded_hot
from .symbolic import ShapeBuckets, eval_sym, is_monotone
from .values import ClosureV, PackedV, PrimFuncV, PrimV, ShapeV, SymInt, TVal
from .walker import Walker, flatten, unflatten

#: default number of exact-shape compilations kept per function
EXACT_CACHE_SIZE = 32
#: a padded shape seen this many times gets its own exact compilation (None: never)
SPECIALIZE_AFTER = 32


@dataclass
class Stats:
    """Counters of an :class:`Executable` (all functions together).

    ``compiles``: XLA compilations of Relax functions; ``cache_hits``: calls that reused one;
    ``fallbacks``: functions switched to exact-shape compilation because an operation was not exact
    under padding; ``host_calls``: calls evaluated in host mode; ``error_reruns``: compiled calls
    whose error code was set and that were re-run in host mode; ``kernel_compiles``: PrimFunc kernels
    compiled for host mode; ``specializations``: exact-shape compilations of a shape that recurred
    ``specialize_after`` times in a bucket (counted in ``compiles`` too); ``host_pads``: arguments
    padded to their bucket through host memory; ``reused_pads``: arguments passed as the padded
    buffer they were cut from (``reuse_padded``)."""

    compiles: int = 0
    cache_hits: int = 0
    fallbacks: int = 0
    host_calls: int = 0
    error_reruns: int = 0
    kernel_compiles: int = 0
    specializations: int = 0
    host_pads: int = 0
    reused_pads: int = 0

    def as_dict(self) -> dict:
        return dict(self.__dict__)


# ---------------------------------------------------------------------------------------------------
# Parameter layouts
# ---------------------------------------------------------------------------------------------------


class _NotJittable(Exception):
    pass


@dataclass
class _TensorParam:
    dims: Optional[Tuple[P.PrimExpr, ...]]  # None: unknown shape (static in the key)
    ndim: int
    dtype: str                              # "void": dtype taken from the argument (in the key)


@dataclass
class _PrimParam:
    dtype: str
    value: Optional[P.PrimExpr]


@dataclass
class _ShapeParam:
    values: Optional[Tuple[P.PrimExpr, ...]]
    ndim: int


@dataclass
class _TupleParam:
    fields: Tuple[Any, ...]


def _layout(s: Optional[si.StructInfo]) -> Any:
    if isinstance(s, si.TensorStructInfo):
        if isinstance(s.shape, rx.ShapeExpr):
            return _TensorParam(tuple(s.shape.values), len(s.shape.values), s.dtype)
        if s.shape is not None:
            raise _NotJittable("a tensor parameter whose shape is a shape variable")
        return _TensorParam(None, s.ndim, s.dtype)
    if isinstance(s, si.PrimStructInfo):
        if s.dtype == "void":
            raise _NotJittable("a prim parameter of unknown dtype")
        return _PrimParam(s.dtype, s.value)
    if isinstance(s, si.ShapeStructInfo):
        return _ShapeParam(s.values, s.ndim)
    if isinstance(s, si.TupleStructInfo):
        return _TupleParam(tuple(_layout(f) for f in s.fields))
    raise _NotJittable(f"a parameter of struct info {type(s).__name__}")


def _sym_vars_of(layouts) -> List[P.PrimVar]:
    """Symbolic variables bound bare by the parameters, in binding order."""
    out: List[P.PrimVar] = []

    def visit(l):
        if isinstance(l, _TensorParam) and l.dims is not None:
            for d in l.dims:
                if isinstance(d, P.PrimVar) and all(d is not x for x in out):
                    out.append(d)
        elif isinstance(l, _PrimParam) and isinstance(l.value, P.PrimVar):
            if all(l.value is not x for x in out):
                out.append(l.value)
        elif isinstance(l, _ShapeParam) and l.values is not None:
            for d in l.values:
                if isinstance(d, P.PrimVar) and all(d is not x for x in out):
                    out.append(d)
        elif isinstance(l, _TupleParam):
            for f in l.fields:
                visit(f)
    for l in layouts:
        visit(l)
    return out


def _headroom(ret: Optional[si.StructInfo], sym_vars) -> Dict[Any, int]:
    """For each parameter variable ``v``, the largest ``c > 0`` of a result extent ``v + c``."""
    out: Dict[Any, int] = {}
    ids = {id(v): v for v in sym_vars}

    def visit(s):
        if isinstance(s, si.TensorStructInfo) and isinstance(s.shape, rx.ShapeExpr):
            for d in s.shape.values:
                if isinstance(d, P.Add):
                    a, b = d.a, d.b
                    if isinstance(b, P.PrimVar) and isinstance(a, P.IntImm):
                        a, b = b, a
                    if isinstance(a, P.PrimVar) and id(a) in ids and isinstance(b, P.IntImm) and 0 < b.value <= 64:
                        out[a] = max(out.get(a, 0), int(b.value))
        elif isinstance(s, si.TupleStructInfo):
            for f in s.fields:
                visit(f)
    visit(ret)
    return out


def _all_dims_bucketable(layouts) -> bool:
    ok = True

    def visit(l):
        nonlocal ok
        if isinstance(l, _TensorParam) and l.dims is not None:
            for d in l.dims:
                if not isinstance(d, (P.IntImm, P.PrimVar)) and not is_monotone(d):
                    ok = False
        elif isinstance(l, _TupleParam):
            for f in l.fields:
                visit(f)
    for l in layouts:
        visit(l)
    return ok


# ---------------------------------------------------------------------------------------------------
# Compiled entries
# ---------------------------------------------------------------------------------------------------


@dataclass
class _Compiled:
    fn: Callable[..., Any]
    out_spec: Any
    n_tensors: int
    has_code: bool
    builders: list
    mutated: List[Tuple[Tuple[int, ...], int]]   # (param path, index among outputs)
    phys_shapes: list                            # physical shape of each tensor leaf argument
    hot: Any = None                              # its fast paths (hotpath), each made once
    hot_made: bool = False
    padded_hot: Any = None
    padded_hot_made: bool = False


_HOST = "host"


@dataclass
class _Plan:
    name: str
    func: rx.Function
    layouts: Optional[list] = None
    sym_vars: List[P.PrimVar] = field(default_factory=list)
    host_reason: Optional[str] = None           # set: always host mode
    bucketing: bool = True
    hot: Optional[Callable] = None                # the per-call fast path (hotpath.make_hot)
    padded_calls: Dict[Any, int] = field(default_factory=dict)
    headroom: Dict[Any, int] = field(default_factory=dict)   # PrimVar -> c of a result extent ``var + c``
    buckets: Any = None

    def bucket(self, v: P.PrimVar, n: int) -> int:
        """The bucket of variable ``v`` at value ``n``: the bucket of ``n + c`` for the largest result
        extent ``v + c`` (growth-aware: a result one row longer, fed back as the next input, stays in
        the bucket), at least ``n``."""
        return self.buckets(n + self.headroom.get(v, 0))
    cache: Dict[Any, Any] = field(default_factory=dict)
    exact_cache: "collections.OrderedDict" = field(default_factory=collections.OrderedDict)


# ---------------------------------------------------------------------------------------------------
# The executable
# ---------------------------------------------------------------------------------------------------


class Executable:
    """A compiled IRModule. See :func:`relax_jax.compile`."""

    def __init__(self, mod: IRModule, *, device: Any = None, shape_buckets: Any = "pow2",
                 exact_cache_size: int = EXACT_CACHE_SIZE, stdout: Any = None,
                 specialize_after: Optional[int] = SPECIALIZE_AFTER, reuse_padded: bool = True,
                 pad_poison: bool = False) -> None:
        from . import ops as _ops  # noqa: F401 - registers the lowerings
        from .lowering import install

        if isinstance(mod, str):
            import relax_ref

            mod = relax_ref.parse(mod)
        if not isinstance(mod, IRModule):
            raise TypeMismatchError(f"relax_jax.compile expects an IRModule, got {type(mod).__name__}")
        install()
        self.mod = mod
        if device is None:
            device = jax.devices("cpu")[0]
        elif isinstance(device, str):
            device = jax.devices(device)[0]
        self.device = device
        self.sharding = SingleDeviceSharding(device)
        self.buckets = ShapeBuckets(shape_buckets)
        self.exact_cache_size = int(exact_cache_size)
        self.specialize_after = specialize_after
        self.stats = Stats()
        self._plans: Dict[str, _Plan] = {}
        self._packed: Dict[str, PackedV] = {}
        self._kernels: Dict[Any, Any] = {}
        self._inferred: Dict[int, Any] = {}
        #: why a function compiles for exact shapes (or runs on the host), by function name
        self.fallback_reasons: Dict[str, str] = {}
        self._lock = threading.RLock()
        self.stdout = stdout
        #: keep the padded buffer of each result cut to its logical shape, and pass that buffer
        #: instead of padding again when the result comes back as an argument of the same bucket
        self.reuse_padded = bool(reuse_padded)
        #: fill padding with junk (NaN, the integer maximum, True) instead of zeros: a check that no
        #: result depends on what lies beyond the logical extents
        self.pad_poison = bool(pad_poison)
        self._padded_src: Dict[int, Tuple[Any, Any]] = {}

    def _print(self, text: str) -> None:
        import sys

        out = self.stdout if self.stdout is not None else sys.stdout
        out.write(text + "\n")

    # -- packed functions --------------------------------------------------------------------------------

    def register_func(self, name: str, fn: Optional[Callable[..., Any]] = None):
        """Register a host function as packed function ``name`` for this executable (CALL.PACKED.2)."""
        if fn is None:
            return lambda f: self.register_func(name, f)
        p = wrap_host_function(name, fn)
        self._packed[name] = PackedV(name, p.fn)
        return fn

    def lookup_packed(self, name: str, span=None) -> PackedV:
        v = self._packed.get(name)
        if v is not None:
            return v
        native = _native_builtins().get(name)
        if native is not None:
            return native
        f = global_func(name) or STATIC_BUILTINS.get(name)
        if f is None:
            raise PackedFuncError(f"packed function '{name}' is not registered", span)
        return PackedV(name, f.fn)

    # -- plans ---------------------------------------------------------------------------------------------

    def _plan(self, entry: str) -> _Plan:
        p = self._plans.get(entry)
        if p is not None:
            return p
        if entry not in self.mod:
            raise RelaxRuntimeError(f"module has no function named '{entry}'")
        fn = self.mod[entry]
        if not isinstance(fn, rx.Function):
            raise UnsupportedError(f"'{entry}' is not a Relax function")
        p = _Plan(entry, fn)
        try:
            p.layouts = [_layout(q.struct_info) for q in fn.params]
            p.sym_vars = _sym_vars_of(p.layouts)
            p.bucketing = self.buckets.enabled and _all_dims_bucketable(p.layouts)
            p.buckets = self.buckets
            p.headroom = _headroom(fn.ret_struct_info, p.sym_vars)
        except _NotJittable as e:
            p.host_reason = str(e)
        self._plans[entry] = p
        return p

    # -- calling -------------------------------------------------------------------------------------------

    def __call__(self, entry: str = "main", *args: Any) -> Any:
        plan = self._plans.get(entry)
        if plan is not None and plan.hot is not None:
            r = plan.hot(args)
            if r is not _MISS:
                return r
        with jax.enable_x64(True):
            return self._call(entry, args)

    def run(self, entry: str = "main", *args: Any) -> Any:
        return self(entry, *args)

    def _call(self, entry: str, args: Sequence[Any]) -> Any:
        if entry not in self.mod:
            raise RelaxRuntimeError(f"module has no function named '{entry}'")
        fn = self.mod[entry]
        if isinstance(fn, tir.PrimFunc):
            return self._call_prim_func_entry(entry, fn, args)
        if not isinstance(fn, rx.Function):
            raise UnsupportedError(f"'{entry}' is not a Relax function")
        if any(isinstance(a, jax.core.Tracer) for a in jax.tree_util.tree_leaves(list(args))):
            # called inside a JAX transformation: trace the function (as_jax_function) instead of
            # dispatching a compiled executable, which cannot take traced values
            return self.as_jax_function(entry)(*args)
        plan = self._plan(entry)
        if plan.host_reason is not None or len(args) != len(fn.params):
            return self._host_call(plan, args)
        sym = self._fast_bind(plan, args)
        if sym is None:
            return self._host_call(plan, args)
        return self._dispatch(plan, args, sym)

    # -- host mode -------------------------------------------------------------------------------------------

    def _import(self, a: Any, s: Optional[si.StructInfo]) -> Any:
        """A user argument as an executor value (VAL.HOST.1, CALL.HOST.1)."""
        if isinstance(a, jax.Array):
            return TVal(jax.device_put(a, self.device))
        if isinstance(a, (TVal, PrimV, ShapeV, ClosureV, PackedV, PrimFuncV)):
            return a
        v = from_host(a, s)
        return self._import_ref(v, s)

    def _import_ref(self, v: Any, s: Optional[si.StructInfo]) -> Any:
        if isinstance(v, np.ndarray):
            return TVal(jax.device_put(v, self.device))
        if isinstance(v, rv.ShapeValue):
            return ShapeV(v)
        if isinstance(v, rv.PrimScalar):
            return PrimV(v.value, v.dtype, SymInt.static(v.value) if _dt.is_integer(v.dtype) else None)
        if isinstance(v, tuple):
            fields = s.fields if isinstance(s, si.TupleStructInfo) and len(s.fields) == len(v) else [None] * len(v)
            return tuple(self._import(x, f) for x, f in zip(v, fields))
        if isinstance(v, rv.PackedFunc):
            return PackedV(v.name, v.fn)
        if isinstance(v, rv.Closure):
            return ClosureV(v.func, {}, v.name)
        return v

    def _host_call(self, plan: _Plan, args: Sequence[Any], reraise_only: bool = False) -> Any:
        """Evaluate in host mode (``reraise_only``: a compiled call failed; find its error)."""
        self.stats.host_calls += 1
        fn = plan.func
        vals = []
        for i, a in enumerate(args):
            p = fn.params[i] if i < len(fn.params) else None
            try:
                vals.append(self._import(a, p.struct_info if p is not None else None))
            except RelaxError as e:
                if getattr(e, "site", "") is None:
                    e.site = "param"
                raise e.with_context(function=plan.name, binding=p.name_hint if p is not None else None)
        originals = [(a, v, v.data) for a, v in zip(args, vals) if isinstance(a, np.ndarray) and isinstance(v, TVal)]
        walker = Walker(self, "host", ErrorSink(False))
        result = walker.call_closure(ClosureV(fn, {}, plan.name, (), plan.name), vals, None)
        for a, v, data in originals:
            if v.data is not data and a.flags.writeable and tuple(v.data.shape) == a.shape:
                np.copyto(a, np.asarray(v.data))   # in-place semantics for numpy arguments
        if reraise_only:
            raise RelaxRuntimeError(f"function '{plan.name}': compiled code reported a run-time error that "
                                    "host evaluation did not reproduce")
        return self._export(result)

    def _host_call_global(self, name: str, args: List[Any], walker: Walker) -> Any:
        """A global function called from host mode: dispatch to its compiled form when possible.
        Returns NotImplemented to let the caller evaluate it on the host."""
        plan = self._plan(name)
        if plan.host_reason is not None:
            return NotImplemented
        if not all(_exportable_arg(a) for a in args) or len(args) != len(plan.func.params):
            return NotImplemented
        host_args = [_to_user(a) for a in args]
        sym = self._fast_bind(plan, host_args)
        if sym is None:
            return NotImplemented
        try:
            r = self._dispatch(plan, host_args, sym, keep_boxes=args)
        except _UseHost:
            return NotImplemented
        return r

    # -- fast entry checks -------------------------------------------------------------------------------

    def _fast_bind(self, plan: _Plan, args: Sequence[Any]) -> Optional[Dict[P.PrimVar, int]]:
        """Bind symbolic variables from the arguments when every check passes; None when the
        reference checker has to decide (a mismatch, or an argument that needs conversion)."""
        sym: Dict[P.PrimVar, int] = {}
        pending: list = []
        for a, l in zip(args, plan.layouts):
            if not _fast(a, l, sym, pending):
                return None
        for e, n in pending:
            try:
                from relax_ref.arith.evaluate import eval_prim

                if int(eval_prim(e, sym)) != n:
                    return None
            except RelaxError:
                return None
        return sym

    # -- dispatch ------------------------------------------------------------------------------------------

    def _key(self, plan: _Plan, args: Sequence[Any], sym: Dict, bucketing: bool) -> Tuple:
        if bucketing:
            vals = tuple(plan.bucket(v, sym[v]) for v in plan.sym_vars)
        else:
            vals = tuple(sym[v] for v in plan.sym_vars)
        extras: list = []
        for a, l in zip(args, plan.layouts):
            _static_facts(a, l, extras, bucketing)
        return (bucketing, vals, tuple(extras))

    def _dispatch(self, plan: _Plan, args: Sequence[Any], sym: Dict, keep_boxes=None) -> Any:
        with self._lock:
            bucketing = plan.bucketing
            key = self._key(plan, args, sym, bucketing)
            c = plan.cache.get(key) if bucketing else plan.exact_cache.get(key)
            if c is None:
                c = self._compile(plan, args, sym, key, bucketing)
                if c is _FALLBACK:
                    bucketing = False
                    key = self._key(plan, args, sym, False)
                    c = plan.exact_cache.get(key)
                    if c is None:
                        c = self._compile(plan, args, sym, key, False)
                    else:
                        self.stats.cache_hits += 1
            else:
                self.stats.cache_hits += 1
                if not bucketing:
                    plan.exact_cache.move_to_end(key)
            if bucketing and self.specialize_after and isinstance(c, _Compiled) and \
                    _needs_padding(args, plan.layouts, c.phys_shapes):
                # a shape that keeps coming back gets its own exact compilation (no padding, no
                # host-side cutting of the results)
                ekey = self._key(plan, args, sym, False)
                ec = plan.exact_cache.get(ekey)
                if ec is None:
                    n = plan.padded_calls.get(ekey, 0) + 1
                    plan.padded_calls[ekey] = n
                    if n >= self.specialize_after:
                        ec = self._compile(plan, args, sym, ekey, False)
                        if isinstance(ec, _Compiled):
                            self.stats.specializations += 1
                if isinstance(ec, _Compiled):
                    c, key, bucketing = ec, ekey, False
        if c is _HOST or plan.host_reason is not None:
            if keep_boxes is not None:
                raise _UseHost()
            return self._host_call(plan, args)
        if keep_boxes is None:
            if bucketing and _needs_padding(args, plan.layouts, c.phys_shapes):
                if not c.padded_hot_made:
                    c.padded_hot, c.padded_hot_made = make_padded_hot(self, plan, c, key), True
                plan.hot = c.padded_hot
            else:
                if not c.hot_made:
                    c.hot, c.hot_made = make_hot(self, plan, c, bucketing, key), True
                plan.hot = c.hot
        flat: list = []
        _flat(args, plan.layouts, iter(c.phys_shapes), flat, self._pad_arg)
        if plan.sym_vars:
            flat.append(np.asarray([sym[v] for v in plan.sym_vars], np.int64))
        out = c.fn(*flat)
        if c.has_code:
            code = int(np.asarray(out[-1]))
            if code != 0:
                self.stats.error_reruns += 1
                if keep_boxes is not None:
                    raise _UseHost()
                self._host_call(plan, args, reraise_only=True)
            out = out[:-1]
        n_mut = len(c.mutated)
        leaves = list(out[:len(out) - n_mut]) if n_mut else list(out)
        if n_mut:
            muts = out[len(out) - n_mut:]
            self._write_back(args, keep_boxes, c.mutated, muts)
        value = unflatten(c.out_spec, leaves)
        if keep_boxes is not None:
            return _unpad_value(value, self.device)
        return self._export(value, sym)

    def _write_back(self, args, boxes, mutated, muts) -> None:
        for (path, _), new in zip(mutated, muts):
            target_user = _get_path(args, path)
            if boxes is not None:
                box = _get_path(boxes, path)
                box.data = _cut(new, box.data.shape)
            elif isinstance(target_user, np.ndarray) and target_user.flags.writeable:
                np.copyto(target_user, np.asarray(_cut(new, target_user.shape)))

    # -- compilation -----------------------------------------------------------------------------------------

    def _compile(self, plan: _Plan, args: Sequence[Any], sym: Dict, key: Tuple, bucketing: bool) -> Any:
        cache = plan.cache if bucketing else plan.exact_cache
        try:
            c = self._trace_and_compile(plan, args, sym, bucketing)
        except NeedsExact as e:
            if not bucketing:
                cache[key] = _HOST
                self.fallback_reasons[plan.name] = f"exact shapes failed too: {e.reason}"
                return _HOST
            plan.bucketing = False
            self.stats.fallbacks += 1
            self.fallback_reasons[plan.name] = e.reason
            return _FALLBACK
        except TraceAbort as e:
            if e.permanent:
                plan.host_reason = e.reason
            self.fallback_reasons[plan.name] = f"host mode: {e.reason}"
            cache[key] = _HOST
            return _HOST
        except RelaxError:
            cache[key] = _HOST
            return _HOST
        cache[key] = c
        if not bucketing:
            while len(plan.exact_cache) > self.exact_cache_size:
                plan.exact_cache.popitem(last=False)
        self.stats.compiles += 1
        return c

    def _trace_and_compile(self, plan: _Plan, args: Sequence[Any], sym: Dict, bucketing: bool) -> _Compiled:
        func = plan.func
        buckets = self.buckets if bucketing else None
        phys_shapes: list = []
        specs: list = []
        builders_box: list = []
        _arg_specs(args, plan.layouts, (lambda v: plan.bucket(v, sym[v])) if bucketing else None, sym, phys_shapes,
                   specs)
        nsym = len(plan.sym_vars)
        if nsym:
            specs.append(jax.ShapeDtypeStruct((nsym,), np.int64))
        record: dict = {}

        def traced(*flat):
            sink = ErrorSink(True)
            walker = Walker(self, "traced", sink)
            if bucketing:
                walker.var_bounds = {v: plan.bucket(v, sym[v]) - plan.headroom.get(v, 0) for v in plan.sym_vars}
            symvec = flat[-1] if nsym else None
            senv: Dict[P.PrimVar, SymInt] = {}
            for i, v in enumerate(plan.sym_vars):
                if bucketing:
                    senv[v] = SymInt(plan.bucket(v, sym[v]), symvec[i], v)
                else:
                    senv[v] = SymInt.static(sym[v], v)
            it = iter(flat[:len(flat) - (1 if nsym else 0)])
            params = [_rebuild(a, l, it, senv, bucketing) for a, l in zip(args, plan.layouts)]
            originals = _param_leaves(params)
            result = walker.run_entry(func, plan.name, params, senv)
            leaves, spec = flatten(result)
            mutated = []
            mut_leaves = []
            for path, box, orig in originals:
                if box.data is not orig:
                    mutated.append((path, len(mut_leaves)))
                    mut_leaves.append(box.data)
            record["spec"] = spec
            record["mutated"] = mutated
            record["has_code"] = sink.has_checks
            builders_box.extend(sink.builders)
            outs = list(leaves) + mut_leaves
            if sink.has_checks:
                outs.append(jnp.asarray(sink.code, jnp.int32))
            return tuple(outs)

        jitted = jax.jit(traced, in_shardings=self.sharding, out_shardings=self.sharding)
        lowered = jitted.lower(*specs)
        compiled = lowered.compile()
        return _Compiled(compiled, record["spec"], 0, record["has_code"], builders_box, record["mutated"],
                         phys_shapes)

    # -- results -----------------------------------------------------------------------------------------------

    def _pad_arg(self, a: Any, shape: Tuple[int, ...]) -> Any:
        """Argument ``a`` at physical ``shape``: itself, the padded buffer it was cut from
        (``reuse_padded``), or a padded host copy."""
        if tuple(a.shape) == shape:
            return a
        src = self._padded_src.get(id(a))
        if src is not None and src[0]() is a and tuple(src[1].shape) == shape:
            self.stats.reused_pads += 1
            return src[1]
        self.stats.host_pads += 1
        return _pad_to(a, shape, self.pad_poison)

    def _export(self, v: Any, sym: Optional[Dict[P.PrimVar, int]] = None) -> Any:
        """The public form of a result: JAX arrays cut to their logical shape, shapes as ShapeValue,
        prim values as Python scalars (the reference's ``to_public``)."""
        cuts: Dict[int, Any] = {}
        pending: List[Tuple[TVal, Tuple[int, ...]]] = []
        _collect_cuts(v, pending, set(), sym)
        if pending:
            for (t, _), a in zip(pending, self._cut_results([(t.data, shape) for t, shape in pending])):
                cuts[id(t)] = a
        return self._export_rec(v, cuts)

    def _cut_results(self, items: Sequence[Tuple[Any, Tuple[int, ...]]]) -> List[Any]:
        """Padded result buffers cut to their logical shapes. The cut goes through host memory (slicing
        on the device would compile one XLA slice per logical shape); on the CPU the cut of the leading
        axis is a read-only view of the padded buffer and becomes the result without a copy. With
        ``reuse_padded`` each result remembers its padded buffer."""
        host = [np.asarray(data)[tuple(slice(0, n) for n in shape)] for data, shape in items]
        out = _views_to_device(host, self.device, self.sharding)
        if self.reuse_padded:
            for (data, _), a in zip(items, out):
                self._remember_padded(a, data)
        return out

    def _remember_padded(self, result: Any, padded: Any) -> None:
        import weakref

        key = id(result)
        table = self._padded_src

        def forget(_ref, key=key, table=table):
            ent = table.get(key)
            if ent is not None and ent[0] is _ref:
                del table[key]

        table[key] = (weakref.ref(result, forget), padded)

    def _export_rec(self, v: Any, cuts: Dict[int, Any]) -> Any:
        if isinstance(v, TVal):
            got = cuts.get(id(v))
            return got if got is not None else v.data
        if isinstance(v, ShapeV):
            return rv.ShapeValue(int(np.asarray(d.val)) for d in v)
        if isinstance(v, PrimV):
            val = v.val
            if not isinstance(val, (bool, int, float, np.generic)):
                val = np.asarray(val).item()
            return rv.PrimScalar(val, v.dtype).value
        if isinstance(v, tuple):
            return tuple(self._export_rec(x, cuts) for x in v)
        if isinstance(v, rv.DTypeValue):
            return v.name
        if isinstance(v, ClosureV):
            return rv.Closure(v.func, {}, {}, v.name)
        if isinstance(v, PackedV):
            return rv.PackedFunc(v.name, v.fn)
        if isinstance(v, PrimFuncV):
            return rv.PrimFuncRef(v.name, v.func)
        return v

    # -- PrimFunc entries ---------------------------------------------------------------------------------------

    def _call_prim_func_entry(self, name: str, func: tir.PrimFunc, args: Sequence[Any]) -> Any:
        from .tir.call import call_prim_func_in_place

        self.stats.host_calls += 1
        boxes = [self._import(a, None) for a in args]
        walker = Walker(self, "host", ErrorSink(False))
        call_prim_func_in_place(walker, PrimFuncV(name, func), boxes, None)
        for a, b in zip(args, boxes):
            if isinstance(a, np.ndarray) and isinstance(b, TVal) and a.flags.writeable:
                np.copyto(a, np.asarray(b.data))
        return None

    # -- JAX function view ------------------------------------------------------------------------------------

    def as_jax_function(self, entry: str = "main", *, checks: str = "raise") -> Callable[..., Any]:
        """``entry`` as a pure function of JAX arrays, usable inside ``jax.jit``, ``jax.grad`` and
        ``jax.vmap`` (see :func:`relax_jax.as_jax_function`)."""
        from .jaxfn import make_jax_function

        return make_jax_function(self, entry, checks)


class _UseHost(Exception):
    pass


_FALLBACK = object()


# ---------------------------------------------------------------------------------------------------
# Argument handling
# ---------------------------------------------------------------------------------------------------


def _prim_val(a: Any) -> Any:
    return a.value if isinstance(a, rv.PrimScalar) else a


_DTYPE_NAMES: Dict[Any, Optional[str]] = {}


def _np_dtype_name(dt) -> Optional[str]:
    name = _DTYPE_NAMES.get(dt, _DTYPE_NAMES)
    if name is not _DTYPE_NAMES:
        return name
    try:
        name = _dt.from_numpy(np.dtype(dt))
    except Exception:  # noqa: BLE001 - a foreign dtype: the reference checker reports it
        name = None
    _DTYPE_NAMES[dt] = name
    return name


def _fast(a: Any, l: Any, sym: Dict, pending: list) -> bool:
    if isinstance(l, _TensorParam):
        if not isinstance(a, (np.ndarray, jax.Array)):
            return False
        shape = a.shape
        if l.ndim != -1 and len(shape) != l.ndim:
            return False
        if l.dtype != "void" and _np_dtype_name(a.dtype) != l.dtype:
            return False  # noqa: SIM103
        if l.dims is not None:
            for d, n in zip(l.dims, shape):
                if isinstance(d, P.IntImm):
                    if d.value != n:
                        return False
                elif isinstance(d, P.PrimVar):
                    b = sym.get(d)
                    if b is None:
                        sym[d] = int(n)
                    elif b != n:
                        return False
                else:
                    pending.append((d, int(n)))
        return True
    if isinstance(l, _PrimParam):
        if isinstance(a, rv.PrimScalar):
            if a.dtype != l.dtype:
                return False
            a = a.value
        if isinstance(a, bool) or not isinstance(a, (int, float, np.generic)):
            return False
        if isinstance(a, np.generic):
            dn = _np_dtype_name(a.dtype)
            if dn != l.dtype:
                return False
        elif isinstance(a, float) and not _dt.is_float(l.dtype):
            return False
        if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
            if not (_dt.is_integer(l.dtype) or _dt.is_float(l.dtype)):
                return False
        if l.value is not None:
            if not _dt.is_integer(l.dtype):
                return False
            v = int(a)
            if isinstance(l.value, P.IntImm):
                return l.value.value == v
            if isinstance(l.value, P.PrimVar):
                b = sym.get(l.value)
                if b is None:
                    sym[l.value] = v
                    return True
                return b == v
            pending.append((l.value, v))
        return True
    if isinstance(l, _ShapeParam):
        if isinstance(a, rv.ShapeValue):
            vals = tuple(a)
        elif isinstance(a, (tuple, list)) and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                                                   for x in a):
            vals = tuple(int(x) for x in a)
        else:
            return False
        if l.ndim != -1 and len(vals) != l.ndim:
            return False
        if l.values is not None:
            for d, n in zip(l.values, vals):
                if isinstance(d, P.IntImm):
                    if d.value != n:
                        return False
                elif isinstance(d, P.PrimVar):
                    b = sym.get(d)
                    if b is None:
                        sym[d] = n
                    elif b != n:
                        return False
                else:
                    pending.append((d, n))
        return True
    if isinstance(l, _TupleParam):
        if not isinstance(a, (tuple, list)) or isinstance(a, rv.ShapeValue) or len(a) != len(l.fields):
            return False
        return all(_fast(x, f, sym, pending) for x, f in zip(a, l.fields))
    return False


def _static_facts(a: Any, l: Any, out: list, bucketing: bool) -> None:
    if isinstance(l, _TensorParam):
        if l.dims is None:
            out.append(tuple(a.shape))
        if l.dtype == "void":
            out.append(str(np.dtype(a.dtype)))
    elif isinstance(l, _PrimParam):
        if not bucketing and _dt.is_integer(l.dtype) and l.value is None:
            out.append(int(_prim_val(a)))
    elif isinstance(l, _ShapeParam):
        if l.values is None:
            out.append(tuple(int(x) for x in a))
    elif isinstance(l, _TupleParam):
        for x, f in zip(a, l.fields):
            _static_facts(x, f, out, bucketing)


def _phys_dims(l: _TensorParam, a: Any, buckets, sym: Dict) -> Tuple[int, ...]:
    if l.dims is None:
        return tuple(a.shape)
    from relax_ref.arith.evaluate import eval_prim

    out = []
    for d, n in zip(l.dims, a.shape):
        if isinstance(d, P.IntImm) or buckets is None:
            out.append(int(n))
        else:
            out.append(int(eval_prim(d, {v: buckets(v) for v in _vars(d)})))
    return tuple(out)


def _vars(e) -> list:
    from relax_ref.ir.functor import prim_vars_in

    return list(prim_vars_in(e))


def _arg_specs(args, layouts, buckets, sym, phys_shapes, specs) -> None:
    for a, l in zip(args, layouts):
        if isinstance(l, _TensorParam):
            shape = _phys_dims(l, a, buckets, sym)
            phys_shapes.append(shape)
            specs.append(jax.ShapeDtypeStruct(shape, np.dtype(a.dtype)))
        elif isinstance(l, _PrimParam):
            if l.value is None:
                specs.append(jax.ShapeDtypeStruct((), _dt.to_numpy(l.dtype)))
        elif isinstance(l, _ShapeParam):
            pass
        elif isinstance(l, _TupleParam):
            _arg_specs(a, l.fields, buckets, sym, phys_shapes, specs)


def _needs_padding(args, layouts, phys_shapes) -> bool:
    it = iter(phys_shapes)
    return _np_rec(args, layouts, it)


def _np_rec(args, layouts, it) -> bool:
    for a, l in zip(args, layouts):
        if isinstance(l, _TensorParam):
            if tuple(a.shape) != next(it):
                return True
        elif isinstance(l, _TupleParam):
            if _np_rec(a, l.fields, it):
                return True
    return False


def _poison(dtype: np.dtype) -> Any:
    if dtype.kind in "fc":
        return np.nan
    if dtype.kind == "b":
        return True
    if dtype.kind in "iu":
        return np.iinfo(dtype).max
    return 0


def _pad_to(a: Any, shape: Tuple[int, ...], poison: bool = False) -> Any:
    if tuple(a.shape) == shape:
        return a
    src = np.asarray(a)
    out = np.full(shape, _poison(src.dtype), src.dtype) if poison else np.zeros(shape, src.dtype)
    out[tuple(slice(0, n) for n in src.shape)] = src
    return out


def _views_to_device(host: List[np.ndarray], device, sharding) -> List[Any]:
    """JAX arrays of host arrays (views of padded buffers), aliasing them where the backend can (the
    CPU). ``jax.device_put(..., may_alias=True)`` does the same with 5-10x the Python overhead per
    array (40-50 us against 5 us), which matters once per result per call of a decode loop; it is
    the fallback when JAX's internal transfer entry point is not there."""
    put = _direct_put()
    if put is not None:
        try:
            return [put(a, device, sharding) for a in host]
        except (TypeError, ValueError, AttributeError):
            pass
    return list(jax.device_put(host, device, may_alias=True))


@functools.lru_cache(maxsize=None)
def _direct_put() -> Optional[Callable[..., Any]]:
    """JAX's internal single-array transfer, when this JAX version has it."""
    try:
        from jax._src import core as _core
        from jax._src.interpreters import pxla as _pxla
    except ImportError:
        return None
    if not (callable(getattr(_pxla, "batched_device_put", None)) and hasattr(_core, "ShapedArray")):
        return None

    def put(a, device, sharding):
        return _pxla.batched_device_put(_core.ShapedArray(a.shape, a.dtype), sharding, [a], [device])
    return put


def _extent(d: SymInt, sym: Optional[Dict[P.PrimVar, int]]) -> int:
    """A logical extent on the host: from its expression over the entry's symbolic values when it has
    one (no read from the device), else read back."""
    if d.is_static:
        return int(d.val)
    if d.expr is not None and sym:
        from relax_ref.arith.evaluate import eval_prim
        from relax_ref.ir.functor import prim_vars_in

        fv = prim_vars_in(d.expr)
        if all(x in sym for x in fv):
            r = eval_prim(d.expr, {x: sym[x] for x in fv})
            if isinstance(r, (int, np.integer)):
                return int(r)
    return int(np.asarray(d.val))


def _collect_cuts(v: Any, out: list, seen: set, sym: Optional[Dict[P.PrimVar, int]] = None,
                  memo: Optional[Dict[Any, int]] = None) -> None:
    """The padded tensors of result ``v`` with their logical shapes, each once (``memo``: extents
    by expression, as results often share one, e.g. the ``L + 1`` rows of every KV cache)."""
    if memo is None:
        memo = {}
    if isinstance(v, TVal):
        if v.valid is not None and id(v) not in seen:
            seen.add(id(v))
            shape = []
            for d, n in zip(v.valid, v.data.shape):
                if d is None:
                    shape.append(int(n))
                elif d.expr is not None:
                    e = memo.get(d.expr)
                    if e is None:
                        e = memo[d.expr] = _extent(d, sym)
                    shape.append(e)
                else:
                    shape.append(_extent(d, sym))
            shape = tuple(shape)
            if shape != tuple(v.data.shape):
                out.append((v, shape))
    elif isinstance(v, tuple) and not isinstance(v, ShapeV):
        for x in v:
            _collect_cuts(x, out, seen, sym, memo)


def _flat(args, layouts, it, flat, pad=_pad_to) -> None:
    for a, l in zip(args, layouts):
        if isinstance(l, _TensorParam):
            flat.append(pad(a, next(it)))
        elif isinstance(l, _PrimParam):
            if l.value is None:
                flat.append(np.asarray(_prim_val(a), _dt.to_numpy(l.dtype)))
        elif isinstance(l, _TupleParam):
            _flat(a, l.fields, it, flat, pad)


def _rebuild(a: Any, l: Any, it, senv: Dict, bucketing: bool) -> Any:
    """The traced executor value of one parameter inside the compiled function."""
    if isinstance(l, _TensorParam):
        data = next(it)
        if l.dims is None:
            return TVal(data)
        dims = []
        for d in l.dims:
            if isinstance(d, P.IntImm):
                dims.append(None)
            else:
                s = eval_sym(d, senv)
                dims.append(None if s.is_static else s)
        return TVal(data, tuple(dims))
    if isinstance(l, _PrimParam):
        if l.value is None:
            v = next(it)
            if not bucketing and _dt.is_integer(l.dtype):
                return PrimV(int(_prim_val(a)), l.dtype, SymInt.static(int(_prim_val(a))))
            return PrimV(v, l.dtype)
        s = eval_sym(l.value, senv)
        return PrimV(s.val, l.dtype, s)
    if isinstance(l, _ShapeParam):
        if l.values is None:
            return ShapeV(int(x) for x in a)
        return ShapeV(eval_sym(d, senv) for d in l.values)
    if isinstance(l, _TupleParam):
        return tuple(_rebuild(x, f, it, senv, bucketing) for x, f in zip(a, l.fields))
    raise TypeError(f"bad layout {l!r}")


def _param_leaves(params, path=()) -> list:
    out = []
    for i, p in enumerate(params):
        if isinstance(p, TVal):
            out.append((path + (i,), p, p.data))
        elif isinstance(p, tuple) and not isinstance(p, ShapeV):
            out.extend(_param_leaves(p, path + (i,)))
    return out


def _get_path(args, path):
    v = args
    for i in path:
        v = v[i]
    return v


def _cut(x: Any, shape: Tuple[int, ...]) -> Any:
    if tuple(x.shape) == tuple(shape):
        return x
    return np.asarray(x)[tuple(slice(0, n) for n in shape)]


def _unpad(t: TVal, device) -> Any:
    data = t.data
    if t.valid is None:
        return data
    shape = tuple(int(np.asarray(d.val)) for d in t.dims())
    if shape == tuple(data.shape):
        return data
    # cut through host memory: slicing on the device would compile one XLA slice per logical shape
    view = np.asarray(data)[tuple(slice(0, n) for n in shape)]
    return _views_to_device([view], device, SingleDeviceSharding(device))[0]


def _unpad_value(v: Any, device) -> Any:
    if isinstance(v, TVal):
        return TVal(_unpad(v, device))
    if isinstance(v, ShapeV):
        return ShapeV(int(np.asarray(d.val)) for d in v)
    if isinstance(v, PrimV):
        val = v.val if isinstance(v.val, (bool, int, float, np.generic)) else np.asarray(v.val).item()
        return PrimV(val, v.dtype, SymInt.static(val) if _dt.is_integer(v.dtype) else None)
    if isinstance(v, tuple):
        return tuple(_unpad_value(x, device) for x in v)
    return v


def _exportable_arg(a: Any) -> bool:
    if isinstance(a, (TVal, ShapeV, PrimV)):
        return True
    if isinstance(a, tuple):
        return all(_exportable_arg(x) for x in a)
    return False


def _to_user(a: Any) -> Any:
    if isinstance(a, TVal):
        return a.data
    if isinstance(a, ShapeV):
        return rv.ShapeValue(int(d.val) for d in a)
    if isinstance(a, PrimV):
        val = a.val if isinstance(a.val, (bool, int, float, np.generic)) else np.asarray(a.val).item()
        if isinstance(val, np.generic):
            return val
        return _dt.to_numpy(a.dtype).type(val) if a.dtype != "bool" else np.bool_(val)
    if isinstance(a, tuple):
        return tuple(_to_user(x) for x in a)
    return a


_NATIVE: Optional[Dict[str, PackedV]] = None


def _native_builtins() -> Dict[str, PackedV]:
    """Built-ins that call back into the evaluator (CALL.PACKED.5)."""
    global _NATIVE
    if _NATIVE is None:
        def mk(fn):
            fn.native = True
            return fn

        def make_closure(walker, args, call):
            fn, captured = args[0], tuple(args[1:])
            return _with_captures(fn, captured)

        def invoke_closure(walker, args, call):
            return walker.call_value(args[0], list(args[1:]), call)

        def call_tir_dyn(walker, args, call):
            if not args or not isinstance(args[-1], ShapeV):
                raise TypeMismatchError("vm.builtin.call_tir_dyn expects a shape of TIR variables last")
            rest = [PrimV(d.val, "int64", d) for d in args[-1]]
            walker.call_value(args[0], list(args[1:-1]) + rest, call)
            return ()

        _NATIVE = {
            "vm.builtin.make_closure": PackedV("vm.builtin.make_closure", mk(make_closure)),
            "vm.builtin.invoke_closure": PackedV("vm.builtin.invoke_closure", mk(invoke_closure)),
            "vm.builtin.call_tir_dyn": PackedV("vm.builtin.call_tir_dyn", mk(call_tir_dyn)),
        }
    return _NATIVE


def _with_captures(fn: Any, captured: tuple) -> Any:
    if isinstance(fn, ClosureV):
        return ClosureV(fn.func, fn.env, fn.name, fn.captured + captured, None)
    if isinstance(fn, PackedV):
        return PackedV(fn.name, fn.fn, fn.captured + captured)
    raise TypeMismatchError(f"make_closure expects a function, got {type(fn).__name__}")


__all__ = ["Executable", "Stats", "EXACT_CACHE_SIZE"]
