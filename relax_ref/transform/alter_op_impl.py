"""AlterOpImpl: replace kernels by implementations with other buffer layouts (PASS.ALTEROP.*).

Follows TVM 0.25 (``src/relax/transform/alter_op_impl.cc``). ``AlterOpImpl(op_impl_map,
op_buffer_transforms, op_buffer_axis_separators, op_buffer_input_axis_separators)``:

* (PASS.ALTEROP.1) A ``call_tir`` of a PrimFunc whose attribute ``operator_name`` has an entry in
  ``op_impl_map`` calls the replacement instead (added once per replacement, named
  ``<operator_name>_replacement`` with characters other than letters, digits and ``_`` replaced by
  ``_``, keeping the attribute ``operator_name``; it must have as many parameters).
* (PASS.ALTEROP.2) With buffer transforms (one index map per parameter, inputs then outputs, or none),
  each input is first ``layout_transform``-ed by its map (a scalar constant is left alone), the output
  struct info is mapped likewise, and each output is transformed back by the inverse map. Index maps
  are given as :class:`~relax_ref.ops.layout_transform.IndexMap` or as Python functions of the indices
  (``int64`` indices named after the parameters).
* (PASS.ALTEROP.3) The inverse of a map is computed for maps whose results are indices ``i``, pairs
  ``i // c`` and ``i % c`` (``c`` a constant), or ``i % c`` alone; its indices are ``axis0, axis1, ...``.
  When the map pads (an extent it splits is not provably a multiple of ``c``, or ``i % c`` over fewer
  than ``c``), the transformed-back output is cropped by a call of a PrimFunc ``remove_pad`` (one per
  rank, added once). Other maps are an error.
* Axis separators are passed to the ``layout_transform`` calls as given; each call gets its own copy
  of the index map (fresh index variables).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.attrs import Attrs
from ..ir.module import IRModule
from ..ir.struct_info import TensorStructInfo, TupleStructInfo
from .pass_infra import Pass, map_functions
from .utils import BindingMutator, fresh_name, renormalize

OPERATOR_NAME = "operator_name"


def _as_index_map(m):
    from ..ops.layout_transform import IndexMap

    if m is None or isinstance(m, IndexMap):
        return m
    if callable(m):
        return IndexMap.from_func(m, "int64")
    raise RelaxError(f"AlterOpImpl: a buffer transform is an IndexMap or a function, not {type(m).__name__}")


def inverse_index_map(imap, shape: Sequence[P.PrimExpr]):
    """(PASS.ALTEROP.3) ``(inverse, pads)`` of ``imap`` over an input of ``shape``."""
    from ..arith import Analyzer
    from ..ops.layout_transform import IndexMap

    an = Analyzer()
    outs = list(imap.final_indices)
    axes = tuple(P.PrimVar(f"axis{k}", o.dtype if o.dtype.startswith("int") else "int64") for k, o in enumerate(outs))
    result: List[P.PrimExpr] = []
    pads = False
    for var, extent in zip(imap.initial_indices, shape):
        direct = [k for k, o in enumerate(outs) if o is var]
        div = [k for k, o in enumerate(outs) if isinstance(o, P.FloorDiv) and o.a is var and isinstance(o.b, P.IntImm)]
        mod = [k for k, o in enumerate(outs) if isinstance(o, P.FloorMod) and o.a is var and isinstance(o.b, P.IntImm)]
        if direct:
            result.append(axes[direct[0]])
        elif div and mod and outs[div[0]].b.value == outs[mod[0]].b.value:
            c = outs[div[0]].b.value
            result.append(P.Add(P.Mul(axes[div[0]], P.IntImm(c, axes[div[0]].dtype)), axes[mod[0]]))
            pads |= not an.can_prove_equal(P.FloorMod(extent, P.IntImm(c, extent.dtype)), P.IntImm(0, extent.dtype))
        elif mod and not div:
            c = outs[mod[0]].b.value
            if not an.can_prove(P.LE(extent, P.IntImm(c, extent.dtype))):
                raise RelaxError(f"AlterOpImpl: the index map is not invertible ({var.name} % {c} over {extent})")
            result.append(axes[mod[0]])
            pads |= not an.can_prove_equal(extent, P.IntImm(c, extent.dtype))
        else:
            raise RelaxError(f"AlterOpImpl: cannot invert the index map for index {var.name}")
    return IndexMap(axes, tuple(result)), pads


def remove_pad_func(rank: int, dtype: str) -> tir.PrimFunc:
    """``output[i] = input[i]`` for an input at least as large as the output (both symbolic)."""
    pin = tuple(P.PrimVar(f"p{k}", "int64") for k in range(rank))
    pout = tuple(P.PrimVar(f"i{k}", "int64") for k in range(rank))
    hin, hout = P.PrimVar("var_input", "handle"), P.PrimVar("var_output", "handle")
    bin_ = tir.Buffer("input", pin, dtype)
    bout = tir.Buffer("output", pout, dtype)
    loops = [P.PrimVar(f"ax{k}", "int64") for k in range(rank)]
    iters = [tir.IterVar(P.PrimVar(f"v_ax{k}", "int64"), tir.Range(P.IntImm(0, "int64"), pout[k]), "spatial")
             for k in range(rank)]
    idx = tuple(iv.var for iv in iters)
    store = tir.BufferStore(bout, tir.BufferLoad(bin_, idx, dtype), idx)
    point = tuple(tir.Range(i, P.IntImm(1, "int64")) for i in idx)
    block = tir.Block(name="output", iter_vars=tuple(iters), reads=(tir.BufferRegion(bin_, point),),
                      writes=(tir.BufferRegion(bout, point),), body=store)
    body: tir.Stmt = tir.BlockRealize(tuple(loops), P.const(True, "bool"), block)
    for k in reversed(range(rank)):
        body = tir.For(loop_var=loops[k], min=P.IntImm(0, "int64"), extent=pout[k], body=body)
    root = tir.BlockRealize((), P.const(True, "bool"), tir.Block(name="root", body=body))
    return tir.PrimFunc((hin, hout), root, ((hin, bin_), (hout, bout)),
                        attrs={OPERATOR_NAME: "remove_pad", "tir.noalias": True})


class _Alter(BindingMutator):
    def __init__(self, mod: IRModule, impls, transforms, seps, in_seps) -> None:
        super().__init__(mod)
        self.mod = mod
        self.impls, self.transforms, self.seps, self.in_seps = impls, transforms, seps, in_seps
        self.added: Dict[str, Any] = {}          # new name -> PrimFunc
        self.gvars: Dict[int, rx.GlobalVar] = {}  # id(replacement) -> GlobalVar
        self.remove_pad: Dict[int, rx.GlobalVar] = {}
        self.names = set(mod)

    def _add(self, func, hint: str) -> rx.GlobalVar:
        name = fresh_name(self.names, "".join(c if c.isalnum() or c == "_" else "_" for c in hint))
        self.names.add(name)
        gv = rx.GlobalVar(name)
        self.added[name] = (gv, func)
        return gv

    def _replacement(self, func, op_kind: str) -> rx.GlobalVar:
        gv = self.gvars.get(id(func))
        if gv is None:
            attrs = dict(func.attrs)
            attrs[OPERATOR_NAME] = op_kind
            new = tir.PrimFunc(func.params, func.body, func.buffer_map, func.ret_type, attrs=attrs, span=func.span)
            gv = self._add(new, op_kind + "_replacement")
            self.gvars[id(func)] = gv
        return gv

    def _transform(self, e: rx.Expr, imap, sep, in_sep) -> rx.Expr:
        if imap is None or (isinstance(e, rx.Constant) and e.data.ndim == 0):
            return e
        return rx.Call(rx.Op("relax.layout_transform"), (e,), Attrs({
            "index_map": _fresh_copy(imap), "pad_value": None, "axis_separators": tuple(sep or ()),
            "input_axis_separators": tuple(in_sep or ())}))

    def _inverse(self, e: rx.Expr, imap, old: TensorStructInfo, sep, in_sep) -> rx.Expr:
        if imap is None or (isinstance(e, rx.Constant) and e.data.ndim == 0):
            return e
        inv, pads = inverse_index_map(imap, old.shape_values)
        back = self._transform(e, inv, sep, in_sep)
        if not pads:
            return back
        rank = len(old.shape_values)
        gv = self.remove_pad.get(rank)
        if gv is None:
            gv = self._add(remove_pad_func(rank, old.dtype), "remove_pad")
            self.remove_pad[rank] = gv
        return rx.Call(rx.Op("relax.call_tir"), (gv, rx.Tuple((back,))), sinfo_args=(old,))

    def visit_Call(self, c: rx.Call) -> rx.Expr:
        call = self.generic_mutate_expr(c)
        if not (isinstance(call.op, rx.Op) and call.op.name == "relax.call_tir"):
            return call
        callee = call.args[0]
        if not isinstance(callee, rx.GlobalVar):
            return call
        old = self.mod.get(callee.name_hint)
        op_kind = old.attrs.get(OPERATOR_NAME) if isinstance(old, tir.PrimFunc) else None
        if op_kind is None or op_kind not in self.impls:
            return call
        new = self.impls[op_kind]
        maps = [_as_index_map(m) for m in (self.transforms.get(op_kind) or [])]
        if maps and len(maps) != len(new.params):
            raise RelaxError(f"AlterOpImpl: {len(maps)} buffer transforms for {len(new.params)} parameters of "
                             f"'{op_kind}'")
        if len(old.params) != len(new.params):
            raise RelaxError(f"AlterOpImpl: the replacement of '{op_kind}' takes {len(new.params)} parameters, "
                             f"the kernel {len(old.params)}")
        seps = list(self.seps.get(op_kind) or [None] * len(maps))
        in_seps = list(self.in_seps.get(op_kind) or [None] * len(maps))
        gv = self._replacement(new, op_kind)
        inputs = call.args[1]
        if maps:
            inputs = rx.Tuple(tuple(self._transform(f, maps[i], seps[i], in_seps[i])
                                    for i, f in enumerate(inputs.fields)))
        old_si = call.sinfo_args[0]
        outs = list(old_si.fields) if isinstance(old_si, TupleStructInfo) else [old_si]
        first = len(maps) - len(outs)
        new_outs = [_map_sinfo(o, maps[first + i]) if maps else o for i, o in enumerate(outs)]
        new_si = TupleStructInfo(tuple(new_outs)) if isinstance(old_si, TupleStructInfo) else new_outs[0]
        new_call = rx.Call(rx.Op("relax.call_tir"), (gv, inputs) + tuple(call.args[2:]), call.attrs, (new_si,))
        if not maps:
            return new_call
        # nested values are bound by re-normalization in the order TVM's builder binds them
        if len(outs) == 1:
            return self._inverse(new_call, maps[first], outs[0], seps[first], in_seps[first])
        fields = [self._inverse(rx.TupleGetItem(new_call, i), maps[first + i], o, seps[first + i], in_seps[first + i])
                  for i, o in enumerate(outs)]
        return rx.Tuple(tuple(fields))


def _fresh_copy(imap):
    """A copy of ``imap`` with new index variables: no two ``layout_transform`` calls share them."""
    from ..ir.functor import substitute_prim
    from ..ops.layout_transform import IndexMap

    new = tuple(P.PrimVar(v.name, v.dtype) for v in imap.initial_indices)
    vmap = dict(zip(imap.initial_indices, new))
    return IndexMap(new, tuple(substitute_prim(f, vmap) for f in imap.final_indices))


def _map_sinfo(si: TensorStructInfo, imap) -> TensorStructInfo:
    if imap is None:
        return si
    from ..ops.layout_transform import map_shape

    shape = map_shape(imap, si.shape_values)
    if shape is None:
        raise RelaxError("AlterOpImpl: cannot map the output shape through the index map")
    return TensorStructInfo(rx.ShapeExpr(shape), si.dtype, vdevice=si.vdevice)


class AlterOpImpl(Pass):
    """(PASS.ALTEROP.1-3)"""

    name = "AlterOpImpl"
    opt_level = 0

    def __init__(self, op_impl_map: Dict[str, tir.PrimFunc], op_buffer_transforms: Optional[Dict[str, list]] = None,
                 op_buffer_axis_separators: Optional[Dict[str, list]] = None,
                 op_buffer_input_axis_separators: Optional[Dict[str, list]] = None) -> None:
        self.op_impl_map = dict(op_impl_map)
        for k, f in self.op_impl_map.items():
            if not isinstance(f, tir.PrimFunc):
                raise RelaxError(f"AlterOpImpl: the replacement of '{k}' is not a PrimFunc")
        self.op_buffer_transforms = dict(op_buffer_transforms or {})
        self.op_buffer_axis_separators = dict(op_buffer_axis_separators or {})
        self.op_buffer_input_axis_separators = dict(op_buffer_input_axis_separators or {})

    def transform(self, mod: IRModule) -> IRModule:
        m = _Alter(mod, self.op_impl_map, self.op_buffer_transforms, self.op_buffer_axis_separators,
                   self.op_buffer_input_axis_separators)
        items = map_functions(mod, lambda _gv, f: m.visit_expr(f))
        if items is None:
            return mod
        for gv, f in m.added.values():
            items[gv] = f
        return renormalize(IRModule(items, mod.attrs, mod.global_infos))


__all__ = ["AlterOpImpl", "inverse_index_map", "remove_pad_func"]
