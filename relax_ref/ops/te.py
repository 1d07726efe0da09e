"""A small tensor-expression (TE) builder that produces TensorIR PrimFuncs for legalization (TIR.TE).

It mirrors TVM's ``te`` + ``te.create_prim_func(..., index_dtype_override="int64")`` closely enough
that a legalized kernel has the same shape as the one TVM prints after ``LegalizeOps``: handle
parameters with ``match_buffer`` for every tensor, one ``T.grid`` loop nest and one block per compute
stage, block iter vars bound with ``T.axis.remap("SSR", ...)``, ``T.reads``/``T.writes`` regions,
``T.init()`` for reductions, intermediate stages allocated in the root block, int64 index arithmetic
and the attribute ``tir.noalias``.

API (all names are module attributes)::

    x = placeholder((n, 4), "float32", "x")            # an input tensor
    k = reduce_axis(n, "k")                            # a reduction axis over [0, n)
    y = compute((4,), lambda i: sum(x[k, i], axis=k), name="x_red")
    z = compute((n, 4), lambda i, j: exp(x[i, j]), name="compute")
    f = create_prim_func([x, y])                       # params in this order (inputs, then outputs)

* ``placeholder(shape, dtype="float32", name="placeholder") -> Tensor``
* ``compute(shape, fcompute, name="compute", attrs=None, index_names=None) -> Tensor | tuple``:
  ``fcompute`` receives one int64 :class:`PrimVar` per output dimension (named after its Python
  parameters, or ``i0, i1, ...`` for ``*args``, or ``index_names``) and returns a PrimExpr, a
  :class:`Reduce`, or a tuple of them (several outputs). ``attrs`` become block annotations.
* ``reduce_axis(extent_or_range, name="k") -> IterAxis``; ``(begin, end)`` gives ``[begin, end)``.
* reducers ``sum``, ``prod``, ``max``, ``min`` (``reducer(expr, axis, where=None, init=None)``) and
  ``comm_reducer(fcombine, fidentity, name)`` for custom (also multi-value, e.g. argmax) reductions.
  Identity values are TVM's: 0, 1, the lowest finite value (``max``; for float32
  ``-340282346638528859811704183484516925440.0``) and the largest finite value (``min``).
* scalar operators with TVM's construction rules: re-exported from :mod:`relax_ref.ops.te_ops`
  (``add``, ``sub``, ``mul``, ``div``, ``floordiv``, ``truncmod``, ``eq``/``lt``/..., ``select``,
  ``if_then_else``, ``cast``, ``const``; elementwise ``min_``/``max_``/``abs_``/``round_`` carry an
  underscore because ``min``/``max`` are the reducers), plus one-argument intrinsics ``exp``, ``log``,
  ``erf``, ``sigmoid``, ``tanh`` ... Tensor elements are read with ``t[i, j]`` or ``t(i, j)`` (a
  BufferLoad).
* extern stages (TVM's ``te.extern``): ``extern(shape, inputs, fcompute, name="extern", dtype=None,
  in_buffers=None, out_buffers=None, attrs=None) -> Tensor | tuple``: ``fcompute(ins, outs)`` receives
  the input and output buffers and returns the statement (or an expression, evaluated) that computes
  the outputs -- typically ``call_packed("tvm.contrib.sort.argsort", ins[0], outs[0], axis, True)``,
  where a buffer argument becomes its ``T.tvm_stack_make_array`` descriptor. A list of shapes gives
  several outputs. ``decl_buffer(shape, dtype, name, data_alignment=-1)`` declares such a buffer.
* ``create_prim_func(args, tir_vars=()) -> PrimFunc``: ``args`` lists tensors (placeholders and
  compute outputs) and scalar :class:`PrimVar` parameters in parameter order; ``tir_vars`` are
  appended after them. The function's name is given when it is added to a module.

Legalizations rarely call ``create_prim_func`` themselves: ``ctx.call_te(fte, *relax_args,
primfunc_name_hint=...)`` (:class:`relax_ref.transform.legalize_ops.LegalizeContext`) converts the Relax
arguments to placeholders (:mod:`relax_ref.ops.te_bridge`), calls ``fte``, builds and adds the PrimFunc
and returns the ``call_tir``. A reduce axis can index tensors directly (``x[k, i]``); use ``k.var`` in
arithmetic (``te.add(k.var, 1)``).

Generated structure (TIR.TE.GEN.*):

1. Stages are emitted in post-order of the read graph from the argument tensors (TIR.TE.GEN.1).
2. Every tensor argument is a ``handle`` parameter named ``var_<buffer>`` mapped to a buffer; buffer
   names are made unique in parameter order, then intermediate buffers in stage order (``x``,
   ``x_1``); block names are made unique per stage (``T_multiply``, ``T_multiply_1``)
   (TIR.TE.GEN.2).
3. A stage becomes ``for`` loops over its spatial then reduce axes (int64 loop variables named after
   the axes) around one block whose iter vars are ``v_<axis>``; a stage without axes gets the dummy
   iter var ``vi`` (TIR.TE.GEN.3).
4. Data-parallel bodies and reduction sources are normalised like TVM's simplifier does for these
   kernels: ``a > b`` becomes ``b < a`` and ``a >= b`` becomes ``b <= a`` (TIR.TE.GEN.4).
5. Index data types are normalised as ``index_dtype_override="int64"`` does: integer constants in
   indices and in comparisons of signed integers inside conditions (``Select``/``if_then_else``)
   become int64 and the other operand is cast (TIR.TE.GEN.5).
6. ``T.reads`` lists the buffers loaded by the block (outer loads before the loads in their
   indices), excluding buffers the block writes; a buffer read at one index tuple has a point
   region, at several tuples differing by constants the covering range, otherwise its full extent
   in that dimension; with TVM 0.27's form (``release``) an index that holds ``if_then_else`` reads
   its full extent too. ``T.writes`` is the output point (TIR.TE.GEN.6).
7. The body is wrapped in the root block, which allocates the intermediate buffers; attrs
   ``{"tir.noalias": True}`` (TIR.TE.GEN.7).
8. The integer parts of bodies and sources are simplified as ``create_prim_func`` does
   (:mod:`relax_ref.ops.te_simplify`, TIR.TE.GEN.8).
9. An extern stage becomes one block named after the stage, without iter vars, reads or writes, around
   its statement. A tensor an extern stage reads is bound to the stage's input buffer when it is a
   function argument (the parameter's buffer is that buffer); a computed tensor keeps its own buffer and
   the statement is rewritten to use it. The stage's output buffers are the tensors' buffers (allocated
   in the root block unless they are arguments) (TIR.TE.GEN.9).

The expressions of the generated blocks (rebinding, index dtypes, read regions) are
:mod:`relax_ref.ops.te_exprs`.

Limitations (documented, not silently approximated): axes whose extents depend on other axes are
rejected (UnsupportedError); TVM's general simplifier is reproduced only as far as rules 4 and 8 go.
"""

