"""Handlers for TensorIR constructs that are values (TEXT.TIR.1-5): buffer declarations, loop ranges,
block axes, ``T.bind``, ``T.call_extern``, ``T.call_packed`` with its ``T.tvm_stack_make_array`` /
``T.tvm_stack_make_shape`` arguments (TEXT.TIR.PACKED.1), and the ``T.let[...]`` / ``T.Buffer[...]``
subscript forms.

Each handler returns a spec (:mod:`.values`) that the statement parser completes with the name of
the variable it is assigned to.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Optional

from ...ir import dtype as _dt
from ...ir import prim_expr as P
from ...ir import tir
from . import prim
from .calls import HANDLERS, REQUIRED, STATEMENT_ONLY, CallInfo, bind_params
from .values import (
    AllocateSpec, BindSpec, BufferSpec, BufferTypeAnnotation, IterVarSpec, LetAnnotation, LoopSpec, Ref,
)

if TYPE_CHECKING:
    from .evaluator import Evaluator

_BUFFER_TAIL = (("data", None), ("strides", None), ("elem_offset", None), ("scope", "global"),
                ("align", -1), ("offset_factor", 0), ("buffer_type", "default"), ("axis_separators", None))


def _shape_tuple(ev: Evaluator, info: CallInfo, shape: Any) -> tuple:
    if isinstance(shape, (tuple, list)):
        dims = list(shape)
    elif isinstance(shape, (int, P.PrimExpr)) and not isinstance(shape, bool):
        dims = [shape]
    else:
        raise ev.error(info.node, f"{info.path}: the shape must be a tuple of dimensions, got {prim.describe(shape)}")
    out = []
    nodes = info.node.args[0].elts if (isinstance(info.node, ast.Call) and info.node.args and
                                       isinstance(info.node.args[0], (ast.Tuple, ast.List))) else []
    for i, d in enumerate(dims):
        if isinstance(d, str):
            # tvm-0.27 writes a derived extent of a parameter buffer as a string: ("M * N",)
            from .struct_info import eval_string_dim

            node = nodes[i] if i < len(nodes) else info.node
            d = eval_string_dim(ev.with_mode("tir"), d, node)
        if isinstance(d, bool) or not isinstance(d, (int, P.PrimExpr)):
            raise ev.error(info.node, f"{info.path}: invalid dimension {prim.describe(d)}")
        if isinstance(d, int):
            d = prim.lit(d, span=ev.span(info.node))
        if not (d.dtype.startswith("int") or d.dtype.startswith("uint")):
            raise ev.error(info.node, f"{info.path}: dimensions must be integers, got dtype {d.dtype}")
        out.append(d)
    return tuple(out)


def _buffer_spec(ev: Evaluator, info: CallInfo, kind: str, b: dict, source=None) -> BufferSpec:
    span = ev.span(info.node)
    dtype = prim.check_dtype(b["dtype"], span)
    strides = b["strides"]
    if strides is not None and not isinstance(strides, (list, tuple)):
        raise ev.error(info.node, f"{info.path}: strides must be a list or tuple, got {type(strides).__name__}")
    strides = () if strides is None else tuple(prim.as_prim(s, span, "stride") for s in strides)
    elem_offset = b["elem_offset"]
    if elem_offset is not None:
        elem_offset = prim.as_prim(elem_offset, span, "elem_offset")
    scope = b["scope"]
    if not isinstance(scope, str):
        raise ev.error(info.node, f"{info.path}: scope must be a string")
    axis_sep = b["axis_separators"]
    if axis_sep is not None and (not isinstance(axis_sep, (list, tuple)) or
                                 any(isinstance(x, bool) or not isinstance(x, int) for x in axis_sep)):
        raise ev.error(info.node, f"{info.path}: axis_separators must be a list of integers")
    axis_sep = () if axis_sep is None else tuple(int(x) for x in axis_sep)
    for k in ("align", "offset_factor"):
        if isinstance(b[k], bool) or not isinstance(b[k], int):
            raise ev.error(info.node, f"{info.path}: {k} must be an integer")
    if b["data"] is not None and not isinstance(b["data"], P.PrimVar):
        raise ev.error(info.node, f"{info.path}: data must be a pointer variable")
    shape = b["shape"]
    dims = _shape_tuple(ev, info, shape) if shape is not None else None
    return BufferSpec(kind, dims if dims is not None else (), dtype, source, strides, elem_offset, scope,
                      b["align"], b["offset_factor"], axis_sep, info.node, b["data"])


def _buffer(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("shape", REQUIRED), ("dtype", "float32")) + _BUFFER_TAIL)
    return _buffer_spec(ev, info, "Buffer", b)


def _buffer_subscript(ev: Evaluator, node):
    """Old spelling ``T.Buffer[(4, 4), "float32"]``."""
    items = ev.eval_node(node.slice)
    items = items if isinstance(items, tuple) else (items,)
    info = CallInfo(node, "T.Buffer", list(items), {}, [node] * len(items), {})
    return BufferTypeAnnotation(_buffer(ev, info))


def _match_buffer(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("param", REQUIRED), ("shape", None), ("dtype", "float32")) + _BUFFER_TAIL)
    src = b["param"]
    if not isinstance(src, (P.PrimVar, tir.BufferRegion, tir.BufferLoad, tir.Buffer)):
        raise ev.error(info.node_of(0), f"T.match_buffer expects a handle parameter or a buffer region, got "
                                        f"{prim.describe(src)}")
    if b["shape"] is None:
        if isinstance(src, P.PrimVar):
            raise ev.error(info.node, "T.match_buffer of a handle needs a shape")
        from .tir_regions import as_region

        region = as_region(ev, src, info.node_of(0))
        b = dict(b)
        b["shape"] = tuple(r.extent for r in region.region)
    return _buffer_spec(ev, info, "match_buffer", b, source=src)


def _alloc(kind: str):
    def handler(ev: Evaluator, info: CallInfo):
        b = bind_params(ev, info, (("shape", REQUIRED), ("dtype", "float32")) + _BUFFER_TAIL, varkw=True)
        for k in b["**"]:
            if k not in ("annotations",):
                raise ev.error(info.kw_nodes.get(k, info.node), f"{info.path} got an unexpected keyword argument '{k}'")
        return _buffer_spec(ev, info, kind, b)
    return handler


def _alloc_in(scope: str):
    """``T.alloc_local(shape, dtype)`` / ``T.alloc_shared(shape, dtype)``: TVM 0.25's statement-level
    ``T.alloc_buffer`` with the scope ``"local"`` / ``"shared"`` (TEXT.TIR.6)."""
    def handler(ev: Evaluator, info: CallInfo):
        b = bind_params(ev, info, (("shape", REQUIRED), ("dtype", "float32")) + _BUFFER_TAIL, varkw=True)
        for k in b["**"]:
            if k not in ("annotations",):
                raise ev.error(info.kw_nodes.get(k, info.node), f"{info.path} got an unexpected keyword argument '{k}'")
        if "scope" not in info.kwargs:
            b = dict(b)
            b["scope"] = scope
        return _buffer_spec(ev, info, "alloc_buffer", b)
    return handler


def buffer_view(ev: Evaluator, info: CallInfo, buf: tir.Buffer) -> BufferSpec:
    """``A.view(*shape)`` / ``A.view(dtype)`` as TVM 0.25 prints a declared buffer over another
    buffer's data (TEXT.TIR.6): a ``T.decl_buffer`` with ``A``'s data, strides, offset, scope,
    alignment and axis separators. One ``-1`` in the shape stands for the remaining extent. A dtype
    view re-reads the memory in another dtype: the last dimension and the offset scale by the ratio
    of the bit widths."""
    span = ev.span(info.node)
    if "layout" in info.kwargs:
        raise ev.error(info.kw_nodes["layout"], f"{info.path}: layouts are not supported")
    if info.kwargs:
        k = next(iter(info.kwargs))
        raise ev.error(info.kw_nodes[k], f"{info.path} got an unexpected keyword argument '{k}'")
    args = list(info.args)
    dtype, offset = buf.dtype, buf.elem_offset
    if len(args) == 1 and isinstance(args[0], str):
        dtype = prim.check_dtype(args[0], span)
        old_bits, new_bits = _dt.bits(buf.dtype), _dt.bits(dtype)
        if not buf.shape:
            raise ev.error(info.node, f"{info.path}: a rank-0 buffer has no dimension to re-view as {dtype}")
        last = buf.shape[-1]
        if new_bits >= old_bits:
            if new_bits % old_bits:
                raise ev.error(info.node, f"{info.path}: {buf.dtype} cannot be viewed as {dtype}")
            ratio = new_bits // old_bits
            last = prim.binary("floordiv", last, ratio, span)
            offset = None if offset is None else prim.binary("floordiv", offset, ratio, span)
        else:
            if old_bits % new_bits:
                raise ev.error(info.node, f"{info.path}: {buf.dtype} cannot be viewed as {dtype}")
            ratio = old_bits // new_bits
            last = prim.binary("mul", last, ratio, span)
            offset = None if offset is None else prim.binary("mul", offset, ratio, span)
        shape = tuple(buf.shape[:-1]) + (last,)
    else:
        for i, d in enumerate(args):
            if isinstance(d, bool) or not isinstance(d, (int, P.PrimExpr)) or (
                    isinstance(d, P.PrimExpr) and d.dtype not in ("int32", "int64")):
                raise ev.error(info.node_of(i), f"{info.path}: the shape must be integers, got {prim.describe(d)}")
        if not args:
            raise ev.error(info.node, f"{info.path} needs a shape or a dtype")
        if sum(1 for d in args if isinstance(d, int) and d == -1) == 1:
            total = buf.shape[0] if buf.shape else P.IntImm(1, "int32")
            for d in buf.shape[1:]:
                total = prim.binary("mul", total, d, span)
            rest = 1
            for d in args:
                if not (isinstance(d, int) and d == -1):
                    rest = prim.binary("mul", rest, d, span)
            args[args.index(-1)] = prim.binary("floordiv", total, rest, span)
        elif all(isinstance(d, int) for d in args) and all(isinstance(d, P.IntImm) for d in buf.shape):
            new, old = 1, 1
            for d in args:
                new *= d
            for d in buf.shape:
                old *= d.value
            if new != old:
                raise ev.error(info.node, f"{info.path}: the shape {tuple(args)} does not match the "
                                          f"{old} elements of '{buf.name}'")
        shape = _shape_tuple(ev, info, tuple(args))
    return BufferSpec("decl_buffer", shape, dtype, None, tuple(buf.strides), offset, buf.scope, buf.align,
                      buf.offset_factor, tuple(buf.axis_separators), info.node, buf.data)


HANDLERS["T.Buffer"] = HANDLERS["T.buffer"] = _buffer  # T.buffer: an old spelling TVM still reads
HANDLERS["T.alloc_local"] = _alloc_in("local")
HANDLERS["T.alloc_shared"] = _alloc_in("shared")
HANDLERS["T.Buffer[]"] = _buffer_subscript
HANDLERS["T.match_buffer"] = _match_buffer
HANDLERS["T.alloc_buffer"] = _alloc("alloc_buffer")
HANDLERS["T.sblock_alloc_buffer"] = _alloc("sblock_alloc_buffer")
HANDLERS["T.decl_buffer"] = _alloc("decl_buffer")


def _let_subscript(ev: Evaluator, node):
    t = ev.eval_node(node.slice)
    if isinstance(t, Ref) and t.path[2:] in prim.DTYPE_CTORS and t.path.startswith("T."):
        return LetAnnotation(prim.DTYPE_CTORS[t.path[2:]])
    if isinstance(t, str):
        return LetAnnotation(prim.check_dtype(t, ev.span(node)))
    raise ev.error(node, "T.let[...] expects a scalar type such as T.int32")


HANDLERS["T.let[]"] = _let_subscript

# ---------------------------------------------------------------------------------------------------
# Loops
# ---------------------------------------------------------------------------------------------------


def _loop_bounds(ev: Evaluator, info: CallInfo, start: Any, stop: Any):
    span = ev.span(info.node)
    if stop is None:
        stop = start
        start = P.IntImm(0, start.dtype) if isinstance(start, P.PrimExpr) else 0
    for v in (start, stop):
        if isinstance(v, bool) or not isinstance(v, (int, P.PrimExpr)):
            raise ev.error(info.node, f"{info.path}: loop bounds must be integers, got {prim.describe(v)}")
    if isinstance(start, int) and isinstance(stop, int):
        start, stop = prim.lit(start, span=span), prim.lit(stop, span=span)
        if start.dtype != stop.dtype:
            start, stop = P._promote(start, stop)  # noqa: SLF001
    elif isinstance(start, int):
        start = prim.lit(start, stop.dtype, span)
    elif isinstance(stop, int):
        stop = prim.lit(stop, start.dtype, span)
    if start.dtype != stop.dtype:
        start, stop = P._promote(start, stop)  # noqa: SLF001
    if not (start.dtype.startswith("int") or start.dtype.startswith("uint")):
        raise ev.error(info.node, f"{info.path}: loop bounds must be integers, got dtype {start.dtype}")
    return start, prim.binary("sub", stop, start, span)


def _annotations(ev, info, ann) -> dict:
    if ann is None:
        return {}
    if not isinstance(ann, dict):
        raise ev.error(info.node, f"{info.path}: annotations must be a dict")
    return dict(ann)


def _loop(kind: str):
    def handler(ev: Evaluator, info: CallInfo):
        if kind == "thread_binding":
            b = bind_params(ev, info, (("start", REQUIRED), ("stop", None), ("thread", None), ("annotations", None)))
            start, stop, thread = b["start"], b["stop"], b["thread"]
            if thread is None:
                if not isinstance(stop, str):
                    raise ev.error(info.node, "T.thread_binding needs thread=\"threadIdx.x\" (or similar)")
                thread, stop = stop, None
            if not isinstance(thread, str):
                raise ev.error(info.node, "T.thread_binding: thread must be a string")
        else:
            b = bind_params(ev, info, (("start", REQUIRED), ("stop", None), ("annotations", None), ("step", None),
                                       ("unroll", None)))
            start, stop, thread = b["start"], b["stop"], None
            if b["step"] is not None and not (isinstance(b["step"], int) and b["step"] == 1):
                raise ev.error(info.node, f"{info.path}: loop steps other than 1 are not supported")
        ann = _annotations(ev, info, b["annotations"])
        if kind != "thread_binding" and b.get("unroll") is not None:
            ann["pragma_unroll" if b["unroll"] else "disable_unroll"] = True
        mn, ext = _loop_bounds(ev, info, start, stop)
        return LoopSpec(((mn, ext, kind, thread, ann),))
    return handler


def _range(ev: Evaluator, info: CallInfo):
    if info.kwargs:
        raise ev.error(info.node, "range() takes no keyword arguments")
    if not 1 <= len(info.args) <= 3:
        raise ev.error(info.node, f"range expects 1 to 3 arguments, got {len(info.args)}")
    if len(info.args) == 3 and not (isinstance(info.args[2], int) and info.args[2] == 1):
        raise ev.error(info.node, "range steps other than 1 are not supported")
    start = info.args[0]
    stop = info.args[1] if len(info.args) > 1 else None
    mn, ext = _loop_bounds(ev, info, start, stop)
    return LoopSpec(((mn, ext, "serial", None, {}),))


def _grid(ev: Evaluator, info: CallInfo):
    if info.kwargs:
        raise ev.error(info.node, "T.grid takes no keyword arguments")
    loops = []
    for i, e in enumerate(info.args):
        if isinstance(e, tuple):
            if len(e) != 2:
                raise ev.error(info.node_of(i), "T.grid: a tuple extent is (start, extent)")
            start, ext = e
            start = prim.lit(start, span=ev.span(info.node)) if isinstance(start, int) else start
            ext = prim.lit(ext, span=ev.span(info.node)) if isinstance(ext, int) else ext
            if not isinstance(start, P.PrimExpr) or not isinstance(ext, P.PrimExpr):
                raise ev.error(info.node_of(i), "T.grid: extents must be integers")
            if start.dtype != ext.dtype:
                start, ext = P._promote(start, ext)  # noqa: SLF001
            loops.append((start, ext, "serial", None, {}))
        else:
            if isinstance(e, bool) or not isinstance(e, (int, P.PrimExpr)):
                raise ev.error(info.node_of(i), f"T.grid: extents must be integers, got {prim.describe(e)}")
            ext = prim.lit(e, span=ev.span(info.node)) if isinstance(e, int) else e
            loops.append((P.IntImm(0, ext.dtype), ext, "serial", None, {}))
    if not loops:
        raise ev.error(info.node, "T.grid needs at least one extent")
    return LoopSpec(tuple(loops))


HANDLERS["range"] = _range
HANDLERS["T.serial"] = _loop("serial")
HANDLERS["T.parallel"] = _loop("parallel")
HANDLERS["T.vectorized"] = _loop("vectorized")
HANDLERS["T.unroll"] = _loop("unrolled")
HANDLERS["T.thread_binding"] = _loop("thread_binding")
HANDLERS["T.grid"] = _grid

# ---------------------------------------------------------------------------------------------------
# Block axes
# ---------------------------------------------------------------------------------------------------


def _as_range(ev: Evaluator, info: CallInfo, dom: Any) -> tir.Range:
    """The domain of a block axis as written: an extent ``e`` is ``[0, e)`` and a pair ``(lo, hi)`` is
    ``[lo, hi)``. A Python integer is an ``int32`` immediate (``int64`` if it does not fit) unless
    the other bound of a pair is a scalar expression, whose dtype it takes (TEXT.TIR.4)."""
    span = ev.span(info.node)
    if isinstance(dom, tir.Range):
        return dom
    if isinstance(dom, (tuple, list)):
        if len(dom) != 2:
            raise ev.error(info.node, "an axis domain is an extent or a (begin, end) pair")
        lo, hi = dom
        for x in (lo, hi):
            if isinstance(x, bool) or not isinstance(x, (int, P.PrimExpr)):
                raise ev.error(info.node, "axis domain bounds must be integers")
        if isinstance(lo, int) and isinstance(hi, P.PrimExpr):
            lo = prim.lit(lo, hi.dtype, span)
        elif isinstance(hi, int) and isinstance(lo, P.PrimExpr):
            hi = prim.lit(hi, lo.dtype, span)
        else:
            lo, hi = (prim.lit(x, span=span) if isinstance(x, int) else x for x in (lo, hi))
        if lo.dtype != hi.dtype:
            lo, hi = P._promote(lo, hi)  # noqa: SLF001
        return tir.Range(lo, prim.binary("sub", hi, lo, span))
    if isinstance(dom, bool) or not isinstance(dom, (int, P.PrimExpr)):
        raise ev.error(info.node, f"an axis domain must be an extent, got {prim.describe(dom)}")
    ext = prim.lit(dom, span=span) if isinstance(dom, int) else dom
    return tir.Range(P.IntImm(0, ext.dtype), ext)


def _axis(iter_type: str):
    def handler(ev: Evaluator, info: CallInfo):
        """``T.axis.<kind>(dom, binding, dtype="int32")`` as TVM builds it (TEXT.TIR.4): the domain
        keeps the dtype it is written with (a bare integer is ``int32``); the axis variable has the
        integer type of ``dtype`` widened to the widest of the domain's bounds; the binding is kept
        as written. ``T.axis.spatial(1, T.int64(0))`` is an ``int32`` axis bound to an ``int64``
        value, as in TVM's printed kernels."""
        b = bind_params(ev, info, (("dom", REQUIRED), ("binding", REQUIRED), ("dtype", "int32")))
        span = ev.span(info.node)
        binding = b["binding"]
        if isinstance(binding, bool) or not isinstance(binding, (int, P.PrimExpr)):
            raise ev.error(info.node, f"{info.path}: the binding must be an integer expression")
        dtype = prim.check_dtype(b["dtype"], span)
        dom = _as_range(ev, info, b["dom"])
        for d in (dtype, dom.min.dtype, dom.extent.dtype):
            if not (d.startswith("int") or d.startswith("uint")):
                raise ev.error(info.node, f"{info.path}: axis domains and dtypes must be integers, got {d}")
        bits = max(_dt.bits(dtype), _dt.bits(dom.min.dtype), _dt.bits(dom.extent.dtype))
        var_dtype = f"{'uint' if dtype.startswith('uint') else 'int'}{bits}"
        if dom.extent.dtype != var_dtype or dom.min.dtype != var_dtype:
            raise ev.error(info.node, f"{info.path}: the domain's dtype {dom.extent.dtype} does not match the "
                                      f"axis dtype {var_dtype}; write the domain with that dtype")
        if isinstance(binding, int):
            binding = prim.lit(binding, span=span)
        elif not (binding.dtype.startswith("int") or binding.dtype.startswith("uint")):
            raise ev.error(info.node, f"{info.path}: the binding must be an integer expression, got {binding.dtype}")
        return IterVarSpec(iter_type, dom, binding, var_dtype)
    return handler


