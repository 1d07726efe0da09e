"""The executable: host-side argument checks, bucketing, the compile cache, dispatch and results.

Calling ``exe(entry, *args)``:

1. **Entry checks on the host** (EVAL.CHECK.*, CALL.FUNC.2). A precompiled fast path compares ranks,
   dtypes and dimensions of the arguments with the parameters' struct info and binds the symbolic
   variables; whenever it cannot decide, or finds a mismatch, the reference interpreter's
   :class:`~relax_ref.interp.checks.Matcher` decides and raises the reference's error.
2. **Bucket signature.** Each symbolic variable's value is rounded up to its bucket
   (:class:`~relax_jax.symbolic.ShapeBuckets`). The compiled function is keyed by the buckets (plus the
   static facts of parameters without a symbolic shape); the actual values are passed as one traced
   ``int64`` vector (as ``int32`` halves, :func:`~relax_jax.plan.pack_sym`), so every size in a bucket
   shares one compilation.
3. **Compile** (on a cache miss): trace the function with :class:`~relax_jax.walker.Walker` in traced mode
   and compile it with ``jax.jit`` for the executable's device. If an operation cannot be made exact
   on padded arrays (:class:`~relax_jax.errors.NeedsExact`) the function switches to exact-shape
   compilation (one per distinct shape, LRU-cached). If tracing meets a host-only construct
   (:class:`~relax_jax.errors.TraceAbort`) the call runs in host mode (for good when the construct does
   not depend on shapes).
4. **Run.** Tensor arguments are padded to their buckets (on the host, without per-shape compiles),
   the compiled function runs; if its error code is set, or a check the host makes before the call
   fails (:mod:`relax_jax.host_checks`), the call is evaluated in host mode, which raises the
   reference's error at the right place. Padded results are cut to their logical
   shape.

``exe.stats`` counts compilations, cache hits, exact-shape fallbacks, host-mode calls and error
re-runs.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import SingleDeviceSharding

from relax_ref import values as rv
from relax_ref.errors import RelaxError, RelaxRuntimeError, TypeMismatchError, UnsupportedError, no_function
from relax_ref.interp.builtins import from_host, global_func, lookup_packed, wrap_host_function
from relax_ref.arith.evaluate import eval_prim
from relax_ref.ir import dtype as _dt
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.module import IRModule
from relax_ref.limits import (CallDepth, allocation_error, depth_error, is_allocation_failure, python_recursion_limit,
                              resolve as resolve_limits)
from relax_ref.script.parser import parse as parse_script
from relax_ref.transform.inplace_liveness import consumed_params

from . import donation, padded
from .padded import PaddedArray
from .errors import ErrorSink, NeedsExact, TraceAbort
from .float_rules import check_mode, compiler_options, tracing_mode
from .guard import guarded_compile
from .host_checks import compile_checks
from .hotpath import MISS as _MISS
from .hotpath import count_padded_call, make_hot, make_padded_hot
from .kvhot import grow_caches, kv_records, make_kv_hot, must_grow, write_caches
from .layouts import (
    aliased_caches, arg_specs, cache_capacity, fast_match, flatten_args, get_path, has_kv, kv_count_positions, kv_counts, kv_flat_positions,
    kv_params, needs_padding, param_leaves, rebuild_param, size_var_ids, static_facts, tensor_flat_positions, TensorParam,
)
from .kv_cache import kv_cache_builtins
from .paged_kv_cache import TracedPaged, paged_kv_cache_builtins, recompute_on_host, rows_match
from .native import native_builtins
from .plan import Compiled, Plan, lift, lift_pattern, lifted_slots, lifted_values, make_plan, out_of_bounds, pack_sym, restore, shifted, sym_spec, unpack_sym
from .symbolic import ShapeBuckets, reserve_rows
from .stats import Stats
from .transfer import collect_cuts, cut, exportable_arg, on_device, pad_to, plain_arrays, to_user, unpad_value, views_to_device
from .values import ClosureV, PackedV, PrimFuncV, PrimV, ShapeV, SymInt, TVal, host_prim, reference_callable
from .walker import Walker, flatten, unflatten

#: default number of exact-shape compilations kept per function
EXACT_CACHE_SIZE = 32
#: a padded shape seen this many times gets its own exact compilation (None: never)
SPECIALIZE_AFTER = 32
#: how many padded shapes per function (the most recently seen) have their calls counted towards specialize_after
PADDED_CALLS_SIZE = 1024


_HOST = "host"


_KV_BUILTINS = {**kv_cache_builtins(), **paged_kv_cache_builtins()}


# ---------------------------------------------------------------------------------------------------
# The executable
# ---------------------------------------------------------------------------------------------------


class Executable:
    """A compiled IRModule. See :func:`relax_jax.compile`."""

    def __init__(self, mod: IRModule, *, device: Any = None, shape_buckets: Any = "pow2",
                 exact_cache_size: int = EXACT_CACHE_SIZE, stdout: Any = None,
                 specialize_after: Optional[int] = SPECIALIZE_AFTER, reuse_padded: bool = True,
                 pad_poison: bool = False, float_rules: str = "strict", limits: Any = None,
                 max_bytes: Optional[int] = None, max_steps: Optional[int] = None,
                 max_while_steps: Optional[int] = None, max_depth: Optional[int] = None,
                 mesh: Any = None, donate_inplace: bool = False, donate_argnums: Any = None,
                 reserve: Optional[int] = None, padded_results: Any = None) -> None:
        if isinstance(mod, str):
            mod = parse_script(mod)
        if not isinstance(mod, IRModule):
            raise TypeMismatchError(f"relax_jax.compile expects an IRModule, got {type(mod).__name__}")
        from relax_ref.static.well_formed import check_well_formed

        check_well_formed(mod)      # EVAL.PROG.2: as the reference, even for a module parsed unchecked
        self.mod = mod
        #: the budgets of RUNTIME.LIMIT.3-4 (:mod:`relax_ref.limits`), as the reference's
        self.limits = resolve_limits(limits, max_bytes=max_bytes, max_steps=max_steps,
                                     max_while_steps=max_while_steps, max_depth=max_depth)
        #: host-mode operator calls whose arrays were checked (Walker._guard_host_op), by call site
        #: and argument signature
        self.host_guarded: set = set()
        #: the Relax calls active in host mode (RUNTIME.LIMIT.7), shared by every host walker
        self.call_depth = CallDepth(self.limits.max_depth)
        #: id(Constant) -> (the Constant, its array), for host mode (walker._constant)
        self.host_constants: Dict[int, Any] = {}
        if device is None:
            device = jax.devices("cpu")[0]
        elif isinstance(device, str):
            device = jax.devices(device)[0]
        self.device = device
        self.sharding = SingleDeviceSharding(device)
        if mesh is not None:
            # a jax.sharding.Mesh (DIST.SEM.1): values replicated over it, layouts from the DTensors'
            # placements through with_sharding_constraint (relax_jax.sharding)
            from jax.sharding import NamedSharding, PartitionSpec

            self.sharding = NamedSharding(mesh, PartitionSpec())
            self.device = self.sharding
        self.mesh = mesh
        self.donate_inplace = bool(donate_inplace)
        #: the parameters each function's callers donate (relax_jax.donation)
        self.donate_argnums = donation.checked(mod, donation.resolve(donate_argnums))
        #: the functions whose results cut from padded buffers are handles of those buffers (relax_jax.padded)
        self.padded_results = padded.resolve(mod, padded_results)
        self.buffer_key = padded.key_table()     # the (dtype, shape) pairs its handles carry (PaddedArray)
        self.buckets = ShapeBuckets(shape_buckets)
        self.reserve = reserve_rows(reserve)    # the least bucket of a growing variable (Plan.bucket)
        self.exact_cache_size = int(exact_cache_size)
        self.specialize_after = specialize_after
        self.padded_calls_size = PADDED_CALLS_SIZE
        self.stats = Stats()
        self._plans: Dict[str, Plan] = {}
        self._packed: Dict[str, PackedV] = {}
        self._kernels: Dict[Any, Any] = {}
        self._inferred: Dict[int, Any] = {}
        #: operator struct info by what determines it (``walker.inference_key``): the layers of a model
        #: repeat the same calls on arguments of the same struct info
        self._inferred_by_key: Dict[Any, Any] = {}
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
        #: ``"strict"``: the spec's floating-point rules (PRIM.FLOAT.1; :mod:`relax_jax.float_rules`);
        #: ``"fast"``: XLA's own rewrites (reciprocal division, reassociation, fused multiply-add)
        self.float_rules = check_mode(float_rules)
        self.compiler_options = compiler_options(self.float_rules)

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
        """The packed function ``name`` (CALL.PACKED.1): this executable's, the global registry's, then
        the built-ins, through the reference's look-up (:func:`relax_ref.interp.builtins.lookup_packed`);
        the built-ins that call back into the evaluator are the executor's own."""
        if name not in self._packed and global_func(name) is None and name in _KV_BUILTINS:
            return _KV_BUILTINS[name]      # the executor's own KV-cache functions (CALL.KVCACHE.*, CALL.PAGEDKV.*)
        f = lookup_packed(name, self._packed, native_builtins(), span)
        return f if isinstance(f, PackedV) else PackedV(name, f.fn)

    # -- plans ---------------------------------------------------------------------------------------------

    def _plan(self, entry: str) -> Plan:
        p = self._plans.get(entry)
        if p is None:
            p = self._plans[entry] = make_plan(self.mod, entry, self.buckets, self.reserve,
                                               self.donate_argnums.get(entry, frozenset()))
        return p

    # -- calling -------------------------------------------------------------------------------------------

    def __call__(self, *args: Any, entry: Optional[str] = None) -> Any:
        """Call a function: ``exe("main", x, y)`` or ``exe(x, y, entry="main")``."""
        if entry is None:
            if args and type(args[0]) is str:      # (rv.split_entry's first case, inline: the hot path)
                entry, args = args[0], args[1:]
            else:
                entry, args = rv.split_entry(args, None)
        plan = self._plans.get(entry)
        if plan is not None and plan.hot is not None:
            try:
                r = plan.hot(args)
            except RuntimeError as err:         # (JAX's, for a deleted argument: no cost when none is raised)
                if isinstance(err, RelaxError):
                    raise
                r = _MISS                       # the general path names the argument, or raises it again
            if r is not _MISS:
                return r
        if any(type(a) is PaddedArray or type(a) is tuple for a in args):
            args, handles = padded.unwrap(args)
            if handles:
                try:
                    return self._call_general(entry, args)
                finally:
                    padded.settle(handles)
        return self._call_general(entry, args)

    def _call_general(self, entry: str, args: Sequence[Any]) -> Any:
        old = sys.getrecursionlimit()
        need = python_recursion_limit(self.limits.max_depth)
        if old < need:
            sys.setrecursionlimit(need)         # as the reference (CALL.FUNC.6, RUNTIME.LIMIT.7)
        try:
            with jax.enable_x64(True):
                return self._call(entry, args)
        except RecursionError:
            raise depth_error(self.limits.max_depth) from None
        except (MemoryError, ValueError, RuntimeError) as err:
            # an allocation the host or XLA cannot make, under the budget (RUNTIME.LIMIT.3), as the reference
            if isinstance(err, RelaxError) or not is_allocation_failure(err):
                raise
            raise allocation_error(err) from None
        finally:
            sys.setrecursionlimit(old)

    def run(self, *args: Any, entry: Optional[str] = None) -> Any:
        return self(*args, entry=entry)

    def _call(self, entry: str, args: Sequence[Any]) -> Any:
        if entry not in self.mod:
            raise RelaxRuntimeError(no_function(entry, self.mod))
        fn = self.mod[entry]
        gone = donation.deleted_argument(entry, fn, args)
        if gone is not None:
            raise gone
        args = on_device(plain_arrays(args), self.sharding)
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
        if sym is None or out_of_bounds(plan, sym):
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

    def _host_call(self, plan: Plan, args: Sequence[Any], reraise_only: bool = False) -> Any:
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
        if not all(exportable_arg(a) for a in args) or len(args) != len(plan.func.params):
            return NotImplemented
        host_args = [to_user(a) for a in args]
        sym = self._fast_bind(plan, host_args)
        if sym is None or out_of_bounds(plan, sym):
            return NotImplemented
        try:
            r = self._dispatch(plan, host_args, sym, keep_boxes=args)
        except _UseHost:
            return NotImplemented
        return r

    # -- fast entry checks -------------------------------------------------------------------------------

    def _fast_bind(self, plan: Plan, args: Sequence[Any]) -> Optional[Dict[P.PrimVar, int]]:
        """Bind symbolic variables from the arguments when every check passes; None when the
        reference checker has to decide (a mismatch, or an argument that needs conversion)."""
        sym: Dict[P.PrimVar, int] = {}
        pending: list = []
        for a, l in zip(args, plan.layouts):
            if not fast_match(a, l, sym, pending):
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

    def _key(self, plan: Plan, args: Sequence[Any], sym: Dict, bucketing: bool) -> Tuple:
        if bucketing:
            cap = cache_capacity(args, plan.layouts) if plan.cap_tied else None
            vals = tuple(plan.bucket(v, sym[v], cap) for v in plan.sym_vars)
        else:
            vals = tuple(sym[v] for v in plan.sym_vars)
        extras: list = []
        for a, l in zip(args, plan.layouts):
            static_facts(a, l, extras, bucketing, plan.reserve)
        if plan.has_kv:
            extras.append(lift_pattern(kv_counts(args, plan.layouts)))
        return (bucketing, vals, tuple(extras))

    def _dispatch(self, plan: Plan, args: Sequence[Any], sym: Dict, keep_boxes=None) -> Any:
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
            if bucketing and self.specialize_after and isinstance(c, Compiled) and \
                    needs_padding(args, plan.layouts, c.phys_shapes):
                # a shape that keeps coming back gets its own exact compilation (no padding, no
                # host-side cutting of the results)
                ekey = self._key(plan, args, sym, False)
                ec = plan.exact_cache.get(ekey)
                if ec is None:
                    n = count_padded_call(plan.padded_calls, ekey, self.padded_calls_size)
                    if n >= self.specialize_after:
                        ec = self._compile(plan, args, sym, ekey, False)
                        if isinstance(ec, Compiled):
                            self.stats.specializations += 1
                if isinstance(ec, Compiled):
                    c, key, bucketing = ec, ekey, False
        if isinstance(c, _GrowFirst):       # traced, not compiled: the caches grow first
            grow_caches(args, c.kv)
            self.stats.grown_before_compile += 1
            return self._dispatch(plan, args, sym, keep_boxes)
        if c is _HOST or plan.host_reason is not None:
            if keep_boxes is not None:
                raise _UseHost()
            return self._host_call(plan, args)
        alias = aliased_caches(args, plan.layouts) if c.kv else None
        if alias == "buffer":
            raise RelaxRuntimeError(f"function '{plan.name}': two KV-cache arguments hold one buffer; relax_jax "
                                    "gives each cache a buffer of its own (pass one cache object, or a copy)")
        if alias:
            if keep_boxes is not None:
                raise _UseHost()
            return self._host_call(plan, args)      # one cache in two parameters: its writes in order
        if c.kv and grow_caches(args, c.kv):
            return self._dispatch(plan, args, sym, keep_boxes)     # a new capacity: a new key
        if c.paged and not rows_match(args, c.paged, sym, get_path):
            if keep_boxes is not None:
                raise _UseHost()
            return self._host_call(plan, args)      # the reference's error, before anything is donated
        if c.host is not None and c.host(args, [sym[v] for v in plan.sym_vars]):
            self.stats.error_reruns += 1            # a host check fails: host mode raises the first error
            if keep_boxes is not None:
                raise _UseHost()
            return self._host_call(plan, args)
        if keep_boxes is None and not plan.bounds:
            self._arm_fast_path(plan, c, args, bucketing, key)
        flat: list = []
        flatten_args(args, plan.layouts, iter(c.phys_shapes), flat, self._pad_arg, plan.reserve)
        flat, scalars = lift(flat, c.lifted) if c.lifted else (flat, [])
        if plan.sym_vars or scalars:
            flat.append(pack_sym([sym[v] for v in plan.sym_vars] + lifted_values(scalars, c.pattern)))
        consumed = self._donate(c, flat, keep_boxes) if c.donated else False
        if c.given:
            if keep_boxes is None:
                consumed = donation.take(c.given, args, flat, self._padded_src) or consumed
            else:       # a host-mode caller's boxes, which other variables may share: copies
                for pos, _ in c.given:
                    flat[pos] = jnp.array(flat[pos], copy=True)
        try:
            out = c.fn(*flat)
        finally:
            if c.given and keep_boxes is None:
                donation.release(c.given, args)
        if c.kv:
            out = write_caches(args, c.kv, c.has_code, out, sym)
        if c.has_code:
            code = int(np.asarray(out[-1]))
            if code != 0:
                return self._on_error_code(plan, c, args, code, consumed, keep_boxes)
            out = out[:-1]
        n_mut = sum(1 for _, i in c.mutated if i >= 0)
        leaves = list(out[:len(out) - n_mut]) if n_mut else list(out)
        if c.mutated:
            muts = out[len(out) - n_mut:]
            self._write_back(args, keep_boxes, c.mutated, [muts[i] if i >= 0 else leaves[~i] for _, i in c.mutated])
        value = unflatten(c.out_spec, leaves, 0, args, sym)
        if keep_boxes is not None:
            return unpad_value(value, self.device)
        return self._export(value, sym, plan.name in self.padded_results)

    def _on_error_code(self, plan: Plan, c: Compiled, args: Sequence[Any], code: int, consumed: bool,
                       keep_boxes) -> Any:
        """A compiled call set its error code: host mode raises the first error, or computes a paged
        cache's forward again (:func:`relax_jax.paged_kv_cache.recompute_on_host`: from the pool as the
        call left it, the same writes again) and returns its result. Where the caches or arguments were
        donated, the code's own error is raised: there is no host re-run."""
        recompute = c.builders[code - 1] is recompute_on_host
        if not recompute and (c.kv or consumed):
            raise c.builders[code - 1]()
        self.stats.error_reruns += 1
        if keep_boxes is not None:
            raise _UseHost()
        return self._host_call(plan, args, reraise_only=not recompute)

    def _donate(self, c: Compiled, flat: list, keep_boxes) -> bool:
        """Hand the consumed in-place parameters to XLA (CALL.INPLACE.6). A caller's JAX array is consumed
        only with ``donate_inplace=True`` and when it is passed once; otherwise (and for the boxes of a
        host-mode caller, which other variables may share) a copy is donated. Numpy arguments are
        transferred, so the transferred buffer is donated. Whether a caller's array was consumed."""
        consumed = False
        for i in c.donated:
            a = flat[i]
            if not isinstance(a, jax.Array):
                continue
            if self.donate_inplace and keep_boxes is None and sum(x is a for x in flat) == 1:
                consumed = True
            else:
                flat[i] = jnp.array(a, copy=True)
        return consumed

    def _write_back(self, args, boxes, mutated, muts) -> None:
        for (path, _), new in zip(mutated, muts):
            target_user = get_path(args, path)
            if boxes is not None:
                box = get_path(boxes, path)
                box.data = cut(new, box.data.shape)
            elif isinstance(target_user, np.ndarray) and target_user.flags.writeable:
                np.copyto(target_user, np.asarray(cut(new, target_user.shape)))

    # -- compilation -----------------------------------------------------------------------------------------

    def _compile(self, plan: Plan, args: Sequence[Any], sym: Dict, key: Tuple, bucketing: bool) -> Any:
        cache = plan.cache if bucketing else plan.exact_cache
        try:
            c = self._trace_and_compile(plan, args, sym, bucketing)
        except _GrowFirst as g:
            return g
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

    def _arm_fast_path(self, plan: Plan, c: Compiled, args: Sequence[Any], bucketing: bool, key: Tuple) -> None:
        """The next call's fast path (hotpath, kvhot): this compilation's, each made once; none for a
        function with caches and donate_argnums. (Called for a function without declared bounds, from
        no host-mode caller: the fast paths check neither.)"""
        if c.kv:
            if not c.given:
                if not c.hot_made:
                    c.hot, c.hot_made = make_kv_hot(self, plan, c, bucketing, key), True
                plan.hot = c.hot
        elif bucketing and needs_padding(args, plan.layouts, c.phys_shapes):
            if not c.padded_hot_made:
                c.padded_hot, c.padded_hot_made = make_padded_hot(self, plan, c, key), True
            plan.hot = c.padded_hot
        else:
            if not c.hot_made:
                c.hot, c.hot_made = make_hot(self, plan, c, bucketing, key), True
            plan.hot = c.hot

    def _trace_and_compile(self, plan: Plan, args: Sequence[Any], sym: Dict, bucketing: bool) -> Compiled:
        func = plan.func
        buckets = self.buckets if bucketing else None
        phys_shapes: list = []
        specs: list = []
        builders_box: list = []
        cap = cache_capacity(args, plan.layouts) if plan.cap_tied else None
        arg_specs(args, plan.layouts, (lambda v: plan.bucket(v, sym[v], cap)) if bucketing else None, sym, phys_shapes,
                   specs, plan.reserve)
        nsym = len(plan.sym_vars)
        lifted = tuple(kv_count_positions(args, plan.layouts))      # (plan.lift)
        for i in reversed(lifted):
            del specs[i]
        pattern = lift_pattern(kv_counts(args, plan.layouts))       # (as in the key)
        slots = lifted_slots(len(lifted), pattern)
        npack = nsym + (max(slots) + 1 if slots else 0)
        if npack:
            specs.append(sym_spec(npack))
        record: dict = {}
        donate = shifted(kv_flat_positions(args, plan.layouts), lifted) if has_kv(plan.layouts) else ()
        if plan.consumed is None:
            # (only tensors are donated: a cache object's buffer is donated by kv_flat_positions)
            plan.consumed = consumed_params(plan.func, frozenset(
                k for k, lay in enumerate(plan.layouts) if isinstance(lay, TensorParam)))
        # a padded argument may be a buffer that an earlier result still shows (reuse_padded): donate only
        # where nothing is padded
        padded = bucketing and bool(plan.sym_vars)
        given = shifted(tensor_flat_positions(args, plan.layouts, plan.donate), lifted)
        donated = () if padded else tensor_flat_positions(args, plan.layouts, plan.consumed - plan.donate)
        donated = shifted(donated, lifted)
        donate += donated + given
        given = tuple(zip(given, sorted(k for k in plan.donate if isinstance(plan.layouts[k], TensorParam))))
        # a paged cache's forward computed again on the host (paged_kv_cache.recompute_on_host) needs the
        # call's other arguments as they were: none given up (donate_argnums, donate_inplace's consumed ones)
        recompute = not given and not (self.donate_inplace and donated)

        def traced(*flat):
            sink = ErrorSink(True)
            walker = Walker(self, "traced", sink)
            walker.size_vars = size_var_ids(plan.layouts)
            if bucketing:
                walker.var_bounds = {v: plan.bucket(v, sym[v], cap) - plan.headroom.get(v, 0)
                                     for v in plan.sym_vars}
            symvec = unpack_sym(flat[-1], npack) if npack else None
            senv: Dict[P.PrimVar, SymInt] = {}
            for i, v in enumerate(plan.sym_vars):
                if bucketing:
                    senv[v] = SymInt(plan.bucket(v, sym[v], cap), symvec[i], v)
                else:
                    senv[v] = SymInt.static(sym[v], v)
            body = flat[:len(flat) - (1 if npack else 0)]
            it = iter(restore(body, lifted, [symvec[nsym + k] for k in slots]) if lifted else body)
            params = [rebuild_param(a, l, it, senv, bucketing) for a, l in zip(args, plan.layouts)]
            originals = param_leaves(params)
            sink.host_params = {id(data): (path, data) for path, _, data in originals}
            caches = kv_params(params)
            for kv in caches:
                if isinstance(kv, TracedPaged):
                    kv.recompute = recompute
            result = walker.run_entry(func, plan.name, params, senv)
            # (extents the host computes from the symbolic values are no outputs: pytree.flatten)
            leaves, spec = flatten(result, new_caches=True, host_vars=frozenset(map(id, plan.sym_vars)))
            mutated = []
            mut_leaves = []
            for path, box, orig in originals:
                if box.data is not orig:
                    same = [i for i, leaf in enumerate(leaves) if leaf is box.data]
                    if same:                      # returned already: one output, so a donated buffer is not copied
                        mutated.append((path, ~same[0]))
                        continue
                    mutated.append((path, len(mut_leaves)))
                    mut_leaves.append(box.data)
            record["spec"] = spec
            record["mutated"] = mutated
            record["has_code"] = sink.has_checks
            record["host"] = tuple(sink.host_checks)
            builders_box.extend(sink.builders)
            outs = list(leaves) + mut_leaves + [kv.data for kv in caches]
            record["kv"], record["paged"] = kv_records(caches)
            if sink.has_checks:
                outs.append(jnp.asarray(sink.code, jnp.int32))
            return tuple(outs)

        jitted = jax.jit(traced, in_shardings=self.sharding, out_shardings=self.sharding, donate_argnums=donate)

        def grow_first() -> None:
            # a cache the call would grow (its rows known once traced): the call runs at the new
            # capacity, so this capacity is not compiled (CALL.KVCACHE.2)
            if record.get("kv") and must_grow(args, record["kv"]):
                raise _GrowFirst(record["kv"])
        with tracing_mode(self.float_rules):
            compiled = guarded_compile(jitted, specs, self.limits, self.compiler_options, grow_first)
        return Compiled(compiled, record["spec"], 0, record["has_code"], builders_box, record["mutated"],
                         phys_shapes, kv=record["kv"], donated=donated, given=given, paged=record["paged"],
                         lifted=lifted, pattern=pattern, host=compile_checks(record["host"], plan.sym_vars))

    # -- results -----------------------------------------------------------------------------------------------

    def _pad_arg(self, a: Any, shape: Tuple[int, ...]) -> Any:
        """Argument ``a`` at physical ``shape``: itself, the padded buffer it was cut from
        (``reuse_padded``), or a padded host copy."""
        if tuple(a.shape) == shape:
            return a
        src = self._padded_src.get(id(a))
        if src is not None and src[0]() is a and tuple(src[1].shape) == shape and not src[1].is_deleted():
            self.stats.reused_pads += 1
            return src[1]
        self.stats.host_pads += 1
        return pad_to(a, shape, self.pad_poison)

    def _export(self, v: Any, sym: Optional[Dict[P.PrimVar, int]] = None, lazy: bool = False) -> Any:
        """The public form of a result: JAX arrays cut to their logical shape (with ``lazy``, handles of
        the padded buffers, :mod:`relax_jax.padded`), shapes as ShapeValue, prim values as Python
        scalars (the reference's ``to_public``)."""
        cuts: Dict[int, Any] = {}
        pending: List[Tuple[TVal, Tuple[int, ...]]] = []
        collect_cuts(v, pending, set(), sym)
        if pending:
            cut = padded.wrapper(self._cut_results) if lazy else self._cut_results
            for (t, _), a in zip(pending, cut([(t.data, shape) for t, shape in pending])):
                cuts[id(t)] = a
        return self._export_rec(v, cuts)

    def _cut_results(self, items: Sequence[Tuple[Any, Tuple[int, ...]]]) -> List[Any]:
        """Padded result buffers cut to their logical shapes. The cut goes through host memory (slicing
        on the device would compile one XLA slice per logical shape); on the CPU the cut of the leading
        axis is a read-only view of the padded buffer and becomes the result without a copy. With
        ``reuse_padded`` each result remembers its padded buffer."""
        host = [np.asarray(data)[tuple(slice(0, n) for n in shape)] for data, shape in items]
        out = views_to_device(host, self.device, self.sharding)
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
            return host_prim(v).value
        if isinstance(v, tuple):
            return tuple(self._export_rec(x, cuts) for x in v)
        if isinstance(v, rv.DTypeValue):
            return v.name
        ref = reference_callable(v)
        return v if ref is None else ref

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

    def export(self, entry: str = "main", **kwargs: Any) -> bytes:
        """``entry`` exported with symbolic dimensions and serialized (``jax.export``): see
        :func:`relax_jax.export.export`."""
        from .export import export

        return export(self, entry, **kwargs)


class _UseHost(Exception):
    pass


_FALLBACK = object()


class _GrowFirst(Exception):
    """A compilation abandoned after its trace: ``kv`` (the trace's cache records) says a cache must
    grow before the call, so the call runs at another capacity, another compilation."""

    def __init__(self, kv: list) -> None:
        super().__init__("grow first")
        self.kv = kv


__all__ = ["Executable", "Stats", "EXACT_CACHE_SIZE", "PADDED_CALLS_SIZE"]