from __future__ import annotations

import builtins
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ..errors import RelaxError, UnsupportedError
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.attrs import Attrs
from ..ir.functor import prim_vars_in
from .te_ops import *  # noqa: F401,F403  (the scalar operator vocabulary)
from .te_ops import __all__ as _ops_all
from .te_ops import as_expr, call, cast, const, max_value, min_value
from . import te_ops as _ops
from .te_exprs import FlipComparisons, ProtoBuffer, Rebind, loads_in, normalize_value, regions
from .te_simplify import simplify_compute
from .te_extern import ExternOp, call_packed, decl_buffer, extern_binds, extern_stmt

# ---------------------------------------------------------------------------------------------------
# Unary intrinsic shorthands (``te.exp(x)`` etc.)
# ---------------------------------------------------------------------------------------------------


def _make_intrinsic(name: str):
    def f(x):
        return call(name, x)

    f.__name__ = name
    f.__doc__ = f"``T.{name}(x)``"
    return f


exp = _make_intrinsic("exp")
exp2 = _make_intrinsic("exp2")
log = _make_intrinsic("log")
log2 = _make_intrinsic("log2")
log10 = _make_intrinsic("log10")
log1p = _make_intrinsic("log1p")
sqrt = _make_intrinsic("sqrt")
rsqrt = _make_intrinsic("rsqrt")
sin = _make_intrinsic("sin")
cos = _make_intrinsic("cos")
tan = _make_intrinsic("tan")
sinh = _make_intrinsic("sinh")
cosh = _make_intrinsic("cosh")
tanh = _make_intrinsic("tanh")
asin = _make_intrinsic("asin")
acos = _make_intrinsic("acos")
atan = _make_intrinsic("atan")
asinh = _make_intrinsic("asinh")
acosh = _make_intrinsic("acosh")
atanh = _make_intrinsic("atanh")
erf = _make_intrinsic("erf")
sigmoid = _make_intrinsic("sigmoid")
nearbyint = _make_intrinsic("nearbyint")