_KINDS = {"S": "spatial", "R": "reduce"}


def _remap(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("kinds", REQUIRED), ("bindings", REQUIRED), ("dtype", None)))
    kinds, bindings = b["kinds"], b["bindings"]
    if not isinstance(kinds, str) or not isinstance(bindings, (tuple, list)) or len(kinds) != len(bindings):
        raise ev.error(info.node, "T.axis.remap(kinds, bindings) needs a kind letter (S or R) per binding")
    out = []
    for k, v in zip(kinds, bindings):
        if k not in _KINDS:
            raise ev.error(info.node, f"T.axis.remap: unknown axis kind '{k}' (use S or R)")
        dom = ev.ctx.loop_domain(v)
        if dom is None:
            raise ev.error(info.node, "T.axis.remap binds loop variables only")
        dtype = v.dtype
        out.append(IterVarSpec(_KINDS[k], dom, v, dtype))
    return out


for _k in ("spatial", "reduce", "scan", "opaque"):
    HANDLERS[f"T.axis.{_k}"] = _axis(_k)
HANDLERS["T.axis.S"] = _axis("spatial")
HANDLERS["T.axis.R"] = _axis("reduce")
HANDLERS["T.axis.remap"] = _remap

# ---------------------------------------------------------------------------------------------------
# Scalars and calls
# ---------------------------------------------------------------------------------------------------


