"""The per-call fast path of an executable.

After a function has been called once, :func:`make_hot` builds a closure specialised to its most
recently used compiled entry. It accepts the call only when every argument is a concrete array with
exactly the compiled physical shape (so no padding in and no cutting out, and the symbolic-size vector
is a constant kept on the device), lets the compiled executable check shapes and dtypes, and returns
the result with a precomputed exporter. Anything it does not cover -- a new bucket, an argument needing
conversion or padding, a mismatch, padded results, a failed run-time check (the error code the
compiled function returns, read back) -- returns :data:`MISS`, and the general path (:meth:`relax_jax.executable.Executable._call`) handles the call, raising the
reference's errors.
"""

from __future__ import annotations

import operator
from typing import Any, Callable, List, Optional, Sequence, Tuple

import jax
import numpy as np

from relax_ref.ir import dtype as _dt
from relax_ref.ir import prim_expr as P

from .layouts import TensorParam
from .padded import PaddedArray
from .plan import pack_sym, sym_struct
from .pytree import host_extent

MISS = object()
_new = object.__new__
_fromb, _I32 = np.frombuffer, np.int32

_JAX_ARRAY_TYPES: set = set()


def _is_array(a: Any) -> bool:
    """Whether ``a`` is a concrete (non-traced) JAX array; registers its type for the fast check."""
    if isinstance(a, jax.Array) and not isinstance(a, jax.core.Tracer):
        _JAX_ARRAY_TYPES.add(type(a))
        return True
    return False


def _spec_tree(spec, leaf: Callable[[int, tuple], Any]) -> Any:
    """Walk the output spec of a compiled function (``walker.flatten``) made of tensors and tuples:
    ``leaf(position of the tensor among the outputs, its per-axis extent entries)`` for each tensor;
    returns the results nested as the tuples are. Raises LookupError for any other kind of value."""
    pos = 0

    def walk(sp):
        nonlocal pos
        kind = sp[0]
        if kind == "T":
            i = pos
            pos += 1 + sum(1 for v in sp[1] if v is not None and v[2])   # the data, then the carried extents
            return leaf(i, sp[1])
        if kind == "U":
            return tuple(walk(f) for f in sp[1])
        raise LookupError(kind)

    return walk(spec)


def _exporter(spec) -> Optional[Callable[[tuple], Any]]:
    """A direct function from the compiled outputs to the public result, valid when every padded
    extent equals its physical size (all symbolic values sit exactly on their buckets); None when an
    output needs host conversion (prim values, shapes, strings)."""
    try:
        tree = _spec_tree(spec, lambda i, dims: i)
    except LookupError:
        return None
    if isinstance(tree, int):
        return lambda out: out[tree]
    if all(isinstance(t, int) for t in tree):
        ids = tuple(tree)
        return lambda out: tuple(out[i] for i in ids)

    def build(t, out):
        return out[t] if isinstance(t, int) else tuple(build(x, out) for x in t)
    return lambda out: build(tree, out)


def _param_specs(layouts, phys_shapes, var_pos: dict) -> Optional[List[tuple]]:
    """Per parameter ``(numpy dtype, rank, dims, physical shape)``, ``dims`` holding ``(0, extent)``
    for a static axis and ``(1, index of the variable)`` for a bare symbolic one; None when a
    parameter is not a tensor of known rank and dtype with such axes (the fast paths skip it)."""
    specs = []
    for l, phys in zip(layouts, phys_shapes):
        if not (isinstance(l, TensorParam) and l.dims is not None and l.dtype != "void"):
            return None
        if len(l.dims) != len(phys):
            return None
        dims = []
        for d in l.dims:
            if isinstance(d, P.IntImm):
                dims.append((0, d.value))
            elif isinstance(d, P.PrimVar) and id(d) in var_pos:
                dims.append((1, var_pos[id(d)]))
            else:
                return None
        specs.append((_dt.to_numpy(l.dtype), len(l.dims), tuple(dims), tuple(phys)))
    if len(specs) != len(layouts):
        return None
    return specs


