"""ConvertLayout: convert operators to desired data layouts inside dataflow blocks (PASS.LAYOUT.*).

Follows TVM 0.25 (``src/relax/transform/convert_layout.cc`` with the per-operator layout inference of
:mod:`relax_ref.transform.infer_layout`). ``ConvertLayout(desired_layouts, layout_cb=None)``: in every
dataflow block, each binding is rewritten in order, tracking the layout of every variable of the block
(initially ``"ABC..."``, PASS.LAYOUT.1):

* (PASS.LAYOUT.5) A call of an operator with layout inference whose tensor arguments all have known
  rank gets the layouts inference decides: each argument is converted to its layout -- a
  ``permute_dims`` when both layouts have the same number of axes, else a ``layout_transform`` whose
  index map (``int32`` indices ``i0, i1, ...``) packs or unpacks sub-axes -- the call gets the new
  attributes, and its variable the output layout. A binding of a non-dataflow tensor variable is
  converted back to the initial layout after the call. Any other call has its arguments converted to
  their initial layouts.
* (PASS.LAYOUT.6) A tuple keeps the layouts of its fields (initial ones for a non-dataflow variable);
  ``TupleGetItem`` takes the field's layout; a ``match_cast`` of a dataflow variable casts the converted
  value to the permuted shape; any other use of a variable converts it to its initial layout.

``layout_cb(call)``, when given, returns the desired layouts for each call instead of
``desired_layouts``. Converted values are bound as they are built (before the binding that uses them).

(PASS.LAYOUT.7) A packed desired layout (``NCHW4c``) is taken where the dimensions divide evenly, as TVM
0.25 does; the operators read packed layouts.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Sequence

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.attrs import Attrs
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from ..ir.struct_info import TensorStructInfo, TupleStructInfo
from .infer_layout import INFER
from .layout import UNKNOWN, decisions_equal, forward_index, initial_decision, initial_layout, transpose_like
from .pass_infra import Pass
from .utils import renormalize


def _initial(si) -> Any:
    """(PASS.LAYOUT.1) The initial (nested) decision of struct info."""
    if isinstance(si, TupleStructInfo):
        return [_initial(f) for f in si.fields]
    if isinstance(si, TensorStructInfo):
        return initial_decision(si.ndim)
    return UNKNOWN


def _has_unknown(d) -> bool:
    if isinstance(d, list):
        return any(_has_unknown(x) for x in d)
    return d is UNKNOWN


class _Block:
    """The rewriting of one dataflow block (TVM's ``LayoutConvertMutator``)."""

    def __init__(self, normalizer, desired: Dict[str, Sequence[str]], layout_cb, remap: Dict[rx.Var, rx.Expr]):
        self.n = normalizer
        self.desired = desired
        self.layout_cb = layout_cb
        self.remap = remap
        self.layouts: Dict[rx.Var, Any] = {}

    # -- layouts --------------------------------------------------------------------------------
    def nlayout(self, e: rx.Expr):
        if isinstance(e, rx.Tuple):
            return [self.nlayout(f) for f in e.fields]
        if isinstance(e, rx.Var):
            got = self.layouts.get(e)
            return got if got is not None else _initial(e.struct_info)
        if isinstance(e, rx.Constant):
            return initial_layout(e.data.ndim)
        return UNKNOWN

    def layout(self, e: rx.Expr, nested: bool = False):
        d = self.nlayout(e)
        if isinstance(d, list) and not nested:
            raise RelaxError("ConvertLayout: a tuple where a tensor was expected")
        return d

    # -- rewriting ------------------------------------------------------------------------------
    def _replace(self, e: rx.Expr) -> rx.Expr:
        m = ExprMutator()
        m.var_remap = self.remap
        return m.visit_expr(e)

    def rewrite(self, e: rx.Expr, to) -> rx.Expr:
        """``e`` (its variables remapped) converted from its current layout to ``to``."""
        return self._leaf(self._replace(e), self.nlayout(e), to)

    def _leaf(self, e: rx.Expr, frm, to) -> rx.Expr:
        si = e.struct_info if e.struct_info is not None else None
        if isinstance(frm, list) or isinstance(to, list):
            if not (isinstance(frm, list) and isinstance(to, list)):
                raise RelaxError("ConvertLayout: a layout does not match its tuple")
            n = len(to)
            fields = [e.fields[i] if isinstance(e, rx.Tuple) else rx.TupleGetItem(e, i) for i in range(n)]
            new = [self._leaf(f, a, b) for f, a, b in zip(fields, frm, to)]
            if all(x is y for x, y in zip(new, fields)) and isinstance(e, rx.Tuple):
                return e
            if not isinstance(e, rx.Tuple) and all(
                    isinstance(x, rx.TupleGetItem) and x.tuple_value is e for x in new):
                return e
            return rx.Tuple(tuple(new))
        if decisions_equal(frm, to) or frm.name == "":
            return e
        if frm is UNKNOWN or to is UNKNOWN:
            raise RelaxError("ConvertLayout: cannot convert when exactly one of the layouts is unknown")
        if frm.ndim == to.ndim:
            ndim = frm.ndim
            axes = transpose_like(initial_layout(ndim), frm, to)
            init = initial_layout(ndim)
            return rx.Call(rx.Op("relax.permute_dims"), (e,),
                           Attrs({"axes": tuple(init.index_of(axes[i]) for i in range(ndim))}))
        from ..ops.layout_transform import IndexMap

        idx = tuple(P.PrimVar(f"i{k}", "int32") for k in range(frm.ndim))
        imap = IndexMap(idx, tuple(forward_index(frm, to, idx)))
        return rx.Call(rx.Op("relax.layout_transform"), (e,),
                       Attrs({"index_map": imap, "pad_value": None, "axis_separators": (),
                              "input_axis_separators": ()}))

    def emit(self, b: rx.Binding, value: rx.Expr) -> rx.Var:
        """Re-emit ``b`` with ``value`` (TVM's ReEmitBinding): a new variable when the struct info
        changes."""
        from ..analysis.structural_equal import structural_equal

        value = self.n.normalize_expr(value)
        var = b.var
        if value is not b.value and not structural_equal(var.struct_info, value.struct_info):
            var = type(var)(name_hint=var.name_hint, struct_info=value.struct_info, span=var.span)
            self.remap[b.var] = var
        self.n.emit_normalized(rx.VarBinding(var, value, span=b.span))
        return var

    # -- bindings -------------------------------------------------------------------------------
    def binding(self, b: rx.Binding) -> None:
        v = b.value
        if isinstance(b, rx.MatchCast):
            self._match_cast(b)
        elif isinstance(v, rx.Call):
            self._call(b, v)
        elif isinstance(v, rx.Tuple):
            df = isinstance(b.var, rx.DataflowVar)
            lays = [self.nlayout(f) if df else _initial(f.struct_info) for f in v.fields]
            fields = tuple(self.rewrite(f, t) for f, t in zip(v.fields, lays))
            self.emit(b, rx.Tuple(fields))
            self.layouts[b.var] = lays
        elif isinstance(v, rx.TupleGetItem):
            src = self.nlayout(v.tuple_value) if isinstance(b.var, rx.DataflowVar) else _initial(
                v.tuple_value.struct_info)
            self.emit(b, rx.TupleGetItem(self.rewrite(v.tuple_value, src), v.index))
            self.layouts[b.var] = src[v.index] if isinstance(src, list) else UNKNOWN
        else:
            new = self._default(v)
            self.emit(b, new)
        if b.var not in self.layouts:
            self.layouts[b.var] = _initial(b.var.struct_info)

    def _default(self, v: rx.Expr) -> rx.Expr:
        """Every variable used converted to its initial layout."""
        blk = self

        class _M(ExprMutator):
            def visit_Var(self, x):
                return blk.rewrite(x, _initial(x.struct_info))

            visit_DataflowVar = visit_Var

        return _M().visit_expr(v)

    def _infer(self, call: rx.Call):
        if not isinstance(call.op, rx.Op) or call.op.name not in INFER:
            return None
        for a in call.args:
            if _is_tensorish(a.struct_info) and _has_unknown(self.nlayout(a)):
                return None
        desired = self.layout_cb(call) if self.layout_cb is not None else self.desired
        res = INFER[call.op.name](call, dict(desired), self.layout)
        return res

    def _call(self, b: rx.VarBinding, call: rx.Call) -> None:
        res = self._infer(call)
        if res is None or (not _is_tensorish(b.var.struct_info) and not isinstance(b.var, rx.DataflowVar)):
            args = tuple(self.rewrite(a, _initial(a.struct_info)) for a in call.args)
            self.emit(b, rx.Call(call.op, args, call.attrs, call.sinfo_args, span=call.span))
            self.layouts[b.var] = _initial(b.var.struct_info)
            return
        args = [self.rewrite(a, res.inputs[i]) if i < len(res.inputs) else self._replace(a)
                for i, a in enumerate(call.args)]
        for i, a in res.new_args.items():
            args[i] = a
        attrs = call.attrs if res.attrs is None else Attrs(res.attrs)
        new_call = rx.Call(call.op, tuple(args), attrs, call.sinfo_args, span=call.span)
        out = res.outputs[0]
        if isinstance(b.var, rx.DataflowVar):
            self.emit(b, new_call)
            self.layouts[b.var] = out
            return
        init = _initial(b.var.struct_info)
        value: rx.Expr = new_call
        if not decisions_equal(out, init):
            tmp = self.n.emit(new_call, "lv")
            self.layouts[tmp] = out
            value = self.rewrite(tmp, init)
        self.emit(b, value)
        self.layouts[b.var] = init

    def _match_cast(self, b: rx.MatchCast) -> None:
        if not isinstance(b.var, rx.DataflowVar):
            self.n.emit_normalized(rx.MatchCast(b.var, self._default(b.value), b.struct_info, span=b.span))
            return
        frm, to = _initial(b.value.struct_info), self.nlayout(b.value)
        new_si = _permute_sinfo(b.struct_info, frm, to)
        if new_si is b.struct_info:
            self.n.emit_normalized(rx.MatchCast(b.var, self._replace(b.value), b.struct_info, span=b.span))
            return
        var = self.n.match_cast(self.rewrite(b.value, to), new_si, b.var.name_hint)
        self.layouts[var] = to
        self.layouts[b.var] = to
        self.remap[b.var] = var


_LAYOUT_ATTRS = ("data_layout", "kernel_layout", "out_layout", "layout")


def _is_tensorish(si) -> bool:
    if isinstance(si, TupleStructInfo):
        return all(_is_tensorish(f) for f in si.fields)
    return isinstance(si, TensorStructInfo)


def _permute_sinfo(si, frm, to):
    if isinstance(si, TupleStructInfo):
        fields = tuple(_permute_sinfo(f, a, b) for f, a, b in zip(si.fields, frm, to))
        return si if all(x is y for x, y in zip(fields, si.fields)) else TupleStructInfo(fields)
    if decisions_equal(frm, to):
        return si
    if not isinstance(si, TensorStructInfo) or not isinstance(si.shape, rx.ShapeExpr):
        return si
    vals = si.shape.values
    new = tuple(vals[frm.index_of(to[i])] for i in range(len(vals)))
    return TensorStructInfo(rx.ShapeExpr(new), si.dtype, vdevice=si.vdevice)


class _Function(ExprMutator):
    def __init__(self, mod: IRModule, desired, layout_cb) -> None:
        super().__init__()
        self.mod = mod
        self.desired = desired
        self.layout_cb = layout_cb
        self.n = None

    def visit_Function(self, f: rx.Function) -> rx.Expr:
        from ..static.normalize import Normalizer

        saved = self.n
        self.n = Normalizer(self.mod, script_annotations=False)
        self.n.begin_scope(list(f.params))
        try:
            return self.generic_mutate_expr(f)
        finally:
            self.n = saved

    def visit_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        if not isinstance(b, rx.DataflowBlock):
            return super().visit_block(b)
        self.n.begin_dataflow_block(b.span)
        blk = _Block(self.n, self.desired, self.layout_cb, self.var_remap)
        for x in b.bindings:
            blk.binding(x)
        return self.n.end_block()


def convert_layout(func: rx.Function, mod: IRModule, desired: Dict[str, Sequence[str]],
                   layout_cb: Optional[Callable] = None) -> rx.Function:
    """(PASS.LAYOUT.5-6) ``func`` with its dataflow blocks converted (not re-normalized)."""
    return _Function(mod, desired, layout_cb).visit_expr(func)


class ConvertLayout(Pass):
    """(PASS.LAYOUT.*) ``ConvertLayout(desired_layouts, layout_cb=None)``: ``desired_layouts`` maps an
    operator name to its desired layouts (data, kernel[, output] for convolutions)."""

    name = "ConvertLayout"
    opt_level = 0
    rebuilds_returns = True   # PASS.UTIL.4 (TVM's LayoutConvertMutator is an expression mutator)

    def __init__(self, desired_layouts: Dict[str, Sequence[str]], layout_cb: Optional[Callable] = None) -> None:
        self.desired_layouts = {k: list(v) for k, v in dict(desired_layouts).items()}
        self.layout_cb = layout_cb

    def transform(self, mod: IRModule) -> IRModule:
        items, changed = {}, False
        for gv, f in mod.functions_items():
            if isinstance(f, rx.Function):
                nf = convert_layout(f, mod, self.desired_layouts, self.layout_cb)
                changed |= nf is not f
                items[gv] = nf
            else:
                items[gv] = f
        return renormalize(IRModule(items, mod.attrs, mod.global_infos)) if changed else mod


__all__ = ["ConvertLayout", "convert_layout"]