def _bind(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("value", REQUIRED), ("type_annotation", None), ("var", None)))
    if b["var"] is not None:
        raise ev.error(info.node, "T.bind(..., var=...) is not supported; assign the result to a name")
    dtype: Optional[str] = None
    ann = b["type_annotation"]
    if isinstance(ann, Ref) and ann.path.startswith("T.") and ann.path[2:] in prim.DTYPE_CTORS:
        dtype = prim.DTYPE_CTORS[ann.path[2:]]
    elif ann is not None:
        raise ev.error(info.node, "T.bind: unsupported type annotation")
    return BindSpec(b["value"], dtype)


def _call_extern(pure: bool):
    def handler(ev: Evaluator, info: CallInfo):
        b = bind_params(ev, info, (("dtype", REQUIRED), ("func_name", REQUIRED)), varargs="args")
        span = ev.span(info.node)
        dtype = prim.check_dtype(b["dtype"], span)
        if not isinstance(b["func_name"], str):
            raise ev.error(info.node, f"{info.path}: the function name must be a string")
        args = tuple(prim.as_prim(a, span) if not isinstance(a, str) else P.PrimStringImm(a) for a in b["args"])
        op = "tir.call_pure_extern" if pure else "tir.call_extern"
        return P.PrimCall(dtype, op, (P.PrimStringImm(b["func_name"]),) + args)
    return handler


