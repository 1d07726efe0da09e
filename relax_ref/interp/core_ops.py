"""Run-time semantics of the core operators (``call_tir`` and its family, closures, shapes, printing,
assertions, allocation): the interpreter's own implementations of them.

**One mechanism** (CALL.OP.1): the evaluator runs *every* operator call through its table of
implementations (:mod:`relax_ref.interp.op_table`), ``fn(args, attrs, call, ctx)``. The core
operators are declared in ``relax_ref.ops.core`` (signature and struct-info inference only); their
semantics need the evaluator, so they are here, in :data:`CORE`. ``ctx`` is the evaluator's
:class:`~relax_ref.interp.relax.EvalContext` (symbolic environment, allocation, calling function
values, running PrimFuncs, output stream).

The kinds of values each operator accepts are its registry entry's ``check``
(:mod:`relax_ref.ops.core_checks`), run before these. Arguments arrive evaluated, in TVM's layout:
``call_tir(gv, (args...), [tir_vars])`` gives ``[PrimFuncRef, tuple, ShapeValue?]`` with the output
struct info in ``call.sinfo_args``.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List

import numpy as np

from ..errors import AssertionFailedError, UnsupportedError
from ..ir import dtype as _dt
from ..ops.core_calls import dps_outputs
from ..ops.core_checks import check_inplace_result
from ..values import DTypeValue, PrimFuncRef, PrimScalar, ShapeValue
from .builtins import alloc_storage, assert_message, closure_with_captures, format_values, storage_tensor, tensor_to_shape
from .checks import check_value

CORE: Dict[str, Callable[..., Any]] = {}


def _core(*names: str):
    def deco(fn):
        for n in names:
            CORE[n] = fn
        return fn
    return deco


# ---------------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------------


def _tuple_arg(v: Any) -> tuple:
    """A tuple of arguments; a single tensor counts as a tuple of one (the operator's check has
    excluded anything else)."""
    return v if isinstance(v, tuple) and not isinstance(v, ShapeValue) else (v,)


def _tir_vars(args: List[Any], i: int) -> tuple:
    """``tir_vars`` as ``int64`` prim values (CALL.TIR.5)."""
    if len(args) <= i or args[i] is None:
        return ()
    return tuple(PrimScalar(d, "int64") for d in args[i])


def _result(outs: List[Any], is_tuple: bool) -> Any:
    return tuple(outs) if is_tuple else outs[0]


def _int(v: Any) -> int:
    if isinstance(v, PrimScalar):
        return int(v.value)
    return int(v)


# ---------------------------------------------------------------------------------------------------
# call_tir and friends (CALL.TIR.*)
# ---------------------------------------------------------------------------------------------------


@_core("relax.call_tir", "relax.call_tir_with_grad")
def call_tir(args, attrs, call, ctx):
    """(CALL.TIR.5) Allocate fresh outputs from ``out_sinfo`` (symbolic dims evaluated in the
    caller's environment; zero-filled), run the PrimFunc on ``(inputs..., outputs..., tir_vars...)``
    -- TVM's order, DIV.1; ``tir_vars`` as int64 prim values -- with the inputs read-only
    (CALL.TIR.6), and return the output, or the tuple of outputs. (CALL.TIR.8) call_tir_with_grad
    behaves the same."""
    ref = args[0]
    inputs = _tuple_arg(args[1])
    infos, is_tuple = dps_outputs(call)
    outs = [ctx.alloc(s) for s in infos]
    ctx.run_prim_func(ref, [*inputs, *outs, *_tir_vars(args, 2)], readonly=inputs)
    return _result(outs, is_tuple)


@_core("relax.dist.call_tir_local_view")
def call_tir_local_view(args, attrs, call, ctx):
    """(DIST.SEM.2) In the local view, call_tir on the worker's shards: the outputs are allocated with
    the shard shapes of ``out_sinfo`` (DIST.LOCAL.1); in the global view an ``unsupported`` error."""
    from ..ir.distributed import DTensorStructInfo, local_struct_info
    from ..ops import collective

    if not collective.current().local:
        raise UnsupportedError("relax.dist.call_tir_local_view runs on the workers' shards: evaluate the program "
                               "in the local view (DIST.SEM.2)", call.span)
    ref = args[0]
    inputs = _tuple_arg(args[1])
    infos, is_tuple = dps_outputs(call)
    outs = [ctx.alloc(local_struct_info(s) if isinstance(s, DTensorStructInfo) else s) for s in infos]
    ctx.run_prim_func(ref, [*inputs, *outs, *_tir_vars(args, 2)], readonly=inputs)
    return _result(outs, is_tuple)


@_core("relax.call_tir_inplace")
def call_tir_inplace(args, attrs, call, ctx):
    """(CALL.INPLACE.3-4) Output ``k`` is input ``inplace_indices[k]`` (mutated in place, the result
    aliases it; the input must match the output's struct info) or, for ``-1``, a fresh tensor. The
    PrimFunc receives ``(inputs..., fresh outputs..., tir_vars...)``; the other inputs are read-only."""
    ref = args[0]
    inputs = _tuple_arg(args[1])
    infos, is_tuple = dps_outputs(call)
    idx = attrs.get("inplace_indices")
    idx = [idx] if isinstance(idx, int) else list(idx or ())
    outs, fresh = [], []
    for k, (i, s) in enumerate(zip(idx, infos)):
        i = int(i)
        if i == -1:
            t = ctx.alloc(s)
            fresh.append(t)
            outs.append(t)
        else:
            check_value(inputs[i], s, dict(ctx.sym), site="call_tir", function=ctx.function,
                        binding=f"in-place output {k}", bind=False, env=ctx.env)
            outs.append(inputs[i])
    mutated = [inputs[int(i)] for i in idx if int(i) != -1]
    readonly = [x for j, x in enumerate(inputs) if j not in idx and all(x is not y for y in mutated)]
    ctx.run_prim_func(ref, [*inputs, *fresh, *_tir_vars(args, 2)], readonly=readonly)
    return _result(outs, is_tuple)


@_core("relax.call_dps_packed")
def call_dps_packed(args, attrs, call, ctx):
    """(CALL.DPS.2) Allocate outputs, call ``func(inputs..., outputs...)`` (its own result is ignored;
    a PrimFunc's inputs are read-only), return the outputs."""
    fn = args[0]
    inputs = _tuple_arg(args[1])
    infos, is_tuple = dps_outputs(call)
    outs = [ctx.alloc(s) for s in infos]
    if isinstance(fn, PrimFuncRef):
        ctx.run_prim_func(fn, [*inputs, *outs], readonly=inputs)
    else:
        ctx.call_function(fn, *inputs, *outs)
    return _result(outs, is_tuple)


@_core("relax.call_pure_packed")
def call_pure_packed(args, attrs, call, ctx):
    """(CALL.PACKED.4) ``func(args...)``, declared pure; the result follows ``sinfo_args``."""
    return ctx.call_packed(args[0], list(args[1:]))


@_core("relax.call_inplace_packed")
def call_inplace_packed(args, attrs, call, ctx):
    """(CALL.IPACKED.1) ``func(args...)``: the function mutates the arguments named by
    ``inplace_indices`` and returns them; the result is what it returns (checked against the call's
    struct info like every call result, EVAL.CALL.3), and each in-place output must be its argument
    itself (CALL.IPACKED.2)."""
    result = ctx.call_packed(args[0], list(args[1:]))
    check_inplace_result(result, args[1:], attrs.get("inplace_indices"), getattr(args[0], "name", "function"))
    return result


@_core("relax.call_builtin_with_ctx")
def call_builtin_with_ctx(args, attrs, call, ctx):
    """A VM built-in called with the (absent) VM context as its first argument."""
    return ctx.call_packed(args[0], [None, *_tuple_arg(args[1])])


@_core("relax.vm.call_tir_dyn")
def call_tir_dyn(args, attrs, call, ctx):
    """``vm.call_tir_dyn(f, (args..., shape))``: run the PrimFunc on the arguments with the shape's
    values appended; returns unit."""
    ref = args[0]
    rest = list(_tuple_arg(args[1]))
    ctx.run_prim_func(ref, [*rest[:-1], *[PrimScalar(d, "int64") for d in rest[-1]]])
    return ()


# ---------------------------------------------------------------------------------------------------
# Closures (CALL.CLOSURE.*)
# ---------------------------------------------------------------------------------------------------


@_core("relax.invoke_closure", "relax.invoke_pure_closure")
def invoke_closure(args, attrs, call, ctx):
    """(CALL.CLOSURE.3) Call a closure or packed function with the fields of a tuple."""
    return ctx.call_function(args[0], *_tuple_arg(args[1]))


@_core("relax.make_closure")
def make_closure(args, attrs, call, ctx):
    """(CALL.CLOSURE.2) A function value that calls ``func(*args, *captured)``: the captured values
    come after the explicit arguments."""
    return closure_with_captures(ctx.call_function, args[0], _tuple_arg(args[1]))


# ---------------------------------------------------------------------------------------------------
# Shapes (CALL.BUILTIN.*)
# ---------------------------------------------------------------------------------------------------


@_core("relax.shape_of")
def shape_of(args, attrs, call, ctx):
    return ShapeValue(args[0].shape)


@_core("relax.tensor_to_shape")
def tensor_to_shape_op(args, attrs, call, ctx):
    return tensor_to_shape(args[0])


@_core("relax.shape_to_tensor")
def shape_to_tensor(args, attrs, call, ctx):
    return np.array(list(args[0]), dtype=np.int64)


@_core("relax.null_value")
def null_value(args, attrs, call, ctx):
    return None


@_core("relax.hint_on_device", "relax.builtin.stop_lift_params", "relax.ensure_zero_offset")
def identity(args, attrs, call, ctx):
    return args[0]


@_core("relax.to_vdevice")
def to_vdevice(args, attrs, call, ctx):
    """A copy of the tensor (placement itself is not modelled, VAL.TENSOR.3)."""
    return np.array(args[0], copy=True) if isinstance(args[0], np.ndarray) else args[0]


# ---------------------------------------------------------------------------------------------------
# Printing and assertions (CALL.PRINT.1, CALL.ASSERT.1)
# ---------------------------------------------------------------------------------------------------


@_core("relax.print")
def print_op(args, attrs, call, ctx):
    """(CALL.PRINT.1) ``R.print(values..., format=f)`` (arguments ``(f, values...)``): print the
    rendered values space-separated, or ``f.format(*rendered)`` when ``f`` is not empty."""
    fmt = args[0] if args else ""
    ctx.print(format_values(fmt, args[1:]))
    return ()


@_core("relax.assert_op")
def assert_op(args, attrs, call, ctx):
    """(CALL.ASSERT.1) ``R.assert_op(cond, format_args..., format=f)`` (arguments
    ``(cond, f, format_args...)``): raise AssertionFailedError when the condition (a bool prim value
    or rank-0 tensor) is false. The message is ``f.format(*rendered)``, else the rendered arguments
    joined by ", ", else "Assertion Failed"."""
    cond = args[0]
    ok = bool(cond.value) if isinstance(cond, PrimScalar) else bool(cond[()])
    if not ok:
        raise AssertionFailedError(assert_message(args[1] if len(args) > 1 else "", args[2:]), call.span)
    return ()


# ---------------------------------------------------------------------------------------------------
# Allocation (CALL.ALLOC.*): zero-filled (TVM leaves memory uninitialised)
# ---------------------------------------------------------------------------------------------------


def _dtype_of(v: Any) -> str:
    return v.name if isinstance(v, DTypeValue) else v


@_core("relax.builtin.alloc_tensor")
def builtin_alloc_tensor(args, attrs, call, ctx):
    shape = tuple(args[0])
    dt = _dtype_of(args[1]) if len(args) > 1 else attrs.get("dtype")
    return np.zeros(shape, dtype=_dt.to_numpy(dt))


@_core("relax.memory.alloc_storage", "relax.vm.alloc_storage")
def memory_alloc_storage(args, attrs, call, ctx):
    return alloc_storage(args[0])


@_core("relax.memory.alloc_tensor", "relax.vm.alloc_tensor")
def memory_alloc_tensor(args, attrs, call, ctx):
    return storage_tensor(args[0], args[1], args[2], _dtype_of(args[3]))


@_core("relax.memory.kill_storage", "relax.memory.kill_tensor", "relax.vm.kill_object")
def kill(args, attrs, call, ctx):
    return ()


__all__ = ["CORE"]
