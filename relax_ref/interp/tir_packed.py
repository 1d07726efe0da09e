"""Packed calls inside TensorIR (TIR.PACKED.*): ``T.call_packed`` / ``T.call_cpacked``, the array
descriptors ``T.tvm_stack_make_array`` / ``T.tvm_stack_make_shape`` they receive, and relax-ref's
versions of TVM's CPU sort kernels ``tvm.contrib.sort.{sort,argsort,topk}``.

* (TIR.PACKED.1) ``tvm_call_packed("name", a1, ..., an)`` evaluates its arguments left to right, looks
  ``name`` up (the calling interpreter's registry when there is one, then the global registry, then the
  built-ins; an unknown name is a PackedFuncError) and calls it with host values: an array descriptor
  as a numpy view, a string as ``str``, a scalar as a Python scalar. Its value is the function's
  integer or bool result (wrapped to int32), else 0. A failure inside the function is a
  PackedFuncError.
* (TIR.PACKED.2) ``tvm_stack_make_array(data, shape, strides, ndim, arr_dtype, elem_offset)`` is a numpy
  view of the memory behind the pointer ``data`` (the array bound to the buffer data variable): dtype
  of the expression ``arr_dtype`` (its value is ignored), the dimensions of ``shape``, the element
  strides of ``strides`` (``0``: compact row-major), starting ``elem_offset`` elements in. Writes
  through the view reach every buffer over that memory; a view of a read-only ``call_tir`` input is
  read-only.
* (TIR.PACKED.3) the sort kernels: see :func:`contrib_sort`, :func:`contrib_argsort`,
  :func:`contrib_topk`.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from ..arith import semantics as _sem
from ..errors import (
    NDimMismatchError, PackedFuncError, RelaxError, RelaxRuntimeError, TIRBoundsError, TypeMismatchError,
    UnsupportedError,
)
from ..ir import dtype as _dt
from ..ir import prim_expr as P

Fn = Callable[[Dict], Any]

#: environment key of the packed-function lookup of the calling interpreter (``name -> PackedFunc``)
PACKED_LOOKUP = object()

PACKED_CALLS = frozenset({"tir.tvm_call_packed", "tir.tvm_call_cpacked"})
MAKE_ARRAY = "tir.tvm_stack_make_array"
MAKE_SHAPE = "tir.tvm_stack_make_shape"


# ---------------------------------------------------------------------------------------------------
# Compilation of the intrinsics
# ---------------------------------------------------------------------------------------------------


def _is(e: P.PrimExpr, name: str) -> bool:
    from ..arith.intrinsics import canonical_name

    return isinstance(e, P.PrimCall) and canonical_name(e.op) == name


def compile_shape(compile_expr: Callable[[P.PrimExpr], Fn], e: P.PrimCall) -> Callable[[Dict], Tuple[int, ...]]:
    """``tvm_stack_make_shape(d0, ...)`` as a function returning the tuple of ints."""
    parts = [compile_expr(a) for a in e.args]
    return lambda env: tuple(int(p(env)) for p in parts)


def compile_make_array(compile_expr: Callable[[P.PrimExpr], Fn], e: P.PrimCall) -> Fn:
    """TIR.PACKED.2: ``tvm_stack_make_array(...)`` as a function returning the numpy view."""
    if len(e.args) != 6:
        raise UnsupportedError(f"T.tvm_stack_make_array takes 6 arguments, got {len(e.args)}")
    data, shape, strides, ndim, hint, offset = e.args
    if not _is(shape, MAKE_SHAPE):
        raise UnsupportedError("T.tvm_stack_make_array: the shape must be a T.tvm_stack_make_shape(...)")
    f_data = compile_expr(data)
    f_shape = compile_shape(compile_expr, shape)
    if _is(strides, MAKE_SHAPE):
        f_strides: Optional[Callable] = compile_shape(compile_expr, strides)
    elif isinstance(strides, P.IntImm) and strides.value == 0:
        f_strides = None
    else:
        raise UnsupportedError("T.tvm_stack_make_array: strides must be 0 (compact) or a "
                               "T.tvm_stack_make_shape(...)")
    if not isinstance(ndim, P.IntImm):
        raise UnsupportedError("T.tvm_stack_make_array: ndim must be an integer literal")
    rank = int(ndim.value)
    dtype = hint.dtype
    try:
        np_dtype = _dt.to_numpy(dtype)
    except RelaxError:
        raise UnsupportedError(f"T.tvm_stack_make_array: no array of dtype {dtype}") from None
    f_off = compile_expr(offset)
    where = data.name if isinstance(data, P.PrimVar) else "data"

    def make(env):
        base = f_data(env)
        if not isinstance(base, np.ndarray):
            raise TypeMismatchError(f"T.tvm_stack_make_array: '{where}' is not the pointer of an array "
                                    f"(got {type(base).__name__})")
        shp = f_shape(env)
        st = f_strides(env) if f_strides is not None else None
        off = int(f_off(env))
        return array_view(base, shp, st, rank, np_dtype, off, where)
    return make


def check_descriptor_form(shape: Tuple[int, ...], strides: Optional[Tuple[int, ...]], ndim: int,
                          where: str = "data") -> None:
    """TIR.PACKED.2: ``ndim`` against the shape and the strides, no negative extent (the first
    checks of a descriptor, before its memory is looked at; TIR.PACKED.5 puts them before the
    function's look-up). Shared by every evaluator."""
    if len(shape) != ndim:
        raise NDimMismatchError(f"T.tvm_stack_make_array over '{where}': ndim is {ndim} but the shape "
                                f"{list(shape)} has {len(shape)} dimensions")
    if strides is not None and len(strides) != ndim:
        raise NDimMismatchError(f"T.tvm_stack_make_array over '{where}': {len(strides)} strides for "
                                f"{ndim} dimensions")
    if any(n < 0 for n in shape):
        raise RelaxRuntimeError(f"T.tvm_stack_make_array over '{where}': negative extent in {list(shape)}")


def check_descriptor_bounds(shape: Tuple[int, ...], strides: Optional[Tuple[int, ...]], offset: int,
                            memory: int, where: str = "data") -> None:
    """TIR.PACKED.2: every element of the described array inside ``memory`` elements (of the
    descriptor's dtype); ``strides`` ``None`` is compact row-major. Shared by every evaluator."""
    size = int(np.prod(shape, dtype=object)) if shape else 1
    if strides is None:
        if offset < 0 or offset + size > memory:
            raise TIRBoundsError(f"T.tvm_stack_make_array over '{where}' (shape {list(shape)}, offset "
                                 f"{offset}) exceeds its memory of {memory} elements", buffer=where,
                                 shape=tuple(shape))
        return
    last = offset + sum((n - 1) * s for n, s in zip(shape, strides) if n > 0)
    if size and (offset < 0 or last >= memory or min(strides, default=0) < 0):
        raise TIRBoundsError(f"T.tvm_stack_make_array over '{where}' (shape {list(shape)}, strides "
                             f"{list(strides)}, offset {offset}) exceeds its memory of {memory} "
                             "elements", buffer=where, shape=tuple(shape))


def array_view(base: np.ndarray, shape: Tuple[int, ...], strides: Optional[Tuple[int, ...]], ndim: int,
               dtype: np.dtype, offset: int, where: str = "data") -> np.ndarray:
    """TIR.PACKED.2: the view of ``base``'s memory described by an array descriptor."""
    check_descriptor_form(shape, strides, ndim, where)
    dense = strides is None
    if strides is not None:
        acc, want = 1, []
        for n in reversed(shape):
            want.append(acc)
            acc *= n
        dense = tuple(reversed(want)) == tuple(strides)
    if dense and offset == 0 and base.shape == tuple(shape) and base.dtype == dtype:
        return base
    if not base.flags.c_contiguous:
        raise UnsupportedError(f"T.tvm_stack_make_array over '{where}': the memory is a non-contiguous "
                               "view; relax-ref only re-views dense memory")
    flat = base.reshape(-1)
    if flat.dtype != dtype:
        if (flat.size * flat.dtype.itemsize) % dtype.itemsize:
            raise UnsupportedError(f"T.tvm_stack_make_array over '{where}': {flat.dtype} memory cannot be "
                                   f"read as {dtype}")
        flat = flat.view(dtype)
    check_descriptor_bounds(shape, None if dense else strides, offset, flat.size, where)
    if dense:
        size = int(np.prod(shape, dtype=np.int64)) if shape else 1
        return flat[offset:offset + size].reshape(shape)
    return np.lib.stride_tricks.as_strided(flat[offset:], tuple(shape),
                                           tuple(s * dtype.itemsize for s in strides),
                                           writeable=flat.flags.writeable)


def _host_scalar(fn: Fn, dtype: str) -> Fn:
    if dtype == "bool":
        return lambda env: bool(fn(env))
    if _dt.is_integer(dtype):
        return lambda env: int(fn(env))
    if _dt.is_float(dtype):
        return lambda env: float(fn(env))
    return fn


def lookup_packed(env: Dict, name: str):
    """The packed function ``name`` for a call inside TensorIR (TIR.PACKED.1), through the look-up
    of the evaluator running the PrimFunc (:func:`relax_ref.interp.builtins.lookup_packed`)."""
    return env[PACKED_LOOKUP](name)


def compile_packed_call(compile_expr: Callable[[P.PrimExpr], Fn], e: P.PrimCall) -> Fn:
    """TIR.PACKED.1: ``tvm_call_packed("name", ...)`` as a function performing the call."""
    if not e.args or not isinstance(e.args[0], P.PrimStringImm):
        raise UnsupportedError("T.call_packed needs the function name (a string) as its first argument")
    name = e.args[0].value
    parts: List[Fn] = []
    for a in e.args[1:]:
        if _is(a, MAKE_ARRAY):
            parts.append(compile_make_array(compile_expr, a))
        elif _is(a, MAKE_SHAPE):
            from ..values import ShapeValue

            f = compile_shape(compile_expr, a)
            parts.append(lambda env, f=f: ShapeValue(f(env)))
        elif isinstance(a, P.PrimStringImm):
            s = a.value
            parts.append(lambda env, s=s: s)
        else:
            parts.append(_host_scalar(compile_expr(a), a.dtype))

    def call(env):
        args = [p(env) for p in parts]
        fn = lookup_packed(env, name)
        try:
            r = fn(*args)
        except RelaxError:
            raise
        except Exception as err:  # noqa: BLE001 - any failure of the callee is a packed_func error
            raise PackedFuncError(f"packed function '{name}' failed: {type(err).__name__}: {err}") from err
        r = getattr(r, "value", r)
        if isinstance(r, (bool, int, np.integer, np.bool_)):
            return _sem.wrap(int(r), "int32")
        return 0
    return call


# ---------------------------------------------------------------------------------------------------
# tvm.contrib.sort.* (TIR.PACKED.3)
# ---------------------------------------------------------------------------------------------------


def _array(v: Any, what: str, fname: str) -> np.ndarray:
    if not isinstance(v, np.ndarray):
        raise PackedFuncError(f"{fname}: {what} must be an array, got {type(v).__name__}")
    if v.dtype == np.bool_ or v.dtype.kind not in "iuf" and v.dtype != _dt.to_numpy("bfloat16"):
        raise PackedFuncError(f"{fname}: unsupported {what} dtype {v.dtype}")
    return v


def _int_arg(v: Any, what: str, fname: str) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise PackedFuncError(f"{fname}: {what} must be an integer, got {v!r}")
    return int(v)


def _axis(data: np.ndarray, axis: Any, fname: str) -> int:
    a = _int_arg(axis, "axis", fname)
    if not -data.ndim <= a < data.ndim:
        raise PackedFuncError(f"{fname}: axis {a} is out of range for an input of rank {data.ndim}")
    return a % data.ndim


def _order(data: np.ndarray, axis: int, ascend: bool) -> np.ndarray:
    """The stable sorting permutation along ``axis`` (OP.SEARCH.KERNEL.2: NaN above every number)."""
    from ..ops.statistical import sort_order

    rows = np.moveaxis(data, axis, -1)
    return np.moveaxis(sort_order(rows, not ascend), -1, axis)


def _check_out(out: np.ndarray, shape: Tuple[int, ...], what: str, fname: str) -> None:
    if out.shape != tuple(shape):
        raise PackedFuncError(f"{fname}: {what} has shape {list(out.shape)}, expected {list(shape)}")


def _store(out: np.ndarray, values: np.ndarray, fname: str) -> None:
    try:
        out[...] = values.astype(out.dtype, copy=False) if values.dtype != out.dtype else values
    except ValueError as err:   # a read-only view of a call_tir input
        raise PackedFuncError(f"{fname}: cannot write the output: {err}") from None


def contrib_sort(data: Any, out: Any, axis: Any, is_ascend: Any) -> None:
    """``tvm.contrib.sort.sort(data, out, axis, is_ascend)``: every line of ``data`` along ``axis``
    sorted stably (ascending when ``is_ascend``) into ``out`` of the same shape and dtype."""
    fname = "tvm.contrib.sort.sort"
    data = _array(data, "input", fname)
    out = _array(out, "output", fname)
    ax = _axis(data, axis, fname)
    _check_out(out, data.shape, "the output", fname)
    if out.dtype != data.dtype:
        raise PackedFuncError(f"{fname}: the output dtype {out.dtype} differs from the input dtype {data.dtype}")
    order = _order(data, ax, bool(is_ascend))
    _store(out, np.take_along_axis(data, order, axis=ax), fname)


def contrib_argsort(data: Any, out: Any, axis: Any, is_ascend: Any) -> None:
    """``tvm.contrib.sort.argsort(data, out, axis, is_ascend)``: the positions of the stable order
    along ``axis``, converted to ``out``'s dtype (integer or float)."""
    fname = "tvm.contrib.sort.argsort"
    data = _array(data, "input", fname)
    out = _array(out, "output", fname)
    ax = _axis(data, axis, fname)
    _check_out(out, data.shape, "the output", fname)
    _store(out, _order(data, ax, bool(is_ascend)), fname)


def contrib_topk(data: Any, *rest: Any) -> None:
    """``tvm.contrib.sort.topk(data, out..., k, axis, ret_type, is_ascend)``: the first ``k``
    elements of the stable order along ``axis`` (descending unless ``is_ascend``); ``ret_type``
    ``"both"`` takes a values and an indices output, ``"values"`` / ``"indices"`` one. ``k < 1`` means
    the whole axis; the outputs have ``data``'s shape with ``k`` along ``axis``."""
    fname = "tvm.contrib.sort.topk"
    data = _array(data, "input", fname)
    if len(rest) < 5:
        raise PackedFuncError(f"{fname}: expected data, outputs, k, axis, ret_type, is_ascend; got "
                              f"{1 + len(rest)} arguments")
    outs, (k, axis, ret_type, is_ascend) = rest[:-4], rest[-4:]
    want = {"both": 2, "values": 1, "indices": 1}.get(ret_type) if isinstance(ret_type, str) else None
    if want is None:
        raise PackedFuncError(f"{fname}: unsupported ret_type {ret_type!r}")
    if len(outs) != want:
        raise PackedFuncError(f"{fname}: ret_type {ret_type!r} takes {want} output(s), got {len(outs)}")
    outs = [_array(o, "output", fname) for o in outs]
    ax = _axis(data, axis, fname)
    n = data.shape[ax]
    kk = _int_arg(k, "k", fname)
    kk = n if kk < 1 else kk
    if kk > n:
        raise PackedFuncError(f"{fname}: k = {kk} exceeds the axis length {n} (the rest of the output "
                              "would be uninitialised)")
    shape = data.shape[:ax] + (kk,) + data.shape[ax + 1:]
    order = np.take(_order(data, ax, bool(is_ascend)), np.arange(kk), axis=ax)
    values = indices = None
    if ret_type == "both":
        values, indices = outs
    elif ret_type == "values":
        values = outs[0]
    else:
        indices = outs[0]
    if values is not None:
        _check_out(values, shape, "the values output", fname)
        if values.dtype != data.dtype:
            raise PackedFuncError(f"{fname}: the values dtype {values.dtype} differs from the input dtype "
                                  f"{data.dtype}")
    if indices is not None:
        _check_out(indices, shape, "the indices output", fname)
    if values is not None:
        _store(values, np.take_along_axis(data, order, axis=ax), fname)
    if indices is not None:
        _store(indices, order, fname)


#: the kernels of TIR.PACKED.3, as host functions (CALL.PACKED.7)
SORT_FUNCS = {
    "tvm.contrib.sort.sort": contrib_sort,
    "tvm.contrib.sort.argsort": contrib_argsort,
    "tvm.contrib.sort.topk": contrib_topk,
}


__all__ = ["PACKED_LOOKUP", "PACKED_CALLS", "MAKE_ARRAY", "MAKE_SHAPE", "compile_make_array", "compile_shape",
           "compile_packed_call", "array_view", "check_descriptor_form",
           "check_descriptor_bounds", "lookup_packed", "contrib_sort", "contrib_argsort",
           "contrib_topk", "SORT_FUNCS"]
