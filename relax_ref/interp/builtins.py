"""Packed functions: the registry, host-value conversion and the built-in ``vm.builtin.*`` functions
(CALL.PACKED.*).

Registry (VAL.PACKED.2, CALL.PACKED.1). :func:`lookup_packed` resolves a name, in order, in the
caller's own registry (``Interpreter.register_func``, ``Executable.register_func``), in the global
registry (:func:`register_func`), among the static built-ins below, and finally among the built-ins
bound to the calling evaluator (closures, ``call_tir_dyn``). An unknown name raises
:class:`~relax_ref.errors.PackedFuncError`. Every evaluator (the interpreter, TensorIR's
``T.call_packed``, the JAX executor) resolves names through it.

Calling convention of user functions (CALL.PACKED.7). A function registered with
:func:`register_func` receives host values (numpy arrays -- the very arrays of the program, so it may
mutate them -- tuples, :class:`ShapeValue`, Python scalars for prim values, ``str``, ``None``) and
returns a host value; Python scalars it returns become prim values whose dtype comes from the call's
``sinfo_args`` when they name one (``R.Prim("int32")``), else ``bool``/``int64``/``float64``. An
exception escaping the function is reported as PackedFuncError (CALL.PACKED.3).

Built-ins (CALL.PACKED.6), for modules printed after TVM's lowering passes: ``vm.builtin.shape_of``,
``copy``, ``reshape``, ``null_value``, ``tensor_to_shape``, ``read_if_cond``, ``make_tuple``,
``tuple_getitem``, ``to_device``, ``ensure_zero_offset``, ``alloc_storage``, ``alloc_tensor``,
``make_closure``, ``invoke_closure`` (VM context first), ``call_tir_dyn`` (the last three need the
interpreter and are bound to it), ``runtime.TVMTensorCreateView`` (what ``R.memory.view`` lowers to); the shape-heap and check functions of TVM's ``VMShapeLower``
(CALL.SHAPEHEAP.*, :mod:`relax_ref.interp.vm_builtins`); the attention KV-cache object's
``vm.builtin.attention_kv_cache_*`` functions (CALL.KVCACHE.*, :mod:`relax_ref.interp.kv_cache`); the paged KV cache's
``vm.builtin.paged_attention_kv_cache_create`` and ``vm.builtin.kv_state_*`` functions (CALL.PAGEDKV.*,
:mod:`relax_ref.interp.paged_kv_cache`); the ``relax.run.*`` functions that TVM's
``LegalizeOps`` calls for operators implemented by a packed function (CALL.PACKED.8: ``print``, bound
to the interpreter's output, ``assert_op``, ``shape_to_tensor``, ``nonzero``, ``unique``); and TVM's CPU
sort kernels ``tvm.contrib.sort.sort`` / ``argsort`` / ``topk`` that ``T.call_packed`` calls from
TensorIR (TIR.PACKED.3, :mod:`relax_ref.interp.tir_packed`); the collective library's
``runtime.disco.allreduce`` / ``allgather`` / ``broadcast_from_worker0`` / ``scatter_from_worker0`` /
``worker_id`` that ``LegalizeOps`` lowers the ``ccl`` operators to (CALL.PACKED.9,
:mod:`relax_ref.ops.ccl_runtime`).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Mapping, Optional

import numpy as np

from ..errors import (
    AssertionFailedError, DTypeMismatchError, NDimMismatchError, OpRuntimeError, PackedFuncError, RelaxError, Span,
    TypeMismatchError,
)
from ..ir import dtype as _dt
from ..ir import struct_info as si
from ..limits import check_in_dtype, check_int64
from ..ops.ccl_runtime import DISCO_FUNCS
from ..ops.search import RUNTIME_FUNCS
from ..values import (
    Closure, DTypeValue, PackedFunc, PrimFuncRef, PrimScalar, ShapeValue, Storage, describe, to_public,
)
from .kv_cache import KV_CACHE_FUNCS
from .paged_kv_cache import PAGED_KV_FUNCS
from .tir_packed import SORT_FUNCS
from .vm_builtins import SHAPE_HEAP_FUNCS

_GLOBAL: Dict[str, PackedFunc] = {}


# ---------------------------------------------------------------------------------------------------
# Host <-> internal values
# ---------------------------------------------------------------------------------------------------


def from_host(v: Any, hint: Optional[si.StructInfo] = None) -> Any:
    """An internal value for a host value (VAL.HOST.1); ``hint`` (the parameter's struct info) guides
    the conversion (CALL.HOST.1): a Python scalar or 0-d array for ``R.Prim`` becomes a prim value of its
    dtype, a tuple of ints for ``R.Shape`` a shape, a numpy scalar for ``R.Tensor`` a 0-d tensor of
    its own dtype, a tuple or list for ``R.Tuple`` a tuple. A Python list or scalar for ``R.Tensor`` is
    a type mismatch (it has no dtype, and converting it to the annotated one could change its
    values). Arrays must hold numbers or bools and shapes must be non-negative int64 (VAL.HOST.1,
    RUNTIME.LIMIT.1). Other values are taken as they are and left to the parameter check."""
    if isinstance(v, np.ndarray):
        check_host_array(v)
        if isinstance(hint, si.PrimStructInfo) and v.ndim == 0:
            return from_host(v[()], hint)
        return v
    if isinstance(v, ShapeValue):
        return host_shape(v)
    if isinstance(v, (PrimScalar, Closure, PackedFunc, PrimFuncRef, Storage, DTypeValue, str)) or v is None:
        return v
    if isinstance(hint, si.TensorStructInfo):
        if isinstance(v, np.generic):
            arr = np.asarray(v)
            check_host_array(arr)
            return arr
        if isinstance(v, (list, bool, int, float)):
            dt = "" if hint.dtype == "void" else f", dtype={hint.dtype!r}"
            raise TypeMismatchError(f"a tensor argument must be an array, not a Python {type(v).__name__}: pass "
                                    f"numpy.asarray(value{dt})", expected="Tensor", actual=type(v).__name__)
    if isinstance(hint, si.ShapeStructInfo) and isinstance(v, (tuple, list)) and \
            all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in v):
        return host_shape(v)
    if isinstance(v, (bool, int, float, np.generic)):
        dtype = hint.dtype if isinstance(hint, si.PrimStructInfo) and hint.dtype != "void" else None
        return prim_from_host(v, dtype)
    if isinstance(v, (tuple, list)):
        fields = hint.fields if isinstance(hint, si.TupleStructInfo) and len(hint.fields) == len(v) else None
        return tuple(from_host(x, fields[i] if fields else None) for i, x in enumerate(v))
    if callable(v):
        return wrap_host_function(getattr(v, "__name__", "<function>"), v)
    return v


def _not_numeric(a: np.ndarray) -> TypeMismatchError:
    return TypeMismatchError(f"a host array of numpy dtype '{a.dtype}' is not a tensor: tensors hold numbers "
                             "or bools (VAL.HOST.1)", site="param", expected="a tensor", actual=f"array of {a.dtype}")


def check_host_array(a: np.ndarray) -> None:
    """VAL.HOST.1: a host array is a tensor only when its dtype is one of the tensor dtypes (no
    object, string, datetime or structured arrays)."""
    try:
        _dt.from_numpy(a.dtype)
    except RelaxError:
        raise _not_numeric(a) from None


def host_shape(v: Any) -> ShapeValue:
    """A host shape: every dimension a non-negative int64 (RUNTIME.LIMIT.1)."""
    dims = []
    for x in v:
        d = check_int64(x, "a host shape dimension")
        if d < 0:
            raise TypeMismatchError(f"a host shape dimension is negative ({d})", site="param",
                                    expected="a shape", actual=str(tuple(int(y) for y in v)))
        dims.append(d)
    return ShapeValue(dims)


def prim_from_host(v: Any, dtype: Optional[str]) -> Any:
    """A prim value from a host scalar (VAL.HOST.1). Without a dtype: ``bool``, ``int64`` or
    ``float64``. An int converts to a float dtype and a bool to any dtype; a float never converts to
    an integer or bool dtype (DTypeMismatchError)."""
    if isinstance(v, np.generic):
        v = v.item()
    if dtype is None:
        dtype = "bool" if isinstance(v, bool) else "int64" if isinstance(v, int) else "float64"
    if isinstance(v, float) and not _dt.is_float(dtype):
        raise DTypeMismatchError(f"the float {v!r} cannot be passed as a prim value of type {dtype}",
                                 expected=dtype, actual="float")
    if not isinstance(v, (bool, int, float)):
        raise TypeMismatchError(f"{type(v).__name__} is not a prim value", expected=dtype,
                                actual=type(v).__name__)
    if _dt.is_float(dtype):
        from ..arith.semantics import to_value

        return PrimScalar(to_value(v, dtype), dtype)
    if not isinstance(v, bool):
        check_in_dtype(int(v), dtype, "the host integer")      # RUNTIME.LIMIT.2, never wrapped
    return PrimScalar(v, dtype)


def coerce_result(v: Any, hint: Optional[si.StructInfo]) -> Any:
    """Internal value of a packed function's result, using the call's struct info as a hint."""
    if isinstance(v, PrimScalar) and isinstance(hint, si.PrimStructInfo) and hint.dtype not in ("void", v.dtype):
        from ..arith.semantics import cast

        return PrimScalar(cast(v.value, v.dtype, hint.dtype), hint.dtype)
    if isinstance(v, np.generic) and isinstance(hint, si.TensorStructInfo):
        return np.asarray(v)
    return from_host(v, hint)


def wrap_host_function(name: str, fn: Callable[..., Any]) -> PackedFunc:
    """A packed function calling a host function with host values (CALL.PACKED.7)."""

    def call(*args):
        try:
            r = fn(*[to_public(a) for a in args])
        except RelaxError:
            raise
        except Exception as e:  # noqa: BLE001 - any failure of user code is a packed_func error
            raise PackedFuncError(f"packed function '{name}' failed: {type(e).__name__}: {e}") from e
        return from_host(r)
    return PackedFunc(name, call)


def register_func(name: str, fn: Optional[Callable[..., Any]] = None, *, override: bool = True):
    """Register a host function as the packed function ``name`` in the global registry
    (VAL.PACKED.2). Usable as ``register_func("my.f", f)`` or as a decorator ``@register_func("my.f")``.
    Returns ``fn``."""
    if fn is None:
        return lambda f: register_func(name, f, override=override)
    if not override and name in _GLOBAL:
        raise PackedFuncError(f"packed function '{name}' is already registered")
    _GLOBAL[name] = wrap_host_function(name, fn)
    return fn


def global_func(name: str) -> Optional[PackedFunc]:
    return _GLOBAL.get(name)


# ---------------------------------------------------------------------------------------------------
# Rendering values (R.print, R.assert_op) and reading conditions
# ---------------------------------------------------------------------------------------------------


def render_value(v: Any) -> str:
    """The text of a value for ``R.print`` / ``R.assert_op`` (CALL.PRINT.1): tensors as numpy prints
    them, tuples and shapes as ``(a, b)``, prim values as their Python scalar, strings as themselves."""
    if isinstance(v, np.ndarray):
        return str(v)
    if isinstance(v, ShapeValue):
        return "(" + ", ".join(str(d) for d in v) + ")"
    if isinstance(v, tuple):
        return "(" + ", ".join(render_value(x) for x in v) + ")"
    if isinstance(v, PrimScalar):
        return str(v.value)
    if isinstance(v, DTypeValue):
        return v.name
    if isinstance(v, str):
        return v
    return describe(v)


def assert_message(fmt: str, values) -> str:
    """The message of a failed ``R.assert_op`` (CALL.ASSERT.1): ``fmt.format(*rendered)``, else the
    rendered values joined by ", ", else "Assertion Failed"."""
    if fmt:
        return format_values(fmt, values)
    if values:
        return ", ".join(format_values("", [v]) for v in values)
    return "Assertion Failed"


def format_values(fmt: str, values) -> str:
    rendered = [render_value(v) for v in values]
    if fmt:
        try:
            return fmt.format(*rendered)
        except (IndexError, KeyError, ValueError) as e:
            raise OpRuntimeError(f"bad format string {fmt!r} for {len(rendered)} value(s): {e}") from None
    return " ".join(rendered)


def check_condition(kind: str, dtype: str, ndim: int, text: str, what: str = "if condition") -> None:
    """EVAL.IF.2 for a value of ``kind`` (:data:`relax_ref.ops.args.KINDS`), dtype and rank
    (``text`` describes it): a ``bool`` or integer prim value, or a scalar (rank-0) tensor of dtype
    bool or integer. A float condition raises DTypeMismatchError (TVM fails too); a tensor of rank > 0
    raises NDimMismatchError (TVM silently reads its first element); any other value raises
    TypeMismatchError. Shared by every evaluator."""
    if kind in ("prim", "tensor"):
        if not (dtype == "bool" or _dt.is_integer(dtype)):
            raise DTypeMismatchError(f"{what} must be bool or an integer, got {text}", site="if_cond",
                                     expected="bool", actual=text)
        if kind == "tensor" and ndim != 0:
            raise NDimMismatchError(f"{what} must be a scalar (rank-0) tensor, got {text}", site="if_cond",
                                    expected="R.Tensor((), \"bool\")", actual=text)
        return
    raise TypeMismatchError(f"{what} must be a bool prim value or scalar tensor, got {text}", site="if_cond",
                            expected="bool", actual=text)


def condition_value(v: Any, what: str = "if condition") -> bool:
    """Truth value of an ``If`` condition (EVAL.IF.2, :func:`check_condition`) or of
    ``vm.builtin.read_if_cond``; nonzero is true."""
    if isinstance(v, PrimScalar):
        check_condition("prim", v.dtype, 0, describe(v), what)
        return bool(v.value)
    if isinstance(v, np.ndarray):
        try:
            dt = _dt.from_numpy(v.dtype)
        except RelaxError:
            dt = str(v.dtype)
        check_condition("tensor", dt, v.ndim, describe(v), what)
        return bool(v[()])
    check_condition("other", "", 0, describe(v), what)
    return False


# ---------------------------------------------------------------------------------------------------
# Value helpers shared with the core operators
# ---------------------------------------------------------------------------------------------------


def tensor_to_shape(t: Any) -> ShapeValue:
    """A 1-D integer tensor as a shape value (CALL.BUILTIN.1); entries must be non-negative."""
    if not isinstance(t, np.ndarray):
        raise TypeMismatchError(f"tensor_to_shape expects a tensor, got {describe(t)}")
    if t.ndim != 1:
        raise NDimMismatchError(f"tensor_to_shape expects a 1-D tensor, got {describe(t)}")
    if t.dtype.kind not in "iu":
        raise DTypeMismatchError(f"tensor_to_shape expects an integer tensor, got {describe(t)}")
    if np.any(t < 0):
        raise OpRuntimeError(f"tensor_to_shape: negative dimension in {t.tolist()}")
    return ShapeValue(int(x) for x in t)


def reshape_view(t: Any, shape: Any) -> np.ndarray:
    """``t`` viewed with ``shape`` (same elements, row-major). A different element count raises
    OpRuntimeError (TVM does not check and reads out of bounds, DIV.25)."""
    if not isinstance(t, np.ndarray):
        raise TypeMismatchError(f"reshape expects a tensor, got {describe(t)}")
    shp = tuple(int(d) for d in shape)
    if int(np.prod(shp, dtype=np.int64)) != t.size:
        raise OpRuntimeError(f"cannot reshape {describe(t)} to {list(shp)}: element counts differ")
    return t.reshape(shp)


def alloc_storage(size: Any) -> Storage:
    nbytes = int(size[0]) if isinstance(size, ShapeValue) else int(size.value if isinstance(size, PrimScalar)
                                                                     else size)
    return Storage(np.zeros(max(nbytes, 0), np.uint8))


def storage_tensor(storage: Any, offset: Any, shape: Any, dtype: Any) -> np.ndarray:
    if not isinstance(storage, Storage):
        raise TypeMismatchError(f"alloc_tensor expects a storage, got {describe(storage)}")
    off = int(offset.value if isinstance(offset, PrimScalar) else offset)
    dt = _dt.to_numpy(dtype.name if isinstance(dtype, DTypeValue) else str(dtype))
    shp = tuple(int(d) for d in shape)
    n = int(np.prod(shp, dtype=np.int64)) * dt.itemsize
    if off < 0 or off + n > storage.data.size:
        raise OpRuntimeError(f"tensor of {n} bytes at offset {off} exceeds its storage of "
                             f"{storage.data.size} bytes")
    return storage.data[off:off + n].view(dt).reshape(shp)


def _run_assert_op(cond: Any, fmt: Any = "", *values: Any) -> Any:
    """``relax.run.assert_op(cond, format, values...)`` (CALL.PACKED.8): R.assert_op as a packed call."""
    if not isinstance(fmt, str):
        raise TypeMismatchError(f"relax.run.assert_op: the format must be a string, got {describe(fmt)}")
    if not condition_value(cond, "relax.run.assert_op condition"):
        raise AssertionFailedError(assert_message(fmt, values))
    return ()


def _run_shape_to_tensor(shape: Any) -> np.ndarray:
    """``relax.run.shape_to_tensor(shape)`` (CALL.PACKED.8): R.shape_to_tensor as a packed call."""
    if not isinstance(shape, ShapeValue):
        raise TypeMismatchError(f"relax.run.shape_to_tensor expects a shape, got {describe(shape)}")
    return np.array(list(shape), dtype=np.int64)


def tensor_view(t: Any, shape: Any, dtype: Any, offset: Any = 0) -> np.ndarray:
    """``runtime.TVMTensorCreateView(t, shape, dtype, byte_offset)`` (CALL.PACKED.6, what
    ``R.memory.view`` lowers to): the bytes of ``t`` from ``byte_offset`` seen with ``shape`` and
    ``dtype``, sharing memory with ``t``. A view beyond ``t``'s bytes is OpRuntimeError."""
    if not isinstance(t, np.ndarray):
        raise TypeMismatchError(f"TVMTensorCreateView expects a tensor, got {describe(t)}")
    if not t.flags.c_contiguous:
        raise OpRuntimeError(f"TVMTensorCreateView: can only view a compact tensor, got {describe(t)}")
    if not isinstance(shape, ShapeValue):
        raise TypeMismatchError(f"TVMTensorCreateView expects a shape, got {describe(shape)}")
    dt = _dt.to_numpy(dtype.name if isinstance(dtype, DTypeValue) else str(dtype))
    off = int(offset.value if isinstance(offset, PrimScalar) else offset)
    n = int(np.prod(tuple(shape), dtype=np.int64)) * dt.itemsize
    if off < 0 or off + n > t.nbytes:
        raise OpRuntimeError(f"TVMTensorCreateView: a {list(shape)} {dt} view at byte {off} needs {n} bytes, but "
                             f"{describe(t)} has {t.nbytes}")
    flat = t.reshape(-1).view(np.uint8)
    return flat[off:off + n].view(dt).reshape(tuple(shape))


def _static_builtins() -> Dict[str, PackedFunc]:
    def shape_of(t):
        if not isinstance(t, np.ndarray):
            raise TypeMismatchError(f"shape_of expects a tensor, got {describe(t)}")
        return ShapeValue(t.shape)

    def copy(x):
        return np.array(x, copy=True) if isinstance(x, np.ndarray) else x

    def read_if_cond(c):
        return PrimScalar(condition_value(c, "vm.builtin.read_if_cond argument"), "bool")

    def tuple_getitem(t, i):
        idx = int(i.value if isinstance(i, PrimScalar) else i)
        if not isinstance(t, tuple) or not 0 <= idx < len(t):
            raise TypeMismatchError(f"tuple_getitem: cannot take item {idx} of {describe(t)}")
        return t[idx]

    table = {
        "vm.builtin.shape_of": shape_of,
        "vm.builtin.copy": copy,
        "vm.builtin.reshape": reshape_view,
        "vm.builtin.null_value": lambda: None,
        "vm.builtin.tensor_to_shape": tensor_to_shape,
        "vm.builtin.read_if_cond": read_if_cond,
        "vm.builtin.make_tuple": lambda *xs: tuple(xs),
        "vm.builtin.tuple_getitem": tuple_getitem,
        "vm.builtin.to_device": lambda x, *rest: copy(x),
        "vm.builtin.ensure_zero_offset": lambda x: x,
        "vm.builtin.alloc_storage": lambda vm, size, *rest: alloc_storage(size),
        "vm.builtin.alloc_tensor": storage_tensor,
        "relax.run.assert_op": _run_assert_op,
        "relax.run.shape_to_tensor": _run_shape_to_tensor,
        "runtime.TVMTensorCreateView": tensor_view,
    }
    table.update(SHAPE_HEAP_FUNCS)
    table.update(KV_CACHE_FUNCS)
    table.update(PAGED_KV_FUNCS)
    table.update(DISCO_FUNCS)
    out = {k: PackedFunc(k, f) for k, f in table.items()}
    out.update({k: wrap_host_function(k, f) for k, f in SORT_FUNCS.items()})
    out.update({k: wrap_host_function(k, f) for k, f in RUNTIME_FUNCS.items()})
    return out


STATIC_BUILTINS: Dict[str, PackedFunc] = _static_builtins()


def lookup_packed(name: str, local: Optional[Mapping[str, Any]] = None, bound: Optional[Mapping[str, Any]] = None,
                  span: Optional[Span] = None) -> Any:
    """The packed function ``name`` (CALL.PACKED.1): the caller's own registry ``local``, the global
    registry, the static built-ins, then the caller's ``bound`` built-ins."""
    f = (local.get(name) if local else None) or _GLOBAL.get(name) or STATIC_BUILTINS.get(name) or \
        (bound.get(name) if bound else None)
    if f is None:
        raise PackedFuncError(f"packed function '{name}' is not registered", span)
    return f


def bound_builtins(call: Callable[..., Any], print_text: Callable[[str], None]) -> Dict[str, PackedFunc]:
    """Built-ins that call back into the interpreter (``call(fn, *args)`` invokes a function value,
    ``print_text`` writes a line where ``R.print`` writes)."""

    def make_closure(fn, *captured):
        return closure_with_captures(call, fn, captured)

    def invoke_closure(vm, fn, *args):
        # the VM context comes first (TVM calls it through call_builtin_with_ctx)
        return call(fn, *args)

    def run_print(fmt="", *values):
        if not isinstance(fmt, str):
            raise TypeMismatchError(f"relax.run.print: the format must be a string, got {describe(fmt)}")
        print_text(format_values(fmt, values))
        return ()

    def call_tir_dyn(fn, *args):
        if not args or not isinstance(args[-1], ShapeValue):
            raise TypeMismatchError("vm.builtin.call_tir_dyn expects a shape of TIR variables last")
        call(fn, *args[:-1], *[PrimScalar(d, "int64") for d in args[-1]])
        return ()

    return {k: PackedFunc(k, f) for k, f in {
        "vm.builtin.make_closure": make_closure,
        "vm.builtin.invoke_closure": invoke_closure,
        "vm.builtin.call_tir_dyn": call_tir_dyn,
        "relax.run.print": run_print,
    }.items()}


def closure_with_captures(call: Callable[..., Any], fn: Any, captured) -> PackedFunc:
    """``make_closure`` (CALL.CLOSURE.2): a function value calling ``fn(*args, *captured)``."""
    captured = tuple(captured)
    name = getattr(fn, "name", "closure")
    return PackedFunc(f"closure({name})", lambda *args: call(fn, *args, *captured))


__all__ = [
    "register_func", "global_func", "from_host", "prim_from_host", "coerce_result", "wrap_host_function",
    "render_value", "format_values", "assert_message", "check_condition", "condition_value", "tensor_to_shape", "reshape_view",
    "alloc_storage", "storage_tensor", "tensor_view", "STATIC_BUILTINS", "lookup_packed", "bound_builtins",
    "closure_with_captures",
]
