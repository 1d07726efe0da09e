"""``T.call_packed`` inside TensorIR on the JAX executor (TIR.PACKED.1-3).

TVM's CPU sort kernels -- ``tvm.contrib.sort.sort``, ``argsort`` and ``topk``, which
``DispatchSortScan`` and the legalization of ``median`` call -- are lowered as ``lax.sort`` over whole
buffers with the order of OP.SEARCH.KERNEL.2 (stable in both directions, NaN above every number). Any
other packed function is looked up as a Relax-level one (the executable's registry, the global one,
the built-ins) and called on the host through ``jax.pure_callback`` (:func:`host_packed_call`): it
receives numpy copies of the arrays (read-only for a read-only ``call_tir`` input), and what it writes
into them becomes the buffers' new contents. Array descriptors (``T.tvm_stack_make_array``) must cover
a whole buffer: compact strides, offset 0, the buffer's dtype and its exact (unpadded) extents; a padded
buffer raises NeedsExact (the function is retraced with exact shapes), any other descriptor
UnsupportedError.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.arith.intrinsics import canonical_name
from relax_ref.errors import OpRuntimeError, PackedFuncError, RelaxError, UnsupportedError
from relax_ref.interp.tir import dense_strides
from relax_ref.interp.tir_packed import check_descriptor_bounds, check_descriptor_form
from relax_ref.ir import prim_expr as P
from relax_ref.values import ShapeValue

from ..errors import NeedsExact
from ..prim_jax import is_static, np_dtype

PACKED_CALLS = frozenset({"tir.tvm_call_packed", "tir.tvm_call_cpacked"})
SORT_FUNCS = frozenset({"tvm.contrib.sort.sort", "tvm.contrib.sort.argsort", "tvm.contrib.sort.topk"})


def is_packed_call(e: Any) -> bool:
    return isinstance(e, P.PrimCall) and canonical_name(e.op) in PACKED_CALLS


def _is(e: Any, name: str) -> bool:
    return isinstance(e, P.PrimCall) and canonical_name(e.op) == name


def _array(kx, e: P.PrimExpr, fname: str) -> Tuple[Any, Optional[RelaxError]]:
    """The data variable of a whole-buffer descriptor, and the error of an invalid one (TIR.PACKED.2's
    checks, shared with the reference: ``ndim``, negative extents, bounds), which the caller raises
    where the call runs, before the function's look-up (TIR.PACKED.5). A valid descriptor that is not
    a whole buffer is UnsupportedError."""
    if not _is(e, "tir.tvm_stack_make_array") or len(e.args) != 6:
        raise UnsupportedError(f"{fname}: the JAX executor needs T.tvm_stack_make_array arguments for arrays")
    data, shape, strides, ndim, hint, offset = e.args
    if not _is(shape, "tir.tvm_stack_make_shape"):
        raise UnsupportedError(f"{fname}: the array shape must be a T.tvm_stack_make_shape(...)")
    if _is(strides, "tir.tvm_stack_make_shape"):
        st: Optional[Tuple[Any, ...]] = tuple(kx.static_int(d) for d in strides.args)
    elif isinstance(strides, P.IntImm) and strides.value == 0:
        st = None
    else:
        raise UnsupportedError("T.tvm_stack_make_array: strides must be 0 (compact) or a "
                               "T.tvm_stack_make_shape(...)")
    if not isinstance(ndim, P.IntImm):
        raise UnsupportedError("T.tvm_stack_make_array: ndim must be an integer literal")
    try:
        want = np.dtype(np_dtype(hint.dtype))
    except (RelaxError, TypeError, ValueError):
        raise UnsupportedError(f"T.tvm_stack_make_array: no array of dtype {hint.dtype}") from None
    if not isinstance(data, P.PrimVar) or data not in kx.arrays:
        raise UnsupportedError(f"{fname}: the array descriptor does not name a buffer's data")
    owner = kx.owner[data]
    arr = kx.arrays[data]
    logical = kx.logical[data]
    if not all(is_static(x) for x in logical) or tuple(int(x) for x in logical) != tuple(arr.shape):
        raise NeedsExact(f"{fname} over the padded buffer '{owner.name}'")
    dims = tuple(kx.static_int(d) for d in shape.args)
    off = kx.static_int(offset)
    if None in dims or off is None or (st is not None and None in st):
        raise UnsupportedError(f"{fname}: the JAX executor needs the extents, strides and offset of an array "
                               f"descriptor as constants; got a view of '{owner.name}'")
    have = np.dtype(arr.dtype)
    try:
        check_descriptor_form(dims, st, int(ndim.value), owner.name)
        nbytes = int(np.prod(arr.shape, dtype=object) if arr.shape else 1) * have.itemsize
        if nbytes % want.itemsize:
            raise UnsupportedError(f"T.tvm_stack_make_array over '{owner.name}': {have} memory cannot be "
                                   f"read as {want}")
        check_descriptor_bounds(dims, st, off, nbytes // want.itemsize, owner.name)
    except UnsupportedError:
        raise
    except RelaxError as err:
        return data, err
    compact = st is None or st == tuple(dense_strides(dims))
    if not compact or off != 0 or dims != tuple(arr.shape) or want != have:
        raise UnsupportedError(f"{fname}: the JAX executor only passes whole buffers (compact, offset 0, the "
                               f"buffer's dtype and shape) to packed functions; got a view of '{owner.name}'")
    return data, None


def _arrays(kx, exprs, fname: str, mask: Any) -> Optional[List[Any]]:
    """The data variables of the descriptors ``exprs`` (left to right), or ``None`` after the first
    invalid one became a check site where the call runs (TIR.PACKED.5: before the look-up)."""
    out = []
    for e in exprs:
        dv, err = _array(kx, e, fname)
        if err is not None:
            kx.check(np.bool_(True), mask, lambda err=err: err)
            return None
        out.append(dv)
    return out


def _static(kx, e: P.PrimExpr, what: str, fname: str) -> Any:
    if isinstance(e, P.PrimStringImm):
        return e.value
    v = kx.ev(e)
    if not is_static(v):
        raise UnsupportedError(f"{fname}: {what} must be a constant for the JAX executor")
    return v


def sort_order(x: Any, axis: int, ascend: bool) -> Any:
    """The stable permutation of OP.SEARCH.KERNEL.2 along ``axis``, as int64 positions."""
    iota = lax.broadcasted_iota(jnp.int32, x.shape, axis)
    if jnp.issubdtype(x.dtype, jnp.floating):
        nan = jnp.isnan(x)
        key = jnp.where(nan | (x == 0), jnp.zeros((), x.dtype), x)      # -0.0 ties with 0.0
        if ascend:
            keys = (nan.astype(jnp.int8), key)
        else:
            keys = ((~nan).astype(jnp.int8), -key)
    elif jnp.issubdtype(x.dtype, jnp.integer):
        keys = (x if ascend else ~x,)
    else:
        raise UnsupportedError(f"sort of dtype {x.dtype} is not supported")
    out = lax.sort(keys + (iota,), dimension=axis, is_stable=True, num_keys=len(keys))
    return out[-1]


def lower_packed_call(kx, call: P.PrimCall, mask: Any) -> None:
    """Execute ``call`` (a ``tvm_call_packed`` statement) on the kernel state ``kx``."""
    if not call.args or not isinstance(call.args[0], P.PrimStringImm):
        raise UnsupportedError("T.call_packed needs the function name (a string) as its first argument")
    fname = call.args[0].value
    if fname not in SORT_FUNCS:
        host_packed_call(kx, call, mask)
        return
    if kx.grid is not None:
        raise UnsupportedError(f"{fname} inside a vectorized loop nest")
    args = call.args[1:]
    if fname == "tvm.contrib.sort.topk":
        if len(args) < 5:
            raise PackedFuncError(f"{fname}: too few arguments")
        arrays, scalars = args[:-4], args[-4:]
    else:
        if len(args) != 4:
            raise PackedFuncError(f"{fname}: expected data, out, axis, is_ascend")
        arrays, scalars = args[:2], args[2:]
    dvs = _arrays(kx, arrays, fname, mask)
    if dvs is None:
        return
    vals = [_static(kx, s, n, fname) for s, n in zip(scalars, ("k", "axis", "ret_type", "is_ascend")[-len(scalars):])]
    data = kx.arrays[dvs[0]]
    ndim = data.ndim
    axis = int(vals[-2] if fname != "tvm.contrib.sort.topk" else vals[1])
    if not -ndim <= axis < ndim:
        raise PackedFuncError(f"{fname}: axis {axis} is out of range for an input of rank {ndim}")
    axis %= ndim
    ascend = bool(vals[-1])
    order = sort_order(data, axis, ascend)
    writes: List[Tuple[Any, Any]] = []
    if fname == "tvm.contrib.sort.topk":
        n = data.shape[axis]
        k = int(vals[0])
        k = n if k < 1 else k
        ret_type = vals[2]
        want = {"both": 2, "values": 1, "indices": 1}.get(ret_type)
        if want is None or len(dvs) - 1 != want:
            raise PackedFuncError(f"{fname}: ret_type {ret_type!r} with {len(dvs) - 1} output(s)")
        if k > n:
            raise PackedFuncError(f"{fname}: k = {k} exceeds the axis length {n}")
        order = lax.slice_in_dim(order, 0, k, axis=axis)
        kinds = ("values", "indices") if ret_type == "both" else (ret_type,)
        for dv, kind in zip(dvs[1:], kinds):
            writes.append((dv, jnp.take_along_axis(data, order, axis=axis) if kind == "values" else order))
    elif fname == "tvm.contrib.sort.sort":
        writes.append((dvs[1], jnp.take_along_axis(data, order, axis=axis)))
    else:
        writes.append((dvs[1], order))
    for i, (dv, val) in enumerate(writes):
        out = kx.arrays[dv]
        if (fname == "tvm.contrib.sort.sort" or (i == 0 and fname.endswith("topk") and vals[2] != "indices")) \
                and out.dtype != data.dtype:
            raise PackedFuncError(f"{fname}: the output dtype {out.dtype} differs from the input dtype {data.dtype}")
        if tuple(out.shape) != tuple(val.shape):
            raise PackedFuncError(f"{fname}: output '{kx.owner[dv].name}' has shape {list(out.shape)}, expected "
                                  f"{list(val.shape)}")
        if dv in kx.readonly:
            name = kx.owner[dv].name
            kx.check(np.bool_(True), mask, lambda: OpRuntimeError(
                f"{fname} writes buffer '{name}', whose tensor is read-only here (CALL.TIR.6)"))
        val = val.astype(out.dtype)
        if mask is not None and not (is_static(mask) and bool(mask)):
            val = jnp.where(mask, val, out)
        kx.arrays[dv] = val


def host_packed_call(kx, call: P.PrimCall, mask: Any) -> None:
    """TIR.PACKED.1-2 for a packed function that is not a sort kernel: a host call through
    ``jax.pure_callback`` (skipped at points where ``mask`` is false); a failure of the function is a
    PackedFuncError check site."""
    fname = call.args[0].value
    if kx.grid is not None:
        raise UnsupportedError(f"packed function '{fname}' inside a vectorized loop nest")
    if kx.lookup is None:
        raise UnsupportedError(f"packed function '{fname}' called from TensorIR without a function registry")
    kinds: List[Any] = []          # ("array", data var) | ("shape", n) | ("str", s) | ("scalar", dtype)
    operands: List[Any] = []
    arrays: List[Any] = []         # the distinct data variables, in the order of their operands
    for a in call.args[1:]:
        if _is(a, "tir.tvm_stack_make_array"):
            got = _arrays(kx, (a,), fname, mask)
            if got is None:             # an invalid descriptor fails before the look-up (TIR.PACKED.5)
                return
            dv = got[0]
            kinds.append(("array", dv))
            if dv not in arrays:            # a buffer passed twice is one host array (TIR.PACKED.2)
                arrays.append(dv)
                operands.append(kx.arrays[dv])
        elif _is(a, "tir.tvm_stack_make_shape"):
            kinds.append(("shape", len(a.args)))
            operands.extend(jnp.asarray(kx.ev(d, mask), jnp.int64) for d in a.args)
        elif isinstance(a, P.PrimStringImm):
            kinds.append(("str", a.value))
        else:
            kinds.append(("scalar", a.dtype))
            operands.append(jnp.asarray(kx.ev(a, mask), np_dtype(a.dtype)))
    try:                                # after the arguments (TIR.PACKED.5)
        fn = kx.lookup(fname).fn
    except RelaxError as err:           # looked up when the call runs: an untaken call cannot fail
        missing = err
        kx.check(np.bool_(True), mask, lambda: missing)
        return
    readonly = [dv in kx.readonly for dv in arrays]
    failure: List[str] = []
    run = mask if mask is not None else np.bool_(True)

    def host(run_here, *ops):
        it = iter(ops)
        host_args, outs = [], {}
        for k in kinds:
            if k[0] == "array":
                if k[1] not in outs:
                    arr = np.array(next(it))
                    arr.setflags(write=not readonly[len(outs)])
                    outs[k[1]] = arr
                host_args.append(outs[k[1]])
            elif k[0] == "shape":
                host_args.append(ShapeValue(tuple(int(next(it)) for _ in range(k[1]))))
            elif k[0] == "str":
                host_args.append(k[1])
            else:
                v = np.asarray(next(it))
                host_args.append(bool(v) if k[1] == "bool" else v.item())
        code = np.int32(0)
        if bool(run_here):
            try:
                fn(*host_args)
            except Exception as err:  # noqa: BLE001 - any failure of the callee is a packed_func error
                failure[:] = [f"packed function '{fname}' failed: {type(err).__name__}: {err}"]
                code = np.int32(1)
        return tuple(np.array(outs[dv]) for dv in arrays) + (code,)

    result_shapes = tuple(jax.ShapeDtypeStruct(kx.arrays[dv].shape, kx.arrays[dv].dtype) for dv in arrays) + \
        (jax.ShapeDtypeStruct((), np.int32),)
    res = jax.pure_callback(host, result_shapes, jnp.asarray(run), *operands)
    kx.check(res[-1] != 0, mask, lambda: PackedFuncError(failure[0] if failure else
                                                         f"packed function '{fname}' failed"))
    for dv, new, ro in zip(arrays, res[:-1], readonly):
        if not ro:
            kx.arrays[dv] = new


__all__ = ["is_packed_call", "lower_packed_call", "host_packed_call", "sort_order", "SORT_FUNCS"]
