"""``T.call_packed`` inside TensorIR on the JAX executor (TIR.PACKED.1-3).

Only TVM's CPU sort kernels are lowered -- ``tvm.contrib.sort.sort``, ``argsort`` and ``topk``, which
``DispatchSortScan`` and the legalization of ``median`` call -- as ``lax.sort`` over whole buffers with
the order of OP.SEARCH.KERNEL.2 (stable in both directions, NaN above every number). Their array
descriptors (``T.tvm_stack_make_array``) must cover a whole buffer: compact strides, offset 0, the
buffer's dtype and its exact (unpadded) extents; a padded buffer raises NeedsExact (the function is
retraced with exact shapes), any other descriptor, and every other packed function, UnsupportedError.
"""

from __future__ import annotations

from typing import Any, List, Tuple

import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.arith.intrinsics import canonical_name
from relax_ref.errors import OpRuntimeError, PackedFuncError, UnsupportedError
from relax_ref.ir import prim_expr as P

from ..errors import NeedsExact
from ..prim_jax import is_static, np_dtype

PACKED_CALLS = frozenset({"tir.tvm_call_packed", "tir.tvm_call_cpacked"})
SORT_FUNCS = frozenset({"tvm.contrib.sort.sort", "tvm.contrib.sort.argsort", "tvm.contrib.sort.topk"})


def is_packed_call(e: Any) -> bool:
    return isinstance(e, P.PrimCall) and canonical_name(e.op) in PACKED_CALLS


def _is(e: Any, name: str) -> bool:
    return isinstance(e, P.PrimCall) and canonical_name(e.op) == name


def _array(kx, e: P.PrimExpr, fname: str):
    """The data variable of a whole-buffer descriptor, with its static shape."""
    if not _is(e, "tir.tvm_stack_make_array") or len(e.args) != 6:
        raise UnsupportedError(f"{fname}: the JAX executor needs T.tvm_stack_make_array arguments for arrays")
    data, shape, strides, ndim, hint, offset = e.args
    if not isinstance(data, P.PrimVar) or data not in kx.arrays:
        raise UnsupportedError(f"{fname}: the array descriptor does not name a buffer's data")
    if not _is(shape, "tir.tvm_stack_make_shape"):
        raise UnsupportedError(f"{fname}: the array shape must be a T.tvm_stack_make_shape(...)")
    owner = kx.owner[data]
    arr = kx.arrays[data]
    logical = kx.logical[data]
    if not all(is_static(x) for x in logical) or tuple(int(x) for x in logical) != tuple(arr.shape):
        raise NeedsExact(f"{fname} over the padded buffer '{owner.name}'")
    dims = tuple(kx.static_int(d) for d in shape.args)
    off = kx.static_int(offset)
    if not (isinstance(strides, P.IntImm) and strides.value == 0) or off != 0 or None in dims or \
            dims != tuple(arr.shape) or not isinstance(ndim, P.IntImm) or ndim.value != len(dims) or \
            np_dtype(hint.dtype) != np.dtype(arr.dtype):
        raise UnsupportedError(f"{fname}: the JAX executor only passes whole buffers (compact, offset 0, the "
                               f"buffer's dtype and shape) to packed functions; got a view of '{owner.name}'")
    return data


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
        raise UnsupportedError(f"packed function '{fname}' called from TensorIR is not supported by the JAX "
                               f"executor (it lowers only {', '.join(sorted(SORT_FUNCS))})")
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
    dvs = [_array(kx, a, fname) for a in arrays]
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


__all__ = ["is_packed_call", "lower_packed_call", "sort_order", "SORT_FUNCS"]