# ---------------------------------------------------------------------------------------------------
# Axes, operations and tensors
# ---------------------------------------------------------------------------------------------------


@dataclass(eq=False)
class IterAxis:
    """An iteration axis of a compute stage: ``var`` ranges over ``[min, min + extent)``."""

    var: P.PrimVar
    min: P.PrimExpr
    extent: P.PrimExpr
    kind: str = "spatial"  # "spatial" | "reduce"


def _int64(e) -> P.PrimExpr:
    if isinstance(e, bool) or not isinstance(e, (int, P.PrimExpr)):
        raise RelaxError(f"expected an integer or an integer expression, got {e!r}")
    if isinstance(e, int):
        return P.IntImm(e, "int64")
    if e.dtype == "int64":
        return e
    if e.dtype.startswith(("int", "uint")):
        return cast("int64", e)
    raise RelaxError(f"expected an integer expression, got one of dtype {e.dtype}")


def reduce_axis(dom, name: str = "k") -> IterAxis:
    """A reduction axis over ``[0, dom)`` or, for ``dom = (begin, end)``, over ``[begin, end)``."""
    if isinstance(dom, (tuple, list)):
        if len(dom) != 2:
            raise RelaxError(f"reduce_axis: expected (begin, end), got {dom!r}")
        lo, hi = _int64(dom[0]), _int64(dom[1])
        return IterAxis(P.PrimVar(name, "int64"), lo, _ops.sub(hi, lo), "reduce")
    return IterAxis(P.PrimVar(name, "int64"), P.IntImm(0, "int64"), _int64(dom), "reduce")


class Operation:
    """Base of TE operations (placeholder or compute)."""

    name: str



@dataclass(eq=False)
class PlaceholderOp(Operation):
    name: str
    shape: Tuple[P.PrimExpr, ...]
    dtype: str
    outputs: List["Tensor"] = field(default_factory=list)


@dataclass(eq=False)
class ComputeOp(Operation):
    name: str
    axis: Tuple[IterAxis, ...]
    reduce_axis: Tuple[IterAxis, ...]
    body: Tuple[Any, ...]  # PrimExpr or Reduce, one per output
    attrs: Attrs
    outputs: List["Tensor"] = field(default_factory=list)

    @property
    def is_reduction(self) -> bool:
        return isinstance(self.body[0], Reduce)


@dataclass(eq=False)
class Tensor:
    """A tensor of a TE program. ``t[i, j]`` / ``t(i, j)`` reads one element (a BufferLoad on a
    builder-internal buffer that :func:`create_prim_func` replaces). Indices are int64 expressions,
    Python ints or reduce axes (use ``axis.var`` to do arithmetic with an axis)."""

    shape: Tuple[P.PrimExpr, ...]
    dtype: str
    name: str
    op: Operation
    value_index: int = 0
    buffer: tir.Buffer = None  # type: ignore[assignment]

    def __post_init__(self):
        if self.buffer is None:
            self.buffer = ProtoBuffer(self.name, tuple(self.shape), self.dtype, tensor=self)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __call__(self, *indices) -> P.PrimExpr:
        if len(indices) == 1 and isinstance(indices[0], (tuple, list)):
            indices = tuple(indices[0])
        if len(indices) != len(self.shape):
            raise RelaxError(f"tensor '{self.name}' has {len(self.shape)} dimensions, "
                             f"indexed with {len(indices)} indices")
        idx = tuple(P.IntImm(i, "int64") if isinstance(i, int) and not isinstance(i, bool)
                    else i.var if isinstance(i, IterAxis) else i for i in indices)
        for i in idx:
            if not isinstance(i, P.PrimExpr) or not i.dtype.startswith(("int", "uint")):
                raise RelaxError(f"tensor '{self.name}': index {i!r} is not an integer expression")
        return tir.BufferLoad(self.buffer, idx)

    def __getitem__(self, indices) -> P.PrimExpr:
        if not isinstance(indices, tuple):
            indices = (indices,)
        return self(*indices)

    def __repr__(self) -> str:
        return f"te.Tensor({self.name!r}, {len(self.shape)}-d, {self.dtype})"