def _packed_arg(ev: Evaluator, info: CallInfo, i: int, a: Any) -> P.PrimExpr:
    """One argument of ``T.call_packed``: a string becomes a string immediate, a buffer its packed
    array (``T.tvm_stack_make_array`` of its data, shape, strides and offset), a number a literal."""
    span = ev.span(info.node_of(i))
    if isinstance(a, str):
        return P.PrimStringImm(a)
    if isinstance(a, tir.Buffer):
        return tir.pack_buffer(a)
    return prim.as_prim(a, span, f"{info.path} argument {i}")


def _call_packed(op: str):
    """``T.call_packed(name, *args)`` / ``T.call_cpacked``: an int32 call of ``tir.tvm_call_packed``
    (``tir.tvm_call_cpacked``) whose first argument is the function name (TEXT.TIR.PACKED.1)."""
    def handler(ev: Evaluator, info: CallInfo):
        if info.kwargs:
            k = next(iter(info.kwargs))
            raise ev.error(info.kw_nodes.get(k, info.node), f"{info.path} got an unexpected keyword argument '{k}'")
        if not info.args or not isinstance(info.args[0], str):
            raise ev.error(info.node, f"{info.path} expects the function name as a string first")
        args = tuple(_packed_arg(ev, info, i, a) for i, a in enumerate(info.args[1:], 1))
        return P.PrimCall("int32", op, (P.PrimStringImm(info.args[0]),) + args)
    return handler


