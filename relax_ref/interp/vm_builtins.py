"""The ``vm.builtin.*`` functions of TVM's ``VMShapeLower`` pass (spec rules CALL.SHAPEHEAP.1-3).

``VMShapeLower`` (the last Relax-to-Relax pass before VM code generation, TVM 0.25 and 0.27) replaces
the struct-info checks of parameters and ``match_cast`` by packed calls, and keeps the values of
symbolic variables in a *shape heap*: an ``int64`` tensor allocated once per function, written by
``match_shape`` / ``match_prim_value`` and read by ``make_shape`` / ``make_prim_value`` (and by the
PrimFuncs TVM generates to compute symbolic expressions, called directly with the heap). A module
printed after the pass is still Relax; these functions make it run on the reference.

* ``alloc_shape_heap(ctx, size)`` (through ``R.call_builtin_with_ctx``): a zeroed ``int64`` tensor of
  ``size`` slots (CALL.SHAPEHEAP.1).
* ``match_shape(value, heap, n, code_0, arg_0, ..., code_{n-1}, arg_{n-1}, err)``: ``value`` (a tensor
  or a shape) has ``n`` dimensions, and each dimension ``d_i`` is matched by its code: 0
  ``d_i == arg_i``, 1 ``heap[arg_i] = d_i``, 2 no check, 3 ``d_i == heap[arg_i]``;
  ``match_prim_value(value, heap, code, arg, err)`` does the same for one prim value
  (CALL.SHAPEHEAP.2).
* ``make_shape(heap, n, code_0, arg_0, ...)``: a shape whose ``i``-th dimension is ``arg_i`` (code 0)
  or ``heap[arg_i]`` (code 1); ``make_prim_value(heap, code, arg)`` one such ``int64`` prim value.
* ``check_tensor_info(value, ndim[, dtype], err)``, ``check_shape_info(value, ndim, err)``,
  ``check_prim_value_info(value, dtype, err)``, ``check_tuple_info(value, size, err)``,
  ``check_func_info(value, err)``: the kind, rank, dtype and arity checks of EVAL.CHECK (``ndim`` -1 and
  dtype ``void`` accept any), CALL.SHAPEHEAP.3.

Failures raise the error the un-lowered check raises (EVAL.CHECK.8): ``type_mismatch`` for the wrong
kind of value, ``ndim_mismatch``, ``dtype_mismatch``, ``arity_mismatch``, ``shape_mismatch`` for a
dimension and ``value_mismatch`` for a prim value; the message starts with the error context string
TVM's pass attaches (the function, parameter and annotation). An unknown code or a heap slot out of
range is ``op_runtime`` (TVM's internal error).
"""

from __future__ import annotations

from typing import Any, Callable, Dict

import numpy as np

from ..errors import (
    ArityMismatchError, DTypeMismatchError, NDimMismatchError, OpRuntimeError, ShapeMismatchError,
    TypeMismatchError, ValueMismatchError,
)
from ..ir import dtype as _dt
from ..values import Closure, DTypeValue, PackedFunc, PrimFuncRef, PrimScalar, ShapeValue, describe

#: the codes of ``match_shape`` / ``match_prim_value`` (TVM's ``MatchShapeCode``)
ASSERT_EQUAL_TO_IMM, STORE_TO_HEAP, NO_OP, ASSERT_EQUAL_TO_LOAD = 0, 1, 2, 3
#: the codes of ``make_shape`` / ``make_prim_value`` (TVM's ``MakeShapeCode``)
USE_IMM, LOAD_SHAPE = 0, 1


def _int(v: Any, what: str) -> int:
    if isinstance(v, PrimScalar) and _dt.is_integer(v.dtype):
        return int(v.value)
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return int(v)
    raise TypeMismatchError(f"{what} must be an integer prim value, got {describe(v)}")


def _context(err: Any) -> str:
    return f"{err.strip()}: " if isinstance(err, str) and err.strip() else ""


def _heap(heap: Any, name: str) -> Any:
    if heap is None:
        return None
    if not isinstance(heap, np.ndarray) or heap.ndim != 1 or heap.dtype != np.int64:
        raise TypeMismatchError(f"{name}: the shape heap must be a 1-D int64 tensor, got {describe(heap)}")
    return heap