def placeholder(shape: Sequence, dtype: str = "float32", name: str = "placeholder") -> Tensor:
    """An input tensor of the given shape (ints or int64 expressions) and dtype."""
    shp = tuple(_int64(s) for s in shape)
    op = PlaceholderOp(name, shp, dtype)
    t = Tensor(shp, dtype, name, op)
    op.outputs.append(t)
    return t


# ---------------------------------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CommReducer:
    """A commutative reducer: ``result`` combines ``lhs`` (the accumulator) with ``rhs``."""

    lhs: Tuple[P.PrimVar, ...]
    rhs: Tuple[P.PrimVar, ...]
    result: Tuple[P.PrimExpr, ...]
    identity: Tuple[P.PrimExpr, ...]
    name: str = "reduce"

    def combine(self, lhs: Sequence[P.PrimExpr], rhs: Sequence[P.PrimExpr]) -> Tuple[P.PrimExpr, ...]:
        from ..ir.functor import substitute_prim

        vmap = dict(zip(self.lhs, lhs))
        vmap.update(zip(self.rhs, rhs))
        return tuple(substitute_prim(r, vmap) for r in self.result)


@dataclass(eq=False)
class Reduce:
    """The body of a reduction stage (must be the whole value returned by ``fcompute``)."""

    combiner: CommReducer
    source: Tuple[P.PrimExpr, ...]
    axis: Tuple[IterAxis, ...]
    condition: Optional[P.PrimExpr]
    value_index: int
    init: Optional[Tuple[P.PrimExpr, ...]] = None

    @property
    def dtype(self) -> str:
        return self.source[self.value_index].dtype


def comm_reducer(fcombine: Callable, fidentity: Callable, name: str = "reduce") -> Callable:
    """Build a reducer ``f(expr_or_tuple, axis, where=None, init=None)``.

    ``fcombine(lhs, rhs)`` combines the accumulator with a new value (tuples for multi-value
    reducers); ``fidentity(*dtypes)`` gives the identity element(s). A multi-value reducer returns
    one :class:`Reduce` per value; returning the tuple from ``fcompute`` makes a multi-output stage.
    """

    def reducer(expr, axis, where=None, init=None):
        multi = isinstance(expr, (tuple, list))
        exprs = tuple(as_expr(e) for e in (expr if multi else (expr,)))
        axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
        for a in axes:
            if not isinstance(a, IterAxis) or a.kind != "reduce":
                raise RelaxError(f"{name}: axis must be reduce axes created by reduce_axis, got {a!r}")
        dtypes = [e.dtype for e in exprs]
        if multi:
            lhs = tuple(P.PrimVar(f"lhs_{i}", d) for i, d in enumerate(dtypes))
            rhs = tuple(P.PrimVar(f"rhs_{i}", d) for i, d in enumerate(dtypes))
            result = fcombine(lhs, rhs)
            ident = fidentity(*dtypes)
        else:
            lhs = (P.PrimVar("x", dtypes[0]),)
            rhs = (P.PrimVar("y", dtypes[0]),)
            result = (fcombine(lhs[0], rhs[0]),)
            ident = (fidentity(dtypes[0]),)
        result = tuple(as_expr(r) for r in (result if isinstance(result, (tuple, list)) else (result,)))
        ident = tuple(as_expr(v) for v in (ident if isinstance(ident, (tuple, list)) else (ident,)))
        if len(result) != len(exprs) or len(ident) != len(exprs):
            raise RelaxError(f"{name}: combiner and identity must give {len(exprs)} values")
        comb = CommReducer(lhs, rhs, result, ident, name)
        cond = None if where is None else as_expr(where)
        init_t = None
        if init is not None:
            init_t = tuple(as_expr(v, d) for v, d in zip(init if multi else (init,), dtypes))
        reduces = tuple(Reduce(comb, exprs, axes, cond, i, init_t) for i in range(len(exprs)))
        return reduces if multi else reduces[0]

    reducer.__name__ = name
    return reducer


sum = comm_reducer(lambda x, y: _ops.add(x, y), lambda t: const(0, t), name="sum")  # noqa: A001
# TVM's ``tir.prod`` of bool values is ``all`` (logical and)
prod = comm_reducer(lambda x, y: _ops.logical_and(x, y) if x.dtype == "bool" else _ops.mul(x, y),
                    lambda t: const(1, t), name="prod")