def _phys_value(v, layouts, phys_shapes) -> Optional[int]:
    """The physical extent of a parameter axis given by bare variable ``v``."""
    for l, phys in zip(layouts, phys_shapes):
        for d, n in zip(l.dims, phys):
            if d is v:
                return int(n)
    return None


def make_hot(exe, plan, compiled, bucketing: bool, key) -> Optional[Callable]:
    """The fast path for ``plan`` using ``compiled`` (None when the signature is not covered).

    The path accepts only arguments whose shapes equal the compiled physical shapes, so every
    symbolic value equals its physical extent and the symbolic-size vector is a constant, made once
    on the device. Shapes (and the dtypes of JAX arrays) are checked by the compiled executable
    itself, which raises ``TypeError`` on any mismatch: the general path then takes the call and
    raises the reference's error. NumPy arguments have their dtype checked here, since the
    executable would convert them silently."""
    if compiled.mutated:
        return None
    export = _exporter(compiled.out_spec)
    if export is None:
        return None
    layouts = plan.layouts
    sym_vars = plan.sym_vars
    specs = _param_specs(layouts, compiled.phys_shapes, {id(v): i for i, v in enumerate(sym_vars)})
    if specs is None:
        return None
    np_dtypes = [sp[0] for sp in specs]
    fn = direct_call(compiled.fn)
    nparams = len(layouts)
    extra: tuple = ()
    vals: list = []
    if sym_vars:
        # the value each variable takes when every argument has its physical shape; the path is
        # valid only if that value selects this very compilation (growth-aware buckets may not)
        for v, b in zip(sym_vars, key[1]):
            n = _phys_value(v, layouts, compiled.phys_shapes)
            if n is None or (plan.bucket(v, n) if bucketing else n) != b:
                return None
            vals.append(n)
        if _consistent(layouts, compiled.phys_shapes) is False:
            return None
        symvec = jax.device_put(pack_sym(vals), exe.device)
        extra = (symvec,)
    tensors_ok = _tensor_checker(list(range(nparams)), np_dtypes)
    stats = exe.stats
    has_code = compiled.has_code
    given = _given_params(compiled)
    padded, host_ext = _padded_outputs(compiled.out_spec)
    # an extent the host computes must equal its physical size at these symbolic values (a derived
    # extent such as ``n - 2`` does not, although ``n`` sits on its bucket: the general path cuts it)
    if host_ext and not _host_exact(host_ext, sym_vars, layouts, compiled.phys_shapes):
        return None
    #: whether every padded output extent carried by an output equals its physical size (known after
    #: the first call)
    exact: list = [None if padded else True]

    host = compiled.host

    def hot(args):
        if len(args) != nparams or exact[0] is False or not tensors_ok(args):
            return MISS
        if given and _shared(args, given):
            return MISS
        if host is not None and host(args, vals):
            return MISS                 # a check made before the call fails: the general path raises
        try:
            out = fn(*args, *extra)
        except (TypeError, ValueError):   # (ValueError: an array on another device)
            return MISS                 # a shape or dtype the executable was not compiled for
        if given:
            _release(args, given)
        if has_code:
            code = int(np.asarray(out[-1]))   # (int() of a JAX scalar costs 5x more)
            if code:
                if given:
                    raise compiled.builders[code - 1]()   # the arguments were donated: no host re-run
                return MISS             # a run-time check failed: the general path re-runs and raises
            out = out[:-1]
        if exact[0] is None:
            exact[0] = all(int(np.asarray(out[k])) == out[i].shape[axis] for i, axis, k in padded)
            if not exact[0]:
                return MISS
        stats.cache_hits += 1
        return export(out)

    return hot


def _picker(idx: List[int]) -> Callable[[Sequence[Any]], tuple]:
    """A function giving the tuple of the elements at ``idx`` (C-level for two or more: a slice when
    they are consecutive, the weights of a model typically)."""
    if len(idx) > 1 and list(idx) == list(range(idx[0], idx[0] + len(idx))):
        return operator.itemgetter(slice(idx[0], idx[0] + len(idx)))
    if len(idx) > 1:
        return operator.itemgetter(*idx)
    return lambda a: tuple(a[i] for i in idx)