def _handle_arg(ev: Evaluator, info: CallInfo, i: int, what: str) -> P.PrimExpr:
    v = info.args[i]
    if isinstance(v, tir.Buffer):
        raise ev.error(info.node_of(i), f"{info.path}: {what} must be a scalar expression (write "
                                        f"'{v.name}.data' for the buffer's pointer)")
    return prim.as_prim(v, ev.span(info.node_of(i)), f"{info.path} {what}")


def _stack_make_shape(ev: Evaluator, info: CallInfo):
    """``T.tvm_stack_make_shape(*dims)``: a ``handle`` call describing a shape (TEXT.TIR.PACKED.1)."""
    if info.kwargs:
        raise ev.error(info.node, f"{info.path} takes no keyword arguments")
    dims = []
    for i, d in enumerate(info.args):
        e = _handle_arg(ev, info, i, "dimension")
        if not (_dt.is_integer(e.dtype)):
            raise ev.error(info.node_of(i), f"{info.path}: dimensions must be integers, got dtype {e.dtype}")
        dims.append(e)
    return P.PrimCall("handle", "tir.tvm_stack_make_shape", tuple(dims))


def _stack_make_array(ev: Evaluator, info: CallInfo):
    """``T.tvm_stack_make_array(data, shape, strides, ndim, arr_dtype, elem_offset)``: a ``handle`` call
    describing an array over ``data`` (TEXT.TIR.PACKED.1)."""
    names = ("data", "shape", "strides", "ndim", "arr_dtype", "elem_offset")
    if info.kwargs or len(info.args) != len(names):
        raise ev.error(info.node, f"{info.path} takes 6 positional arguments ({', '.join(names)})")
    args = [_handle_arg(ev, info, i, n) for i, n in enumerate(names)]
    if args[0].dtype != "handle":
        raise ev.error(info.node_of(0), f"{info.path}: data must be a pointer (a handle), got dtype {args[0].dtype}")
    if not isinstance(args[3], P.IntImm) or not _dt.is_integer(args[3].dtype):
        raise ev.error(info.node_of(3), f"{info.path}: ndim must be an integer literal")
    return P.PrimCall("handle", "tir.tvm_stack_make_array", tuple(args))