max = comm_reducer(lambda x, y: _ops.max_(x, y), lambda t: min_value(t), name="max")  # noqa: A001
min = comm_reducer(lambda x, y: _ops.min_(x, y), lambda t: max_value(t), name="min")  # noqa: A001


# ---------------------------------------------------------------------------------------------------
# compute
# ---------------------------------------------------------------------------------------------------


def _index_names(fcompute: Callable, ndim: int) -> List[str]:
    try:
        sig = inspect.signature(fcompute)
    except (TypeError, ValueError):
        return [f"i{k}" for k in range(ndim)]
    params = list(sig.parameters.values())
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return [f"i{k}" for k in range(ndim)]
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(names) != ndim:
        raise RelaxError(f"compute: fcompute takes {len(names)} indices but the shape has {ndim} dims")
    return names


def compute(shape: Sequence, fcompute: Callable, name: str = "compute",
            attrs: Optional[Dict[str, Any]] = None,
            index_names: Optional[Sequence[str]] = None) -> Union[Tensor, Tuple[Tensor, ...]]:
    """A compute stage over ``shape``; returns its output tensor (or a tuple for several outputs)."""
    shp = tuple(_int64(s) for s in shape)
    names = list(index_names) if index_names is not None else _index_names(fcompute, len(shp))
    if len(names) != len(shp):
        raise RelaxError(f"compute '{name}': {len(names)} index names for {len(shp)} dims")
    axis = tuple(IterAxis(P.PrimVar(nm, "int64"), P.IntImm(0, "int64"), ext, "spatial")
                 for nm, ext in zip(names, shp))
    body = fcompute(*[a.var for a in axis])
    multi = isinstance(body, (tuple, list))
    bodies = tuple(body) if multi else (body,)
    bodies = tuple(b if isinstance(b, Reduce) else as_expr(b) for b in bodies)
    n_red = builtins.sum(1 for b in bodies if isinstance(b, Reduce))
    red_axes: Tuple[IterAxis, ...] = ()
    if n_red:
        if n_red != len(bodies):
            raise RelaxError(f"compute '{name}': a reduction must be the whole body of every output")
        first = bodies[0]
        for b in bodies[1:]:
            if b.combiner is not first.combiner or b.axis != first.axis:
                raise RelaxError(f"compute '{name}': all reduction outputs must share one reducer")
        red_axes = first.axis
    op = ComputeOp(name, axis, red_axes, bodies, Attrs(attrs or {}))
    for i, b in enumerate(bodies):
        out_name = name if len(bodies) == 1 else f"{name}_v{i}"
        op.outputs.append(Tensor(shp, b.dtype, out_name, op, i))
    return tuple(op.outputs) if multi else op.outputs[0]


# ---------------------------------------------------------------------------------------------------
# extern stages
# ---------------------------------------------------------------------------------------------------


def extern(shape: Sequence, inputs: Sequence[Tensor], fcompute: Callable, name: str = "extern",
           dtype: Union[None, str, Sequence[str]] = None, in_buffers: Optional[Sequence[tir.Buffer]] = None,
           out_buffers: Optional[Sequence[tir.Buffer]] = None,
           attrs: Optional[Dict[str, Any]] = None) -> Union[Tensor, Tuple[Tensor, ...]]:
    """An extern stage (TIR.TE.GEN.9): ``fcompute(ins, outs)`` gives the statement computing the outputs
    from the input buffers; ``shape`` is one shape or a list of shapes (several outputs)."""
    inputs = list(inputs)
    multi = bool(shape) and isinstance(shape[0], (list, tuple))
    shapes = [tuple(_int64(d) for d in sh) for sh in (shape if multi else [shape])]
    if dtype is None:
        if not inputs:
            raise RelaxError(f"extern '{name}': give the output dtype when there are no inputs")
        dtypes = [inputs[0].dtype] * len(shapes)
    else:
        dtypes = [dtype] * len(shapes) if isinstance(dtype, str) else list(dtype)
    if len(dtypes) != len(shapes):
        raise RelaxError(f"extern '{name}': {len(dtypes)} dtypes for {len(shapes)} outputs")
    ins = list(in_buffers) if in_buffers is not None else [decl_buffer(t.shape, t.dtype, t.op.name) for t in inputs]
    outs = list(out_buffers) if out_buffers is not None else [decl_buffer(sh, dt, name)
                                                              for sh, dt in zip(shapes, dtypes)]
    if len(ins) != len(inputs) or len(outs) != len(shapes):
        raise RelaxError(f"extern '{name}': {len(ins)} input and {len(outs)} output buffers for "
                         f"{len(inputs)} inputs and {len(shapes)} outputs")
    for t, b in zip(inputs, ins):
        if not isinstance(t, Tensor) or b.dtype != t.dtype or len(b.shape) != len(t.shape):
            raise RelaxError(f"extern '{name}': input buffer '{b.name}' does not describe its tensor")
    body = fcompute(ins, outs)
    body = tir.Evaluate(body) if isinstance(body, P.PrimExpr) else body
    if not isinstance(body, tir.Stmt):
        raise RelaxError(f"extern '{name}': fcompute must return a statement or an expression")
    op = ExternOp(name, tuple(inputs), tuple(ins), tuple(outs), body, Attrs(attrs or {}))
    for i, b in enumerate(outs):
        op.outputs.append(Tensor(tuple(b.shape), b.dtype, name if len(outs) == 1 else f"{name}_v{i}", op, i))
    return tuple(op.outputs) if multi else op.outputs[0]


