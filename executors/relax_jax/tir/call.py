"""Running PrimFuncs from Relax: argument binding (TIR.FUNC.2-7), ``call_tir`` and its variants
(CALL.TIR.*, CALL.INPLACE.*), direct calls that mutate their arguments (CALL.PRIMFUNC.1).

In traced mode the PrimFunc's lowering is inlined into the caller's trace. In host mode it runs as a
compiled kernel (one ``jax.jit`` per PrimFunc and argument layout, cached by the executable) whose
error code is checked after the run; argument binding errors are the reference's own
(:func:`relax_ref.interp.tir.bind_arguments` on stand-in arrays).
"""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from relax_ref.errors import (
    ArityMismatchError, DTypeMismatchError, NDimMismatchError, RelaxError, ShapeMismatchError,
    TypeMismatchError,
)
from relax_ref import values as rv
from relax_ref.interp.tir import bind_arguments, check_zero_offset, dense_strides
from relax_ref.ir import dtype as _dt
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.tir_bfloat16 import compute_in_float32

from ..dims import dim_value
from ..errors import ErrorSink, NeedsExact
from ..float_rules import tracing_mode
from ..guard import guarded_compile
from ..prim_jax import cast, is_static, np_dtype
from ..values import PrimFuncV, PrimV, TVal, describe
from .kernel import KExec
from .masked import forward_masked_loads
from .products import factor_outputs, plain_stores


def _err(cls, msg, fname, **kw):
    return cls(msg, site="call_tir", function=fname, **kw)


def _scalar(kx: KExec, p: P.PrimVar, a: Any, fname: str) -> Any:
    """TIR.FUNC.2: a bool/integer prim value converts to the parameter's dtype, a float one only to
    a float dtype."""
    if isinstance(a, TVal) and a.ndim == 0:
        src = _dt.from_numpy(np.dtype(a.data.dtype))
        val = a.data
    elif isinstance(a, PrimV):
        src, val = a.dtype, a.val
        if a.sym is not None and a.sym.phys is not None:
            kx.phys[p] = int(a.sym.phys)
    else:
        raise _err(TypeMismatchError, f"scalar parameter '{p.name}' of type {p.dtype} received {describe(a)}", fname,
                   expected=p.dtype, actual=describe(a), binding=p.name)
    if _dt.is_float(src) and not _dt.is_float(p.dtype):
        raise _err(DTypeMismatchError, f"scalar parameter '{p.name}' of type {p.dtype} received a {src} value", fname,
                   expected=p.dtype, actual=src, binding=p.name)
    if is_static(val):
        from relax_ref.arith import semantics as _sem

        v = _sem.cast(_sem.to_value(val, src), src, p.dtype)
        return int(v) if _dt.is_integer(p.dtype) else v
    return cast(jnp.asarray(val), src, p.dtype)


def bind(kx: KExec, func: tir.PrimFunc, args: Sequence[Any], readonly: Sequence[bool], fname: str) -> List:
    """Bind arguments (traced form of TIR.FUNC.3); returns ``[(param index, buffer, box)]``."""
    if len(args) != len(func.params):
        raise _err(ArityMismatchError, f"PrimFunc '{fname}' takes {len(func.params)} arguments, got {len(args)}",
                   fname, expected=str(len(func.params)), actual=str(len(args)))
    buffers = []
    for k, (p, a) in enumerate(zip(func.params, args)):
        buf = func.buffer_of(p)
        if buf is None:
            if p.dtype == "handle":
                kx.env[p] = a
                continue
            kx.env[p] = _scalar(kx, p, a, fname)
            continue
        if not isinstance(a, TVal):
            raise _err(TypeMismatchError, f"buffer parameter '{buf.name}' expects a tensor, got {describe(a)}", fname,
                       expected=f"T.Buffer({buf.dtype})", actual=describe(a), binding=buf.name)
        if a.ndim != len(buf.shape):
            raise _err(NDimMismatchError, f"buffer '{buf.name}' has {len(buf.shape)} dimensions, the argument has "
                       f"{a.ndim}", fname, expected=str(len(buf.shape)), actual=str(a.ndim), binding=buf.name)
        adt = _dt.from_numpy(np.dtype(a.data.dtype))
        if adt != buf.dtype:
            raise _err(DTypeMismatchError, f"buffer '{buf.name}' has dtype {buf.dtype}, the argument has {adt}",
                       fname, expected=buf.dtype, actual=adt, binding=buf.name)
        buffers.append((k, p, buf, a))
    pending = []
    for k, p, buf, a in buffers:
        dims = a.dims()
        for d, (e, s) in enumerate(zip(buf.shape, dims)):
            what = f"{buf.name}.shape[{d}]"
            if isinstance(e, P.PrimVar):
                if e in kx.env:
                    _compare(kx, kx.env[e], s.val, what, buf, fname)
                else:
                    kx.env[e] = dim_value(s.val) if s.is_static else cast(jnp.asarray(s.val, jnp.int64), "int64", e.dtype)
                    if s.phys is not None:
                        kx.phys[e] = int(s.phys)
            elif isinstance(e, P.IntImm):
                _compare(kx, e.value, s.val, what, buf, fname)
            else:
                pending.append((e, s, what, buf))
        kx.bind_buffer(buf, a.data, tuple(dim_value(d.val) if d.is_static else d.val for d in dims), readonly[k])
    for e, s, what, buf in pending:
        _compare(kx, kx.ev(e), s.val, what, buf, fname)
    for k, p, buf, a in buffers:
        if buf.strides or buf.elem_offset is not None:
            if a.padded:
                raise NeedsExact(f"buffer '{buf.name}' declares its layout")
            for d, (st, want) in enumerate(zip(buf.strides, dense_strides(a.shape))):
                _bind_or_compare(kx, st, want, f"{buf.name}.strides[{d}]", buf, fname)
            if buf.elem_offset is not None:
                _bind_or_compare(kx, buf.elem_offset, 0, f"{buf.name}.elem_offset", buf, fname)
    return [(k, buf, a) for k, p, buf, a in buffers]