def _slot(heap: Any, reg: int, name: str) -> int:
    if heap is None or not 0 <= reg < heap.shape[0]:
        size = "no heap" if heap is None else f"a heap of {heap.shape[0]} slots"
        raise OpRuntimeError(f"{name}: slot {reg} is out of range ({size})")
    return reg


def _match(value: int, heap: Any, code: int, reg: int, name: str, what: str, err: Any, cls) -> None:
    if code == NO_OP:
        return
    if code == ASSERT_EQUAL_TO_IMM:
        if value != reg:
            raise cls(f"{_context(err)}{what} is {value}, expected {reg}")
    elif code == STORE_TO_HEAP:
        heap[_slot(heap, reg, name)] = value
    elif code == ASSERT_EQUAL_TO_LOAD:
        known = int(heap[_slot(heap, reg, name)])
        if value != known:
            raise cls(f"{_context(err)}{what} is {value}, expected {known} (an earlier value of the same variable)")
    else:
        raise OpRuntimeError(f"{name}: unknown match code {code}")


def alloc_shape_heap(ctx: Any, size: Any) -> np.ndarray:
    """CALL.SHAPEHEAP.1."""
    n = _int(size, "alloc_shape_heap size")
    if n < 0:
        raise OpRuntimeError(f"alloc_shape_heap: negative size {n}")
    return np.zeros((n,), np.int64)


def match_shape(value: Any, heap: Any, size: Any, *rest: Any) -> None:
    """CALL.SHAPEHEAP.2 for the dimensions of a tensor or a shape."""
    name = "vm.builtin.match_shape"
    heap = _heap(heap, name)
    n = _int(size, f"{name} size")
    if len(rest) != 2 * n + 1:
        raise TypeMismatchError(f"{name}: expects {2 * n} codes and slots and an error context, got "
                                f"{len(rest)} arguments after the size")
    err = rest[-1]
    if isinstance(value, np.ndarray):
        dims = value.shape
    elif isinstance(value, ShapeValue):
        dims = tuple(value)
    else:
        raise TypeMismatchError(f"{_context(err)}expected a tensor or a shape, got {describe(value)}")
    if len(dims) != n:
        raise NDimMismatchError(f"{_context(err)}rank is {len(dims)}, expected {n}")
    for i in range(n):
        code, reg = _int(rest[2 * i], f"{name} code"), _int(rest[2 * i + 1], f"{name} slot")
        _match(int(dims[i]), heap, code, reg, name, f"shape[{i}]", err, ShapeMismatchError)


def match_prim_value(value: Any, heap: Any, code: Any, reg: Any, err: Any = None) -> None:
    """CALL.SHAPEHEAP.2 for one prim value."""
    name = "vm.builtin.match_prim_value"
    heap = _heap(heap, name)
    v = _int(value, f"{_context(err)}the matched value")
    _match(v, heap, _int(code, f"{name} code"), _int(reg, f"{name} slot"), name, "the prim value", err,
           ValueMismatchError)


def _make(heap: Any, code: int, reg: int, name: str) -> int:
    if code == USE_IMM:
        return reg
    if code == LOAD_SHAPE:
        return int(heap[_slot(heap, reg, name)])
    raise OpRuntimeError(f"{name}: unknown shape code {code}")


def make_shape(heap: Any, size: Any, *rest: Any) -> ShapeValue:
    """CALL.SHAPEHEAP.2: a shape from immediates and heap slots."""
    name = "vm.builtin.make_shape"
    heap = _heap(heap, name)
    n = _int(size, f"{name} size")
    if len(rest) != 2 * n:
        raise TypeMismatchError(f"{name}: expects {2 * n} codes and slots, got {len(rest)}")
    dims = [_make(heap, _int(rest[2 * i], f"{name} code"), _int(rest[2 * i + 1], f"{name} slot"), name)
            for i in range(n)]
    if any(d < 0 for d in dims):
        raise OpRuntimeError(f"{name}: negative dimension in {dims}")
    return ShapeValue(dims)


def make_prim_value(heap: Any, code: Any, reg: Any) -> PrimScalar:
    """CALL.SHAPEHEAP.2: an ``int64`` prim value from an immediate or a heap slot."""
    name = "vm.builtin.make_prim_value"
    return PrimScalar(_make(_heap(heap, name), _int(code, f"{name} code"), _int(reg, f"{name} slot"), name), "int64")


def _dtype_name(d: Any) -> str:
    if isinstance(d, DTypeValue):
        return d.name
    if isinstance(d, str):
        return d
    raise TypeMismatchError(f"expected a data type, got {describe(d)}")