# ---------------------------------------------------------------------------------------------------
# create_prim_func
# ---------------------------------------------------------------------------------------------------


class _NameSupply:
    def __init__(self) -> None:
        self.used: set = set()

    def fresh(self, base: str) -> str:
        base = base.replace(".", "_")
        if base not in self.used:
            self.used.add(base)
            return base
        k = 1
        while f"{base}_{k}" in self.used:
            k += 1
        name = f"{base}_{k}"
        self.used.add(name)
        return name


def _post_dfs_ops(tensors: Sequence[Tensor]) -> List[Operation]:
    order: List[Operation] = []
    seen: set = set()

    def inputs_of(op: Operation) -> List[Tensor]:
        if isinstance(op, ExternOp):
            return list(op.inputs)
        if not isinstance(op, ComputeOp):
            return []
        loads: List[tir.BufferLoad] = []
        for b in op.body:
            exprs = list(b.source) + ([b.condition] if b.condition is not None else []) \
                if isinstance(b, Reduce) else [b]
            for e in exprs:
                _post_order_loads(e, loads)
        res: List[Tensor] = []
        for ld in loads:
            t = getattr(ld.buffer, "tensor", None)
            if t is None:
                raise RelaxError(f"create_prim_func: buffer '{ld.buffer.name}' does not belong to a "
                                 "TE tensor")
            if t not in res:
                res.append(t)
        return res

    def visit(op: Operation) -> None:
        if id(op) in seen:
            return
        seen.add(id(op))
        for t in inputs_of(op):
            visit(t.op)
        order.append(op)

    for t in tensors:
        visit(t.op)
    return order


def _post_order_loads(e: P.PrimExpr, out: List[tir.BufferLoad]) -> None:
    if isinstance(e, tir.BufferLoad):
        for i in e.indices:
            _post_order_loads(i, out)
        out.append(e)
        return
    if isinstance(e, P.Let):
        _post_order_loads(e.value, out)
        _post_order_loads(e.body, out)
        return
    for c in P.children(e):
        _post_order_loads(c, out)