def _bind_or_compare(kx, e, want: int, what, buf, fname) -> None:
    if isinstance(e, P.PrimVar) and e not in kx.env:
        kx.env[e] = want
        return
    _compare(kx, kx.ev(e), want, what, buf, fname)


def _compare(kx: KExec, want: Any, actual: Any, what: str, buf, fname: str) -> None:
    if is_static(want) and is_static(actual):
        if int(want) != int(actual):
            raise _err(ShapeMismatchError, f"{what} is {actual}, expected {want}", fname, expected=str(want),
                       actual=str(actual), binding=buf.name)
        return
    if want is actual:
        return
    bad = jnp.asarray(want, jnp.int64) != jnp.asarray(actual, jnp.int64)
    kx.check(bad, None, lambda: _err(ShapeMismatchError, f"{what} differs from the argument's extent", fname,
                                     binding=buf.name))


def run(func: tir.PrimFunc, name: str, sink: ErrorSink, args: Sequence[Any], readonly: Sequence[bool],
        lookup=None, limits: Any = None, outputs: FrozenSet[int] = frozenset()) -> Dict[int, Any]:
    """Execute ``func`` (traced); returns ``{param index: new array}`` for every buffer argument;
    ``lookup`` finds the packed functions it calls; ``limits``: the budgets of RUNTIME.LIMIT.3-4
    (:class:`relax_ref.limits.Limits`); ``outputs``: output parameters only read as factors by the
    caller (:func:`relax_jax.tir.products.factor_outputs`)."""
    func = compute_in_float32(func)     # bfloat16 arithmetic in float32 (TIR.BF16.1-3)
    func = forward_masked_loads(func)   # a mask's kept points read from its source (relax_jax.tir.masked)
    kx = KExec(func, name, sink, lookup, limits)
    if outputs:
        kx.plain = plain_stores(func, outputs)
    bound = bind(kx, func, args, readonly, name)
    kx.exec(func.body)
    return {k: kx.arrays[buf.data] for k, buf, a in bound}


# ---------------------------------------------------------------------------------------------------
# From the walker
# ---------------------------------------------------------------------------------------------------


def apply_prim_func(walker, pf: PrimFuncV, args: List[Any], readonly: Sequence[bool], call) -> None:
    """Run ``pf`` on ``args``; written buffers update their boxes."""
    span = call.span if call is not None else None
    try:
        for p, a in zip(pf.func.params, args):
            buf = pf.func.buffer_of(p)
            if buf is not None and isinstance(a, TVal) and a.view is not None:
                check_zero_offset(buf, a.view.byte_offset, pf.name)     # TIR.FUNC.7
        if walker.traced:
            outputs = factor_outputs(walker.mod).get(id(call), frozenset()) if call is not None else frozenset()
            out = run(pf.func, pf.name, walker.sink, args, readonly, walker.exe.lookup_packed, walker.exe.limits,
                      outputs)
        else:
            _host_bind_check(pf, args)
            out = _host_run(walker, pf, args, readonly)
    except RelaxError as e:
        raise e.with_span(span).with_context(function=pf.name)
    # write back only what the kernel may have changed: the same tensor may be passed twice (in place and
    # read-only, or twice writable), and writing back an unchanged copy of it would undo the mutation
    before = {k: args[k].data for k in out}
    written = set()
    for k, new in out.items():
        box = args[k]
        if readonly[k] or new is before[k]:
            continue
        if id(box) in written and not walker.traced and _same_bits(new, before[k]):
            continue
        walker.mutate(box, new)
        written.add(id(box))