def check_tensor_info(value: Any, ndim: Any, *rest: Any) -> None:
    """CALL.SHAPEHEAP.3: a tensor of rank ``ndim`` (-1: any) and ``dtype`` (absent or void: any)."""
    if len(rest) not in (1, 2):
        raise TypeMismatchError(f"vm.builtin.check_tensor_info: expects 3 or 4 arguments, got {2 + len(rest)}")
    dtype, err = (None, rest[0]) if len(rest) == 1 else (rest[0], rest[1])
    if not isinstance(value, np.ndarray):
        raise TypeMismatchError(f"{_context(err)}expected a tensor, got {describe(value)}")
    n = _int(ndim, "check_tensor_info ndim")
    if n != -1 and value.ndim != n:
        raise NDimMismatchError(f"{_context(err)}rank is {value.ndim}, expected {n}")
    want = None if dtype is None else _dtype_name(dtype)
    if want not in (None, "void"):
        have = _dt.from_numpy(value.dtype)
        if have != want:
            raise DTypeMismatchError(f"{_context(err)}dtype is {have}, expected {want}")


def check_shape_info(value: Any, ndim: Any, err: Any = None) -> None:
    """CALL.SHAPEHEAP.3: a shape of ``ndim`` dimensions (-1: any)."""
    if not isinstance(value, ShapeValue):
        raise TypeMismatchError(f"{_context(err)}expected a shape, got {describe(value)}")
    n = _int(ndim, "check_shape_info ndim")
    if n != -1 and len(value) != n:
        raise NDimMismatchError(f"{_context(err)}rank is {len(value)}, expected {n}")


def check_prim_value_info(value: Any, dtype: Any, err: Any = None) -> None:
    """CALL.SHAPEHEAP.3: a prim value of ``dtype`` (void: any), as the reference checks ``R.Prim``."""
    if not isinstance(value, PrimScalar):
        raise TypeMismatchError(f"{_context(err)}expected a prim value, got {describe(value)}")
    want = _dtype_name(dtype)
    if want != "void" and value.dtype != want:
        raise DTypeMismatchError(f"{_context(err)}dtype is {value.dtype}, expected {want}")


def check_tuple_info(value: Any, size: Any, err: Any = None) -> None:
    """CALL.SHAPEHEAP.3: a tuple of ``size`` fields."""
    if not isinstance(value, tuple) or isinstance(value, ShapeValue):
        raise TypeMismatchError(f"{_context(err)}expected a tuple, got {describe(value)}")
    n = _int(size, "check_tuple_info size")
    if len(value) != n:
        raise ArityMismatchError(f"{_context(err)}tuple has {len(value)} fields, expected {n}")


def check_func_info(value: Any, err: Any = None) -> None:
    """CALL.SHAPEHEAP.3: a function value (closure, packed function or PrimFunc)."""
    if not isinstance(value, (Closure, PackedFunc, PrimFuncRef)):
        raise TypeMismatchError(f"{_context(err)}expected a function, got {describe(value)}")


def _unit(fn: Callable[..., None]) -> Callable[..., Any]:
    def run(*args: Any) -> Any:
        fn(*args)
        return ()
    run.__name__ = fn.__name__
    return run


#: name -> implementation (host values in, host values out)
SHAPE_HEAP_FUNCS: Dict[str, Callable[..., Any]] = {
    "vm.builtin.alloc_shape_heap": alloc_shape_heap,
    "vm.builtin.match_shape": _unit(match_shape),
    "vm.builtin.match_prim_value": _unit(match_prim_value),
    "vm.builtin.make_shape": make_shape,
    "vm.builtin.make_prim_value": make_prim_value,
    "vm.builtin.check_tensor_info": _unit(check_tensor_info),
    "vm.builtin.check_shape_info": _unit(check_shape_info),
    "vm.builtin.check_prim_value_info": _unit(check_prim_value_info),
    "vm.builtin.check_tuple_info": _unit(check_tuple_info),
    "vm.builtin.check_func_info": _unit(check_func_info),
}


__all__ = ["SHAPE_HEAP_FUNCS", "alloc_shape_heap", "match_shape", "match_prim_value", "make_shape",
           "make_prim_value", "check_tensor_info", "check_shape_info", "check_prim_value_info",
           "check_tuple_info", "check_func_info"]