def create_prim_func(args: Sequence[Union[Tensor, P.PrimVar]],
                     tir_vars: Sequence[P.PrimVar] = (), release: Optional[str] = None) -> tir.PrimFunc:
    """Build the PrimFunc computing the argument tensors (see the module docstring, TIR.TE.GEN), in
    the form of TVM ``release`` (:mod:`relax_ref.ops.releases`; None: the current one)."""
    from .releases import get_release

    whole_axis = get_release(release).whole_axis_conditional_reads
    arg_list = list(args) + list(tir_vars)
    tensors: List[Tensor] = []
    for a in arg_list:
        if isinstance(a, Tensor):
            if a in tensors:
                raise RelaxError(f"create_prim_func: tensor '{a.name}' is listed twice")
            tensors.append(a)
        elif not isinstance(a, P.PrimVar):
            raise RelaxError(f"create_prim_func: arguments must be tensors or PrimVars, got {a!r}")
    order = _post_dfs_ops(tensors)
    arg_set = {id(t) for t in tensors}
    for op in order:
        if isinstance(op, PlaceholderOp):
            t = op.outputs[0]
            if id(t) not in arg_set:
                raise RelaxError(f"create_prim_func: placeholder '{op.name}' is read but is not an "
                                 "argument of the function")

    names = _NameSupply()
    bound = extern_binds(order)
    buffers: Dict[int, tir.Buffer] = {}
    params: List[P.PrimVar] = []
    buffer_map: List[Tuple[P.PrimVar, tir.Buffer]] = []
    for a in arg_list:
        if isinstance(a, Tensor):
            buf = bound.get(id(a)) if not isinstance(a.op, ComputeOp) else None
            if buf is None:
                buf = tir.Buffer(names.fresh(a.name), a.shape, a.dtype)
                h = P.PrimVar("var_" + buf.name, "handle")
            else:
                names.used.add(buf.name)
                h = P.PrimVar("var_" + a.name, "handle")
            buffers[id(a.buffer)] = buf
            params.append(h)
            buffer_map.append((h, buf))
        else:
            params.append(a)
    allocs: List[tir.Buffer] = []
    for op in order:
        if isinstance(op, (ComputeOp, ExternOp)):
            for t in op.outputs:
                if id(t) not in arg_set:
                    if isinstance(op, ExternOp):
                        buf = op.output_buffers[t.value_index]
                        names.used.add(buf.name)
                    else:
                        buf = tir.Buffer(names.fresh(t.name), t.shape, t.dtype)
                    buffers[id(t.buffer)] = buf
                    allocs.append(buf)

    block_names = _NameSupply()
    stmts = [_stage_stmt(op, buffers, block_names, whole_axis) if isinstance(op, ComputeOp)
             else extern_stmt(op, buffers, block_names.fresh(op.name)) for op in order if isinstance(op, (ComputeOp, ExternOp))]
    if not stmts:
        raise RelaxError("create_prim_func: no compute stage reachable from the arguments")
    body = stmts[0] if len(stmts) == 1 else tir.SeqStmt(tuple(stmts))
    root = tir.Block(name="root", body=body, alloc_buffers=tuple(allocs))
    realize = tir.BlockRealize((), P.IntImm(1, "bool"), root)
    return tir.PrimFunc(tuple(params), realize, tuple(buffer_map), attrs={"tir.noalias": True})


def _block_iters(axes: Sequence[IterAxis], loop_vars: Sequence[P.PrimVar]):
    """Fresh block iter vars ``v_<axis>`` bound to the loop vars (or the dummy ``vi``)."""
    iter_vars: List[tir.IterVar] = []
    bindings: List[P.PrimExpr] = []
    vmap: Dict[P.PrimVar, P.PrimExpr] = {}
    for a, lv in zip(axes, loop_vars):
        bv = P.PrimVar("v_" + a.var.name, "int64")
        iter_vars.append(tir.IterVar(bv, tir.Range(simplify_compute(a.min), simplify_compute(a.extent)), a.kind))
        bindings.append(lv)
        vmap[a.var] = bv
    if not axes:
        iter_vars.append(tir.IterVar(P.PrimVar("vi", "int32"),
                                     tir.Range(P.IntImm(0, "int32"), P.IntImm(1, "int32")), "spatial"))
        bindings.append(P.IntImm(0, "int64"))
    return tuple(iter_vars), tuple(bindings), vmap


def _point_region(buf: tir.Buffer, idx: Sequence[P.PrimExpr]) -> tir.BufferRegion:
    return tir.BufferRegion(buf, tuple(tir.Range(i, P.IntImm(1, "int64")) for i in idx))