def _same_bits(a: Any, b: Any) -> bool:
    """The kernel left the buffer as it was: equal bits (a NaN is unequal to itself, so ``array_equal``
    took an unchanged buffer holding a NaN for a changed one and its write-back undid the mutation
    through the other parameter, EVAL.ALIAS.3; -0.0 and 0.0 differ)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def call_prim_func_in_place(walker, pf: PrimFuncV, args: List[Any], call) -> None:
    """CALL.PRIMFUNC.1: a PrimFunc called directly writes into its arguments."""
    apply_prim_func(walker, pf, args, [False] * len(args), call)


def _stand_in(v: Any) -> Any:
    if isinstance(v, TVal):
        return np.broadcast_to(np.zeros((), np.dtype(v.data.dtype)), v.shape)
    if isinstance(v, PrimV):
        val = v.val if is_static(v.val) else np.asarray(v.val).item()
        return rv.PrimScalar(val, v.dtype)
    return v


def _host_bind_check(pf: PrimFuncV, args: List[Any]) -> None:
    """The reference's argument binding on stand-ins: exact errors in host mode."""
    bind_arguments(pf.func, [_stand_in(a) for a in args], {}, pf.name)


def _host_run(walker, pf: PrimFuncV, args: List[Any], readonly: Sequence[bool]) -> Dict[int, Any]:
    exe = walker.exe
    sig = []
    for a in args:
        if isinstance(a, TVal):
            sig.append(("T", a.shape, str(a.data.dtype)))
        elif isinstance(a, PrimV):
            sig.append(("P", a.dtype))
        else:
            sig.append(("O", repr(a)))
    key = (id(pf.func), pf.name, tuple(sig), tuple(readonly))
    arrays = [a.data for a in args if isinstance(a, TVal)]
    scalars = [jnp.asarray(a.val, np_dtype(a.dtype)) for a in args if isinstance(a, PrimV)]
    entry = exe._kernels.get(key)
    if entry is None or entry[0] is not pf.func:
        entry = (pf.func, _compile_kernel(exe, pf, args, readonly, False))
        exe._kernels[key] = entry
    fn, builders = entry[1]
    if fn is None:
        # the kernel needs its scalar arguments as constants (e.g. an allocation sized by one)
        skey = key + (tuple(np.asarray(s).item() for s in scalars),)
        entry = exe._kernels.get(skey)
        if entry is None or entry[0] is not pf.func:
            entry = (pf.func, _compile_kernel(exe, pf, args, readonly, True))
            exe._kernels[skey] = entry
        fn, builders = entry[1]
    try:
        outs, code = fn(arrays, scalars)
    except NeedsExact:
        exe._kernels[key] = (pf.func, (None, []))
        return _host_run(walker, pf, args, readonly)
    code = int(np.asarray(code))
    if code != 0:
        raise builders[code - 1]()
    res = {}
    j = 0
    for k, a in enumerate(args):
        if isinstance(a, TVal):
            res[k] = outs[j]
            j += 1
    return res


def _compile_kernel(exe, pf: PrimFuncV, args: List[Any], readonly: Sequence[bool], static_scalars: bool):
    kinds = [("T" if isinstance(a, TVal) else "P" if isinstance(a, PrimV) else "O") for a in args]
    dtypes = [a.dtype if isinstance(a, PrimV) else None for a in args]
    others = [a if k == "O" else None for a, k in zip(args, kinds)]
    builders: list = []

    def kernel(arrays, scalars):
        with tracing_mode(exe.float_rules):
            return traced_kernel(arrays, scalars)

    def traced_kernel(arrays, scalars):
        sink = ErrorSink(True)
        ai, si_ = iter(arrays), iter(scalars)
        vals = []
        for k, d, o in zip(kinds, dtypes, others):
            if k == "T":
                vals.append(TVal(next(ai)))
            elif k == "P":
                s = next(si_)
                vals.append(PrimV(s, d))
            else:
                vals.append(o)
        out = run(pf.func, pf.name, sink, vals, readonly, exe.lookup_packed, exe.limits)
        builders.extend(sink.builders)
        outs = [out[k] for k in range(len(vals)) if k in out]
        return outs, jnp.asarray(sink.code, jnp.int32)

    exe.stats.kernel_compiles += 1
    if static_scalars:
        consts = [a.val if is_static(a.val) else np.asarray(a.val).item() for a in args if isinstance(a, PrimV)]
        fixed = _guarded(jax.jit(lambda arrays, scalars: kernel(arrays, consts)), exe.limits, exe.compiler_options)
        return fixed, builders
    return _guarded(jax.jit(kernel), exe.limits, exe.compiler_options), builders


def _guarded(jitted, limits, compiler_options):
    """``jitted`` whose computation is checked (:func:`relax_jax.guard.check_jaxpr`) before it is
    compiled, once per argument signature."""
    compiled: Dict[Any, Any] = {}

    def call(arrays, scalars):
        key = tuple((tuple(a.shape), str(a.dtype)) for a in arrays) + \
            tuple((tuple(np.shape(s)), str(np.asarray(s).dtype) if not hasattr(s, "dtype") else str(s.dtype)) for s in scalars)
        fn = compiled.get(key)
        if fn is None:
            fn = guarded_compile(jitted, (arrays, scalars), limits, compiler_options)
            compiled[key] = fn
        return fn(arrays, scalars)
    return call


__all__ = ["bind", "run", "apply_prim_func", "call_prim_func_in_place"]