def _tensor_checker(positions: List[int], dtypes: List[Any]) -> Callable[[Sequence[Any]], bool]:
    """Whether the arguments at ``positions`` are concrete arrays their tensor parameters take (of NumPy
    dtypes ``dtypes``): JAX arrays, whose shape and dtype the compiled executable checks itself
    (``TypeError`` before anything runs), and NumPy arrays of exactly the parameter's dtype (the
    executable would convert a 64-bit one silently; their shape it checks). What a call costs is one
    C-level pass over the types of the arguments that were JAX arrays on the previous call (the weights,
    typically) and a dtype check of those that were NumPy arrays (a token); any other mix is checked
    argument by argument, and those positions are kept for the next call."""
    pairs = list(zip(positions, dtypes))
    #: the picker of the positions that held JAX arrays on the last full check, and the pairs
    #: (position, dtype) of those that held NumPy arrays
    memo: list = [lambda args: (), pairs]

    def checked(args) -> bool:
        if _JAX_ARRAY_TYPES.issuperset(map(type, memo[0](args))):     # (no set built)
            for i, dt in memo[1]:
                a = args[i]
                if type(a) is not np.ndarray or (a.dtype is not dt and a.dtype != dt):
                    break
            else:
                return True
        jax_pos, other = [], []
        for i, dt in pairs:
            a = args[i]
            t = type(a)
            if t is np.ndarray:
                if a.dtype != dt:
                    return False
                other.append((i, dt))
            elif t in _JAX_ARRAY_TYPES or _is_array(a):
                jax_pos.append(i)
            else:
                return False
        memo[:] = [_picker(jax_pos), other]
        return True

    return checked


def count_padded_call(calls, key: Any, cap: int) -> int:
    """One more call of padded shape ``key``: its count. ``calls`` (an OrderedDict, least recently seen
    first) keeps at most ``cap`` shapes: a shape seen once a step (a growing decode length) does not
    make it grow without bound."""
    n = calls.get(key, 0) + 1
    calls[key] = n
    if n > 1:
        calls.move_to_end(key)
    elif len(calls) > cap:
        calls.popitem(last=False)
    return n


def _given_params(compiled) -> Tuple[int, ...]:
    """The parameter indices the caller donates (``donate_argnums``), for the fast paths: they cover
    only functions whose parameters are flat tensors, so a flat position is a parameter index."""
    return tuple(k for _, k in compiled.given)


def _shared(args, given) -> bool:
    """Whether a donated argument is also passed at another position (the general path copies it)."""
    if len(set(map(id, args))) == len(args):
        return False
    for k in given:
        a = args[k]
        for i, x in enumerate(args):
            if x is a and i != k:
                return True
    return False


def _release(args, given) -> None:
    """Every donated JAX array (or padded result handle) is deleted after the call (relax_jax.donation)."""
    for k in given:
        a = args[k]
        if type(a) is PaddedArray:
            # (PaddedArray.delete, inline: a method call costs a Python frame per handle)
            buf, a._buf, a._arr = a._buf, None, None
            if buf is not None and not buf.is_deleted():
                buf.delete()
        elif isinstance(a, jax.Array) and not a.is_deleted():
            a.delete()


def _padded_outputs(spec) -> Tuple[List[Tuple[int, int, int]], List[Tuple[Any, Any]]]:
    """For every padded axis of the outputs of ``spec`` (:func:`_spec_tree`'s layout): ``(position of
    a tensor output, its axis, position of that axis's extent)`` where an output carries the extent,
    and ``(physical size, expression)`` where the host computes it (``pytree.flatten``)."""
    out: List[Tuple[int, int, int]] = []
    host: List[Tuple[Any, Any]] = []

    def leaf(i, dims):
        k = i + 1
        for axis, v in enumerate(dims):
            if v is None:
                continue
            if v[2]:
                out.append((i, axis, k))
                k += 1
            else:
                host.append((v[0], v[1]))
    _spec_tree(spec, leaf)
    return out, host