def _stage_stmt(op: ComputeOp, buffers: Dict[int, tir.Buffer], block_names: _NameSupply,
                whole_axis: bool = False) -> tir.Stmt:
    """TIR.TE.GEN.3-6: the loop nest and block(s) of one compute stage."""
    axes = list(op.axis) + list(op.reduce_axis)
    axis_vars = {a.var for a in axes}
    for a in axes:
        deps = set(prim_vars_in(a.min)) | set(prim_vars_in(a.extent))
        if deps & axis_vars:
            raise UnsupportedError(f"compute '{op.name}': axis '{a.var.name}' depends on another axis")
    loop_vars = [P.PrimVar(a.var.name, "int64") for a in axes]
    outs = [buffers[id(t.buffer)] for t in op.outputs]
    flip = FlipComparisons()
    true = P.IntImm(1, "bool")

    def prep(e: P.PrimExpr, rebind: Rebind) -> P.PrimExpr:
        return simplify_compute(normalize_value(flip.visit(rebind.visit(e))))

    if op.is_reduction:
        iter_vars, bindings, vmap = _block_iters(axes, loop_vars)
        rebind = Rebind(buffers, vmap)
        store_idx = tuple(vmap[a.var] for a in op.axis)
        red: Reduce = op.body[0]
        init_vals = red.init if red.init is not None else red.combiner.identity
        sources = [prep(x, rebind) for x in red.source]
        if red.condition is not None:
            cond = prep(red.condition, rebind)
            sources = [_ops.select(cond, x, i) for x, i in zip(sources, red.combiner.identity)]
        init_stmts = [tir.BufferStore(b, rebind.visit(v), store_idx) for b, v in zip(outs, init_vals)]
        lhs = [tir.BufferLoad(b, store_idx) for b in outs]
        combined = [normalize_value(rebind.visit(c)) for c in red.combiner.combine(lhs, sources)]
        if len(outs) == 1:
            body: tir.Stmt = tir.BufferStore(outs[0], _store_cast(outs[0], combined[0]), store_idx)
        else:
            temps = [P.PrimVar("v_" + b.name, c.dtype) for b, c in zip(outs, combined)]
            seq: List[tir.Stmt] = [tir.Bind(v, c) for v, c in zip(temps, combined)]
            seq += [tir.BufferStore(b, v, store_idx) for b, v in zip(outs, temps)]
            body = tir.SeqStmt(tuple(seq))
        init = init_stmts[0] if len(init_stmts) == 1 else tir.SeqStmt(tuple(init_stmts))
        loads: List[tir.BufferLoad] = []
        for x in sources:
            loads_in(x, loads)
        block = tir.Block(name=block_names.fresh(op.name), iter_vars=iter_vars,
                          reads=regions(loads, outs, whole_axis),
                          writes=tuple(_point_region(b, store_idx) for b in outs),
                          body=body, init=init, annotations=op.attrs)
        stmt: tir.Stmt = tir.BlockRealize(bindings, true, block)
    else:
        realizes = []
        for out, t, b in zip(outs, op.outputs, op.body):
            iter_vars, bindings, vmap = _block_iters(axes, loop_vars)
            rebind = Rebind(buffers, vmap)
            store_idx = tuple(vmap[a.var] for a in op.axis)
            value = prep(b, rebind)
            loads = []
            loads_in(value, loads)
            if not axes and any(ld.indices for ld in loads):
                # TVM's int64 index rewriting widens the dummy iter var of a block that indexes a buffer
                iter_vars = (tir.IterVar(P.PrimVar("vi", "int64"), tir.Range(P.IntImm(0, "int64"),
                                                                         P.IntImm(1, "int64")), "spatial"),)
            block = tir.Block(name=block_names.fresh(t.name), iter_vars=iter_vars,
                              reads=regions(loads, [out], whole_axis), writes=(_point_region(out, store_idx),),
                              body=tir.BufferStore(out, _store_cast(out, value), store_idx),
                              annotations=op.attrs)
            realizes.append(tir.BlockRealize(bindings, true, block))
        stmt = realizes[0] if len(realizes) == 1 else tir.SeqStmt(tuple(realizes))
    for a, lv in reversed(list(zip(axes, loop_vars))):
        stmt = tir.For(lv, simplify_compute(a.min), simplify_compute(a.extent), "serial", stmt)
    return stmt


def _store_cast(buf: tir.Buffer, value: P.PrimExpr) -> P.PrimExpr:
    return value if value.dtype == buf.dtype else cast(buf.dtype, value)


__all__ = list(_ops_all) + [
    "IterAxis", "Operation", "PlaceholderOp", "ComputeOp", "Tensor", "placeholder", "compute",
    "reduce_axis", "CommReducer", "Reduce", "comm_reducer", "sum", "prod", "max", "min",
    "ExternOp", "decl_buffer", "call_packed", "extern", "create_prim_func", "exp", "exp2", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos",
    "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "erf", "sigmoid",
    "nearbyint",
]
