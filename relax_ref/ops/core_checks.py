"""Run-time checks of the core operators (``OpDef.check`` of :mod:`relax_ref.ops.core`): the kinds of
values the ``call_tir`` family, closures, shapes, printing, assertions and allocation take (CALL.*).

Their semantics call back into the evaluator (running PrimFuncs, calling closures, allocating), so
each evaluator implements them itself (the reference interpreter's ``relax_ref.interp.core_ops``, the
JAX executor's ``relax_jax.ops.core``); what they accept is decided here, once.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Sequence

from ..errors import OpRuntimeError, PackedFuncError, TypeMismatchError, UnsupportedError
from ..limits import check_alloc
from ..ir import dtype as _dt
from ..ir.struct_info import TupleStructInfo
from .args import OpArgs


def _type_error(args: OpArgs, message: str) -> TypeMismatchError:
    return args.error(TypeMismatchError, message)


def expect_prim_func(args: OpArgs, i: int, op: str) -> None:
    if args.kind(i) != "prim_func":
        raise _type_error(args, f"{op} expects a PrimFunc as its first argument, got {args.describe(i)}")


def expect_tuple(args: OpArgs, i: int, op: str) -> None:
    """A tuple of arguments (a single tensor counts as a tuple of one)."""
    if args.kind(i) not in ("tuple", "tensor"):
        raise _type_error(args, f"{op} expects a tuple of arguments, got {args.describe(i)}")


def _expect_tir_vars(args: OpArgs, i: int) -> None:
    """``tir_vars`` (CALL.TIR.5): absent, null or a shape."""
    if len(args) > i and args.kind(i) not in ("null", "shape"):
        raise _type_error(args, f"tir_vars must be a shape, got {args.describe(i)}")


def _check_call_tir(args: OpArgs) -> None:
    """CALL.TIR.1: a PrimFunc, a tuple of arguments and an optional shape of TIR variables."""
    expect_prim_func(args, 0, "call_tir")
    expect_tuple(args, 1, "call_tir")
    _expect_tir_vars(args, 2)


def _check_call_tir_inplace(args: OpArgs) -> None:
    """CALL.INPLACE.2: as call_tir; one in-place index per output, each -1 or an argument."""
    expect_prim_func(args, 0, "call_tir_inplace")
    expect_tuple(args, 1, "call_tir_inplace")
    sinfos = list(args.call.sinfo_args)
    n_out = len(sinfos[0].fields) if len(sinfos) == 1 and isinstance(sinfos[0], TupleStructInfo) else len(sinfos)
    idx = args.attrs.get("inplace_indices")
    idx = [idx] if isinstance(idx, int) else list(idx or ())
    if len(idx) != n_out:
        raise args.error(OpRuntimeError, f"call_tir_inplace: {len(idx)} inplace_indices for {n_out} outputs")
    n_in = len(args.fields(1)) if args.kind(1) == "tuple" else 1
    for i in idx:
        if int(i) != -1 and not 0 <= int(i) < n_in:
            raise args.error(OpRuntimeError, f"call_tir_inplace: inplace index {int(i)} out of range")
    _expect_tir_vars(args, 2)


def check_inplace_result(result: Any, args: Sequence[Any], indices: Any, name: str) -> None:
    """CALL.IPACKED.2: for each output ``j`` with ``indices[j] != -1`` the function returned the argument
    ``args[indices[j]]`` itself (the very value, compared by identity), not a copy or another value."""
    idx = [indices] if isinstance(indices, int) else [int(i) for i in (indices or ())]
    if len(idx) > 1 and not isinstance(result, tuple):
        return      # not a tuple: the result check against the call's struct info reports it (EVAL.CALL.3)
    for j, i in enumerate(idx):
        if i == -1 or not 0 <= i < len(args):
            continue
        got = result if len(idx) == 1 else (result[j] if j < len(result) else None)
        if got is not args[i]:
            where = "its result" if len(idx) == 1 else f"field {j} of its result"
            raise PackedFuncError(f"call_inplace_packed: '{name}' must return argument {i} itself as {where} "
                                  f"(inplace_indices), but returned another value: an in-place function mutates "
                                  f"and returns its argument (CALL.IPACKED.2)")


def _check_call_dps_packed(args: OpArgs) -> None:
    """CALL.DPS.1: a packed function or a PrimFunc, and a tuple of arguments."""
    expect_tuple(args, 1, "call_dps_packed")
    if args.kind(0) not in ("packed", "prim_func"):
        raise _type_error(args, f"call_dps_packed expects a packed function or a PrimFunc, got {args.describe(0)}")


def _check_call_builtin_with_ctx(args: OpArgs) -> None:
    expect_tuple(args, 1, "call_builtin_with_ctx")


def _check_call_tir_dyn(args: OpArgs) -> None:
    """``vm.call_tir_dyn(f, (args..., shape))``: a PrimFunc and a tuple ending in a shape."""
    expect_prim_func(args, 0, "vm.call_tir_dyn")
    expect_tuple(args, 1, "vm.call_tir_dyn")
    rest = args.fields(1) if args.kind(1) == "tuple" else None
    if rest is None or not len(rest) or rest.kind(len(rest) - 1) != "shape":
        raise _type_error(args, "vm.call_tir_dyn expects a shape of TIR variables as its last argument")


def _check_invoke_closure(args: OpArgs) -> None:
    """CALL.CLOSURE.3: a closure (or packed function) and a tuple of arguments."""
    if args.kind(0) not in ("closure", "packed"):
        raise _type_error(args, f"invoke_closure expects a closure, got {args.describe(0)}")
    expect_tuple(args, 1, "invoke_closure")


def _check_make_closure(args: OpArgs) -> None:
    """CALL.CLOSURE.2: a Relax function and a tuple of captured values."""
    if args.kind(0) != "closure":
        raise _type_error(args, f"make_closure expects a Relax function, got {args.describe(0)}")
    expect_tuple(args, 1, "make_closure")


def _check_shape_of(args: OpArgs) -> None:
    if args.kind(0) != "tensor":
        raise _type_error(args, f"shape_of expects a tensor, got {args.describe(0)}")


def _check_tensor_to_shape(args: OpArgs) -> None:
    if args.kind(0) != "tensor":
        raise _type_error(args, f"tensor_to_shape expects a tensor, got {args.describe(0)}")


def _check_shape_to_tensor(args: OpArgs) -> None:
    if args.kind(0) != "shape":
        raise _type_error(args, f"shape_to_tensor expects a shape, got {args.describe(0)}")


def _check_print(args: OpArgs) -> None:
    """CALL.PRINT.1: the format string comes first."""
    if len(args) and args.kind(0) != "string":
        raise _type_error(args, f"R.print expects the format string first, got {args.describe(0)}")


def _check_assert(args: OpArgs) -> None:
    """CALL.ASSERT.1: a bool scalar condition (prim value or 0-d tensor); when it fails, the format
    string comes second."""
    kind = args.kind(0)
    if not (kind == "prim" or (kind == "tensor" and args.ndim(0) == 0)):
        raise _type_error(args, f"assert_op condition must be a bool scalar, got {args.describe(0)}")
    if len(args) > 1 and args.kind(1) != "string":
        ok = args.xp.asarray(args.data(0)).astype(bool)
        args.fail_if(~ok, lambda: TypeMismatchError(
            f"assert_op expects the format string second, got {args.describe(1)}"))


def _expect_dtype(args: OpArgs, i: int) -> None:
    if args.kind(i) not in ("dtype", "string"):
        raise _type_error(args, f"expected a data type, got {args.describe(i)}")


def _check_builtin_alloc_tensor(args: OpArgs) -> None:
    """CALL.ALLOC.1: a shape and a data type."""
    if args.kind(0) != "shape":
        raise _type_error(args, f"expected a shape, got {args.describe(0)}")
    if len(args) > 1:
        _expect_dtype(args, 1)


def _expect_int_prim(args: OpArgs, i: int, what: str) -> None:
    if args.kind(i) != "prim" or not (_dt.is_integer(args.dtype(i)) or _dt.is_bool(args.dtype(i))):
        raise _type_error(args, f"{args.op_name}: {what} must be an integer prim value, got {args.describe(i)}")


def _check_alloc_storage(args: OpArgs) -> None:
    """CALL.ALLOC.2, OP.INFER.3: the size is a shape ``(bytes, ...)`` (or an integer prim value), the
    device index an integer prim value, the dtype a data type and the scope a string; the arguments
    are not checked statically (as TVM), so their kinds are checked here, before the allocation."""
    vm = args.op_name == "relax.vm.alloc_storage"
    if args.kind(0) == "shape":
        if len(args.ints(0)) < 1:
            raise _type_error(args, f"{args.op_name}: the size must be a shape (bytes, ...), got the empty shape")
        size = args.ints(0)[0]
    elif args.kind(0) == "prim":
        _expect_int_prim(args, 0, "the size")
        size = args.prim(0)
    else:
        raise _type_error(args, f"{args.op_name}: the size must be a shape (bytes, ...), got {args.describe(0)}")
    _expect_int_prim(args, 1, "the device index")
    dtype_at, scope_at = (2, 3) if vm else (3, 2)
    if len(args) > dtype_at:
        _expect_dtype(args, dtype_at)
    if len(args) > scope_at and args.kind(scope_at) != "string":
        raise _type_error(args, f"{args.op_name}: the storage scope must be a string, got {args.describe(scope_at)}")
    if args.is_static(size):
        # RUNTIME.LIMIT.3: the whole storage counts against max_bytes when it is allocated, however
        # little of it the tensors carved out of it use (an evaluator may allocate it lazily)
        check_alloc((max(int(size), 0),), "uint8", args.limits, f"{args.op_name}: the storage", args.span)


def _check_storage_tensor(args: OpArgs) -> None:
    """CALL.ALLOC.1: ``(storage, offset, shape, dtype)``: a storage, an integer offset, a shape and a
    data type (OP.INFER.3: checked here, before the tensor is carved out)."""
    if len(args) < 4:
        raise args.error(UnsupportedError, f"{args.op_name} expects (storage, offset, shape, dtype)")
    _expect_dtype(args, 3)
    if args.kind(0) != "storage":
        raise _type_error(args, f"alloc_tensor expects a storage, got {args.describe(0)}")
    _expect_int_prim(args, 1, "the offset")
    if args.kind(2) != "shape":
        raise _type_error(args, f"{args.op_name}: the shape must be a shape, got {args.describe(2)}")


#: operator name -> its check
CHECKS: Dict[str, Callable[[OpArgs], None]] = {
    "relax.call_tir": _check_call_tir,
    "relax.call_tir_with_grad": _check_call_tir,
    "relax.call_tir_inplace": _check_call_tir_inplace,
    "relax.call_dps_packed": _check_call_dps_packed,
    "relax.call_builtin_with_ctx": _check_call_builtin_with_ctx,
    "relax.vm.call_tir_dyn": _check_call_tir_dyn,
    "relax.invoke_closure": _check_invoke_closure,
    "relax.invoke_pure_closure": _check_invoke_closure,
    "relax.make_closure": _check_make_closure,
    "relax.shape_of": _check_shape_of,
    "relax.tensor_to_shape": _check_tensor_to_shape,
    "relax.shape_to_tensor": _check_shape_to_tensor,
    "relax.print": _check_print,
    "relax.assert_op": _check_assert,
    "relax.builtin.alloc_tensor": _check_builtin_alloc_tensor,
    "relax.memory.alloc_storage": _check_alloc_storage,
    "relax.vm.alloc_storage": _check_alloc_storage,
    "relax.memory.alloc_tensor": _check_storage_tensor,
    "relax.vm.alloc_tensor": _check_storage_tensor,
}

__all__ = ["CHECKS", "expect_prim_func", "expect_tuple"]