def _allocate(ev: Evaluator, info: CallInfo):
    b = bind_params(ev, info, (("extents", REQUIRED), ("dtype", REQUIRED), ("scope", "global"),
                               ("condition", None), ("annotations", None)))
    span = ev.span(info.node)
    ext = b["extents"] if isinstance(b["extents"], (tuple, list)) else (b["extents"],)
    dims = tuple(ev.index_value(prim.lit(e, span=span) if isinstance(e, int) and not isinstance(e, bool) else e,
                                info.node) for e in ext)
    if not isinstance(b["scope"], str):
        raise ev.error(info.node, "T.allocate: scope must be a string")
    cond = b["condition"]
    cond = None if cond is None else prim.as_prim(cond, span, "T.allocate condition")
    if b["annotations"]:
        raise ev.error(info.node, "T.allocate: annotations are not supported")
    return AllocateSpec(dims, prim.check_dtype(b["dtype"], span), b["scope"], cond)


HANDLERS["T.allocate"] = _allocate
HANDLERS["T.bind"] = _bind
HANDLERS["T.call_extern"] = _call_extern(False)
HANDLERS["T.call_pure_extern"] = _call_extern(True)
for _name, _op in (("call_packed", "tir.tvm_call_packed"), ("call_cpacked", "tir.tvm_call_cpacked")):
    HANDLERS[f"T.{_name}"] = HANDLERS[f"T.tvm_{_name}"] = _call_packed(_op)
HANDLERS["T.tvm_stack_make_shape"] = _stack_make_shape
HANDLERS["T.tvm_stack_make_array"] = _stack_make_array

STATEMENT_ONLY.update({
    "T.func_attr": "T.func_attr(...) is a statement at the top of a prim_func",
    "T.evaluate": "T.evaluate(...) is a statement",
    "T.reads": "T.reads(...) is a statement inside a block",
    "T.writes": "T.writes(...) is a statement inside a block",
    "T.where": "T.where(...) is a statement inside a block",
    "T.block_attr": "T.block_attr(...) is a statement inside a block",
    "T.sblock_attr": "T.sblock_attr(...) is a statement inside a block",
    "T.block": "T.block is used as 'with T.block(\"name\"):'",
    "T.sblock": "T.sblock is used as 'with T.sblock(\"name\"):'",
    "T.init": "T.init is used as 'with T.init():'",
    "T.LetStmt": "T.LetStmt is used as 'with T.LetStmt(value) as x:'",
    "T.Assert": "T.Assert is used as 'with T.Assert(cond, message):' or write 'assert cond, message'",
})

__all__ = ["buffer_view"]