def _host_exact(host_ext, sym_vars, layouts, phys_shapes) -> bool:
    """Whether each extent ``(physical size, expression)`` computed on the host equals its physical
    size when every variable takes its physical value."""

    sym = {v: _phys_value(v, layouts, phys_shapes) for v in sym_vars}
    if any(n is None for n in sym.values()):
        return False
    return all(type(phys) is int and host_extent(e, sym) == phys for phys, e in host_ext)


def _consistent(layouts, phys_shapes) -> bool:
    """Whether the physical shapes give each symbolic variable a single value."""
    seen: dict = {}
    for l, phys in zip(layouts, phys_shapes):
        for d, n in zip(l.dims, phys):
            if isinstance(d, P.PrimVar):
                if seen.setdefault(id(d), n) != n:
                    return False
    return True


def _compile_expr(e: P.PrimExpr, var_pos: dict) -> Optional[Callable[[list], int]]:
    """A Python function of the symbolic values for an integer extent expression (None when the
    expression has a form this does not cover)."""
    if isinstance(e, P.IntImm):
        c = int(e.value)
        return lambda vals: c
    if isinstance(e, P.PrimVar):
        i = var_pos.get(id(e))
        if i is None:
            return None
        return lambda vals: vals[i]
    if type(e) in (P.Add, P.Sub) and isinstance(e.a, P.PrimVar) and isinstance(e.b, P.IntImm) \
            and var_pos.get(id(e.a)) is not None:
        # ``v + c``, ``v - c`` (a grown cache's rows): one function, not three
        i, c = var_pos[id(e.a)], int(e.b.value) if type(e) is P.Add else -int(e.b.value)
        return lambda vals: vals[i] + c
    ops = {P.Add: lambda x, y: x + y, P.Sub: lambda x, y: x - y, P.Mul: lambda x, y: x * y,
           P.FloorDiv: lambda x, y: x // y, P.FloorMod: lambda x, y: x % y, P.Min: min, P.Max: max}
    op = ops.get(type(e))
    if op is None:
        return None
    fa, fb = _compile_expr(e.a, var_pos), _compile_expr(e.b, var_pos)
    if fa is None or fb is None:
        return None
    if type(e) in (P.FloorDiv, P.FloorMod):
        def guarded(vals, fa=fa, fb=fb, op=op):
            d = fb(vals)
            if d == 0:
                raise ZeroDivisionError
            return op(fa(vals), d)
        return guarded
    return lambda vals: op(fa(vals), fb(vals))


def _padded_exporter(spec, var_pos: dict, lazy: Optional[Callable] = None, outs: Optional[list] = None,
                     key_of: Optional[Callable] = None) -> Optional[Callable[[tuple, list, Callable], Any]]:
    """For results that may be padded: a function ``(outputs, symbolic values, cut) -> result`` that
    computes each padded extent on the host from its expression and cuts through ``cut`` (with ``lazy``,
    the executable's cut, gives :class:`~relax_jax.padded.PaddedArray` handles instead); None when a
    result is not a tensor (or a tuple of them) or an extent has no expression over the parameters'
    variables. ``outs``: the physical shape and dtype of each output (:func:`_out_avals`; None: read off
    each result), with which the results of the same physical shape and padded axes share one logical
    shape per call, and each handle gets its buffer's pair ``key_of(dtype, shape)``
    (:class:`~relax_jax.padded.PaddedArray`'s ``key``)."""
    leaves: List[Tuple[int, tuple, Any, Any]] = []   # (output index, padded axes, template index, handle key)
    fns: List[Callable[[list], int]] = []       # one function per extent expression: computed once per call
    fn_of: dict = {}
    templates: dict = {}                        # (physical shape, ((axis, index into fns), ...)) -> index

    def leaf(i, dims):
        axes = []
        for axis, ent in enumerate(dims):
            if ent is None:
                continue
            expr = ent[1]
            if expr is None:
                raise LookupError("extent")
            j = fn_of.get(expr)
            if j is None:
                f = _compile_expr(expr, var_pos)
                if f is None:
                    raise LookupError("extent")
                j = fn_of[expr] = len(fns)
                fns.append(f)
            axes.append((axis, j))
        axes = tuple(axes)
        t = key = None
        if axes and outs is not None:
            phys, dt = outs[i]
            t = templates.setdefault((phys, axes), len(templates))
            key = key_of(dt, phys) if key_of is not None else None
        leaves.append((i, axes, t, key))
        return len(leaves) - 1

    try:
        tree = _spec_tree(spec, leaf)
    except LookupError:
        return None
    shape_of = tuple(templates)

    def export(out, vals, cut):
        pending = []
        got: List[Any] = []
        ext = [f(vals) for f in fns]
        shapes = [_logical(phys, axes, ext) for phys, axes in shape_of]
        for i, axes, t, key in leaves:
            data = out[i]
            if axes:
                shape = shapes[t] if t is not None else _logical(data.shape, axes, ext)
                if shape is not None:
                    if lazy is not None:
                        got.append(PaddedArray(data, shape, lazy, key))
                        continue
                    pending.append((len(got), data, shape))
            got.append(data)
        if pending:
            for (k, _, _), a in zip(pending, cut([(d, shp) for _, d, shp in pending])):
                got[k] = a
        return tuple(got) if flat else _nest(tree, got)

    flat = isinstance(tree, tuple) and tree == tuple(range(len(leaves)))
    if lazy is not None and flat and len(shape_of) == 1 and len(fns) == 1 and \
            all(t == 0 for _, axes, t, _ in leaves if axes):
        return _handles_exporter(leaves, shape_of[0], fns[0], lazy)
    return export


def _handles_exporter(leaves: list, template: tuple, extent: Callable[[list], int], lazy: Callable) -> Callable:
    """:func:`_padded_exporter`'s function for a flat tuple of results whose padded ones share one
    physical shape and one padded extent (a decode step's caches): one logical shape per call, a
    handle per padded result."""
    get = operator.itemgetter(*[i for i, _, _, _ in leaves]) if len(leaves) > 1 else None
    handles = [(k, key) for k, (_, axes, _, key) in enumerate(leaves) if axes]
    phys, axes = template

    def export(out, vals, cut):
        shape = _logical(phys, axes, [extent(vals)])
        got = list(get(out)) if get is not None else [out[leaves[0][0]]]
        if shape is not None:
            for k, key in handles:
                # (PaddedArray(got[k], shape, lazy, key) without the Python frame of its __init__)
                h = _new(PaddedArray)
                h._buf, h.shape, h._arr, h._cut, h._key = got[k], shape, None, lazy, key
                got[k] = h
        return tuple(got)
    return export


def _logical(phys: tuple, axes: tuple, ext: list) -> Optional[tuple]:
    """The logical shape of a result of physical shape ``phys`` whose padded ``axes`` take the extents
    ``ext``; None when it is the physical shape (the result is no handle and needs no cut)."""
    shape = list(phys)
    for axis, j in axes:
        shape[axis] = ext[j]
    shape = tuple(shape)
    return None if shape == phys else shape


def direct_call(fn: Callable) -> Callable:
    """What calling ``fn`` calls, for a fast path: where ``fn`` is a compiled JAX function
    (``jax.stages.Compiled``), whose ``__call__`` is a Python frame that makes its C++ call once (kept
    in ``_call``) and forwards every call to it, that C++ call, made as ``__call__`` makes it (same
    arguments, results and errors, one frame fewer per call); ``fn`` itself otherwise."""
    if type(fn) is not jax.stages.Compiled:
        return fn
    try:
        call = fn._call
        if call is None:
            call = fn._executable.create_cpp_call(fn._params)
            if call is None:
                return fn               # (no C++ call: __call__ makes its own fallback)
            fn._call = call
    except AttributeError:
        return fn                       # another JAX's Compiled
    return call if callable(call) else fn


def _out_avals(fn) -> Optional[list]:
    """The physical shape and dtype of each output of compiled function ``fn`` (None when it does not
    say: not a compiled JAX function)."""
    try:
        return [(tuple(o.shape), np.dtype(o.dtype)) for o in jax.tree_util.tree_leaves(fn.out_info)]
    except AttributeError:
        return None


def _nest(t: Any, got: list) -> Any:
    """The results ``got`` nested as the tuples of ``t`` are. A module-level function: a local
    recursive one would be a reference cycle holding ``got`` (every call's results, padded buffers
    included) until the cyclic garbage collector runs."""
    return got[t] if isinstance(t, int) else tuple(_nest(x, got) for x in t)


def _donate_views(args, flat, given, padded_src, static=()) -> bool:
    """Before a padded call with donated parameters ``given``: False when a donated argument is also
    passed at another position, or an argument at a static position ``(position, dtype, shape)`` has
    another dtype or shape (the executable would refuse it only after the deletions: the general path
    decides); else each donated argument that is a view of its padded buffer is deleted, so that the
    buffer (passed in ``flat``) is donated."""
    if _shared(args, given) or any(args[i].dtype != dt or args[i].shape != shp for i, dt, shp in static):
        return False
    for k in given:
        a = args[k]
        if type(a) is not PaddedArray and flat[k] is not a and isinstance(a, jax.Array):
            padded_src.pop(id(a), None)
            a.delete()
    return True


#: what :func:`_dynamic_matcher` reports besides a mismatch: some argument is smaller than its bucket;
#: a donated argument is no ``PaddedArray`` (a view to delete, or a copy to make: ``_donate_views``)
PADDED, GIVEN_ARRAY = 1, 2


def _dynamic_matcher(dyn, given=(), key_of: Optional[Callable] = None) -> Callable:
    """The padded fast path's reading of its arguments of symbolic shape (``dyn``: positions and
    specs; ``given``: the donated positions; ``key_of``: the executable's interned ``(dtype, physical
    shape)`` pairs, which a handle it made carries): each argument's dtype, rank and static extents checked,
    the symbolic values read off its shape into ``vals``, a ``PaddedArray``'s buffer put into ``flat``,
    and the positions to pad on the host appended to ``need``; the flags :data:`PADDED` and
    :data:`GIVEN_ARRAY`, or MISS on any mismatch (the general path decides)."""
    # per argument: position, dtype, rank, physical shape, a picker of its static axes and their
    # extents, (axis, variable index) of its symbolic axes, and the flag a donated array raises
    plan = []
    for i, (dt, nd, dims, phys) in dyn:
        st_axes = [k for k, (kind, _) in enumerate(dims) if kind == 0]
        st_get = (lambda shp: ()) if not st_axes else _picker(st_axes)
        st_vals = tuple(dims[k][1] for k in st_axes)
        var_axes = tuple((k, v) for k, (kind, v) in enumerate(dims) if kind != 0)
        key = key_of(dt, phys) if key_of is not None else None
        # whether the previous argument's shape is checked as this one's (then a shape that is the very
        # tuple it had, as the handles of one call share, is known to pass and to bind the same values)
        same = bool(plan) and plan[-1][2:4] == (nd, phys) and plan[-1][5:7] == (st_vals, var_axes)
        plan.append((i, dt, nd, phys, st_get, st_vals, var_axes, GIVEN_ARRAY if i in given else 0, key, same))

    def match(args, vals: list, flat: list, need: list):
        flags = 0
        prev = None
        for i, dt, nd, phys, st_get, st_vals, var_axes, given_flag, key, same in plan:
            a = args[i]
            t = type(a)
            if t is PaddedArray:
                b = a._buf
                if b is None or (a._key is not key or key is None) and (b.dtype != dt or b.shape != phys):
                    return MISS             # deleted, or another bucket: the general path decides
                flat[i] = b                 # its buffer: no cut, no padding, no look-up
            elif t not in _JAX_ARRAY_TYPES and not (t is np.ndarray or _is_array(a)):
                return MISS
            elif a.dtype != dt:
                return MISS
            else:
                flags |= given_flag
            shp = a.shape
            if shp is not prev or not same:
                if len(shp) != nd or st_get(shp) != st_vals:
                    return MISS
                for k, v in var_axes:
                    n = shp[k]
                    cur = vals[v]
                    if cur is None:
                        vals[v] = n
                    elif cur != n:
                        return MISS
                prev = shp
            if shp != phys:
                flags |= PADDED
                if t is not PaddedArray:
                    need.append(i)
        return flags

    return match


def _padded_checkers(specs, given, key_of):
    """The argument checks of :func:`make_padded_hot`: the static positions and their checker, the
    matcher of the others (``_dynamic_matcher``), the picker of the symbolic-shape arguments whose
    identities a donation compares (``None``: check each call) with their count, and the static
    arguments' dtypes and shapes (checked before a donation deletes a view, ``_donate_views``)."""
    stat = [i for i, sp in enumerate(specs) if all(kind == 0 for kind, _ in sp[2])]
    static_ok = _tensor_checker(stat, [specs[i][0] for i in stat])
    stat_set = set(stat)
    dyn = [(i, specs[i]) for i in range(len(specs)) if i not in stat_set]
    match = _dynamic_matcher(dyn, frozenset(given), key_of)
    # donated handles need no view deleted, and only another argument of symbolic shape could be the same
    # object (a handle is no static argument: static_ok refuses it): when the donated arguments are
    # handles (no GIVEN_ARRAY) and those arguments distinct objects, there is nothing to check or delete
    dyn_get = _picker([i for i, _ in dyn]) if given and all(k not in stat_set for k in given) else None
    return stat, static_ok, match, dyn_get, len(dyn), tuple((i, specs[i][0], specs[i][3]) for i in stat)


def _bucket_ranges(plan, sym_vars, buckets) -> Optional[tuple]:
    """The values of each variable that select this compilation: an interval each
    (:meth:`relax_jax.plan.Plan.bucket_range`), or ``None``: the bucket of each value is computed per call."""
    ranges = [plan.bucket_range(v, b) for v, b in zip(sym_vars, buckets)]
    return None if any(r is None for r in ranges) else tuple(ranges)


def make_padded_hot(exe, plan, compiled, key) -> Optional[Callable]:
    """The fast path of a bucketed compilation for arguments smaller than their buckets: arguments are
    passed as the padded buffers they were cut from (``reuse_padded``) or padded on the host, the
    symbolic values come from the argument shapes, and results are cut to the extents their
    expressions give. Repeated shapes are counted towards ``specialize_after`` as on the general path,
    which takes over once a shape has its exact compilation.

    What a call costs on the host is kept small (a decode step of a small model computes for 0.2 ms):
    static arguments are checked by type in one pass, their shapes and dtypes by the executable
    (:func:`_tensor_checker`); a handle this executable made carries its buffer's dtype and shape
    (:class:`~relax_jax.padded.PaddedArray`'s ``key``); a value is compared with its bucket's interval
    (:meth:`relax_jax.plan.Plan.bucket_range`); JAX's 64-bit mode is entered only for 64-bit arguments
    or results (the symbolic values travel as ``int32`` halves, :func:`relax_jax.plan.pack_sym`); and
    the bookkeeping that need not precede the compiled call (the count, the donated arguments' deletion,
    the result handles) follows its dispatch, before the error code is read."""
    if compiled.mutated or not key[0]:
        return None
    sym_vars = plan.sym_vars
    if not sym_vars:
        return None
    var_pos = {id(v): i for i, v in enumerate(sym_vars)}
    # results as handles of their padded buffers (relax_jax.padded), or cut to exact arrays
    lazy = exe._cut_results if plan.name in exe.padded_results else None
    key_of = getattr(exe, "buffer_key", None)
    export = _padded_exporter(compiled.out_spec, var_pos, lazy, _out_avals(compiled.fn), key_of)
    specs = _param_specs(plan.layouts, compiled.phys_shapes, var_pos)
    if export is None or specs is None:
        return None
    nparams, nsym = len(specs), len(sym_vars)
    fn, has_code, stats = direct_call(compiled.fn), compiled.has_code, exe.stats
    buckets, bucket, pad = tuple(key[1]), plan.bucket, exe._pad_arg
    spec_after, cap, padded_src, cut = exe.specialize_after, exe.padded_calls_size, exe._padded_src, exe._cut_results
    padded_calls, exact_cache = plan.padded_calls, plan.exact_cache
    move_to_end, given = padded_calls.move_to_end, _given_params(compiled)

    stat, static_ok, match, dyn_get, ndyn, static = _padded_checkers(specs, given, key_of)
    ranges = _bucket_ranges(plan, sym_vars, buckets)
    narrow, spack = _narrow(specs, compiled.fn), sym_struct(nsym)   # (plan.sym_packer, inline)
    host = compiled.host

    def hot(args):
        if len(args) != nparams or (stat and not static_ok(args)):
            return MISS
        vals: list = [None] * nsym
        flat = list(args)
        need: list = []                     # the positions of arguments padded here (or reused buffers)
        flags = match(args, vals, flat, need)
        if flags is MISS:
            return MISS
        for n, (lo, hi) in zip(vals, ranges or ()):
            if n < lo or n > hi:
                return MISS
        if ranges is None and any(bucket(v, n) != b for v, n, b in zip(sym_vars, vals, buckets)):
            return MISS
        if host is not None and host(args, vals):
            return MISS                     # a check made before the call fails: the general path raises
        for i in need:
            flat[i] = pad(args[i], specs[i][3])
        count = flags & PADDED and spec_after
        if count:
            ekey = (False, tuple(vals), ())
            if ekey in exact_cache:
                return MISS                 # the shape has its exact compilation: general path
            n = padded_calls.get(ekey, 0) + 1
            if n >= spec_after:
                return MISS                 # time to specialise: the general path compiles it
        if given and (dyn_get is None or flags & GIVEN_ARRAY or len(set(map(id, dyn_get(args)))) != ndyn) \
                and not _donate_views(args, flat, given, padded_src, static):
            return MISS
        try:
            out = fn(*flat, _fromb(spack(*vals), _I32)) if narrow else _wide_call(fn, flat, _fromb(spack(*vals), _I32))
        except (TypeError, ValueError):   # (ValueError: an array on another device)
            return MISS                     # a static argument of another shape or dtype: nothing ran
        # (while the computation runs:) the call counted (count_padded_call, inlined), the donated
        # arguments deleted
        if count:
            padded_calls[ekey] = n
            if n > 1:
                move_to_end(ekey)
            elif len(padded_calls) > cap:
                padded_calls.popitem(last=False)
        if given:
            _release(args, given)
        if not has_code:
            stats.cache_hits += 1
            return export(out, vals, cut) if narrow else _wide(export, out, vals, cut)
        # the results are made while the computation may still run (handles need no values), then
        # the error code is read
        result = export(out, vals, cut) if lazy is not None else None
        code = int(np.asarray(out[-1]))   # (int() of a JAX scalar costs 5x more)
        if code:
            if given:
                raise compiled.builders[code - 1]()   # the arguments were donated: no host re-run
            return MISS                 # a run-time check failed: the general path re-runs and raises
        stats.cache_hits += 1
        if lazy is not None:
            return result
        return export(out, vals, cut) if narrow else _wide(export, out, vals, cut)

    return hot


def _wide_call(fn: Callable, flat: list, packed: Any) -> Any:
    """``fn(*flat, packed)`` in JAX's 64-bit mode (64-bit arguments, results and their cuts)."""
    with jax.enable_x64(True):
        return fn(*flat, packed)


#: the dtypes whose arrays JAX makes only in its 64-bit mode (``jax.enable_x64``)
_WIDE = frozenset(np.dtype(t) for t in ("int64", "uint64", "float64", "complex128"))


def _narrow(specs, fn) -> bool:
    """Whether a call of compiled function ``fn`` with arguments of ``specs`` (:func:`_param_specs`)
    needs no 64-bit mode of JAX on the host: no 64-bit argument (JAX would narrow a NumPy one) and no
    64-bit result (cut on the host and transferred back); the symbolic values travel as ``int32``
    halves (:func:`~relax_jax.plan.pack_sym`)."""
    outs = _out_avals(fn)
    return outs is not None and not any(np.dtype(sp[0]) in _WIDE for sp in specs) \
        and not any(dt in _WIDE for _, dt in outs)


def _wide(export, out, vals, cut):
    """``export`` in JAX's 64-bit mode (results of 64-bit dtypes cut and transferred back)."""
    with jax.enable_x64(True):
        return export(out, vals, cut)


__all__ = ["make_hot", "make_padded_hot", "direct_call", "MISS"]
