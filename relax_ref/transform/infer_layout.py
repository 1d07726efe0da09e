"""Layout inference per operator for ConvertLayout (PASS.LAYOUT.4).

``INFER[op](call, desired, lay)`` decides, from the layouts of the call's arguments (``lay(arg)``, a
decision of :mod:`relax_ref.transform.layout`), the layouts its tensor arguments must be converted to,
the layout of its result, and the call's new attributes (and replaced arguments): a
:class:`Inferred`. ``desired`` maps operator names to the layouts asked for (for the convolutions:
data, kernel and optionally output layout). The rules follow the layout inference TVM 0.25 registers
for each operator:

* element-wise unary operators (and ``astype``, ``nn.dropout``) keep the layout; binary ones align the
  operand of lower rank with the other (a scalar operand keeps its own); ``ewise_fma`` takes the layout
  of the second and third operands when they agree, else the first's;
* the convolutions take the desired layout (a permutation, or packed axes when every dimension divides)
  and otherwise follow their data; pooling and ``image.resize2d``/``resize3d`` follow their data (the
  resizes may also have a desired layout, an axis swap);
* reductions, ``concat``, ``split``, ``stack``, ``flip``, ``repeat``, ``tile``, ``expand_dims``,
  ``squeeze``, ``permute_dims``, ``strided_slice``, the normalizations, ``nn.softmax``, ``nn.prelu``,
  ``gather_elements``, ``scatter_elements`` and ``scatter_nd`` renumber their axes for the layout of
  their data; most of them fall back to the initial layout for packed axes; ``dynamic_strided_slice``
  always uses the initial layout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import TensorStructInfo, TupleStructInfo
from .layout import (
    SLayout, can_prove_layout_transform, find_axis, follow_decision, initial_decision, initial_layout,
    transpose_like, transpose_str_like, transpose_sub_layout_like, transpose_sub_layout_str_like,
)


@dataclass
class Inferred:
    inputs: List[Any]
    outputs: List[Any]
    attrs: Optional[Dict[str, Any]] = None          # None: keep the call's attributes
    new_args: Dict[int, rx.Expr] = field(default_factory=dict)


INFER: Dict[str, Callable] = {}


def register(*names: str):
    def deco(fn):
        for n in names:
            INFER["relax." + n] = fn
        return fn
    return deco


def _tensor(e: rx.Expr) -> TensorStructInfo:
    si = e.struct_info
    if not isinstance(si, TensorStructInfo):
        raise RelaxError(f"layout inference needs a tensor, got {si}")
    return si


def _packed(d: SLayout) -> bool:
    return d.ndim != d.ndim_primal


def _attrs(call: rx.Call, **changes) -> Dict[str, Any]:
    out = dict(call.attrs) if call.attrs else {}
    out.update(changes)
    return out


def _no_desired(call, desired) -> None:
    if call.op.name in desired:
        raise RelaxError(f"ConvertLayout: no desired layout can be given for {call.op.name}")


# ---- element-wise --------------------------------------------------------------------------------------

_UNARY = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_not", "ceil", "cos", "cosh", "exp",
          "floor", "log", "logical_not", "negative", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "square",
          "sqrt", "tan", "tanh", "trunc", "erf", "isfinite", "isinf", "isnan", "nn.relu", "nn.gelu",
          "nn.gelu_tanh", "nn.selu", "nn.silu", "nn.dropout", "astype")
_BINARY = ("add", "divide", "floor_divide", "log_add_exp", "multiply", "power", "atan2", "subtract", "mod",
           "floor_mod", "equal", "greater", "greater_equal", "less", "less_equal", "not_equal", "minimum",
           "maximum", "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
           "left_shift", "right_shift")


@register(*_UNARY)
def _unary(call, desired, lay):
    _no_desired(call, desired)
    d = lay(call.args[0])
    return Inferred([d], [d])


@register(*_BINARY)
def _binary(call, desired, lay):
    _no_desired(call, desired)
    l1, l2 = lay(call.args[0]), lay(call.args[1])
    s1, s2 = _tensor(call.args[0]), _tensor(call.args[1])
    if _packed(l1) or _packed(l2):
        if l1.ndim_primal == l2.ndim_primal:
            if l1.ndim >= l2.ndim and s2.shape_values is not None:
                if can_prove_layout_transform(initial_layout(len(s2.shape_values)), l1, s2.shape_values):
                    return Inferred([l1, l1], [l1])
            elif s1.shape_values is not None:
                if can_prove_layout_transform(initial_layout(len(s1.shape_values)), l2, s1.shape_values):
                    return Inferred([l2, l2], [l2])
    if s1.ndim <= s2.ndim:
        if s1.ndim == 0:
            return Inferred([SLayout(""), l2], [l2])
        out = follow_decision(l1, s2.ndim)
        return Inferred([l1, out], [out])
    if s2.ndim == 0:
        return Inferred([l1, SLayout("")], [l1])
    out = follow_decision(l2, s1.ndim)
    return Inferred([out, l2], [out])


@register("ewise_fma")
def _fma(call, desired, lay):
    _no_desired(call, desired)
    l0, l1, l2 = (lay(a) for a in call.args)
    layout = l1 if l1.name == l2.name else l0
    return Inferred([layout] * 3, [layout])


# ---- convolution, pooling, resize ------------------------------------------------------------------------


def _conv(rank: int, packed: bool):
    def infer(call, desired, lay):
        name = call.op.name
        a = call.attrs
        data_l, kern_l, out_l = (SLayout(a["data_layout"]), SLayout(a["kernel_layout"]),
                                 SLayout(a.get("out_layout") or a["data_layout"]))
        d, w = lay(call.args[0]), lay(call.args[1])
        init = initial_layout(rank + 2)
        want = desired.get(name)
        if want is not None:
            dd, dw = SLayout(want[0]), SLayout(want[1])
            do = SLayout(want[2]) if len(want) == 3 else dd
            new = _attrs(call, data_layout=want[0], kernel_layout=want[1], out_layout=want[2] if len(want) == 3
                         else want[0])
            if dd.ndim == data_l.ndim and dw.ndim == kern_l.ndim and do.ndim == out_l.ndim:
                return Inferred([transpose_like(init, data_l, dd), transpose_like(init, kern_l, dw)],
                                [transpose_like(init, out_l, do)], new)
            if not packed:
                raise RelaxError(f"ConvertLayout: {name} supports axis swaps only, not '{want[0]}'")
            ds, ks = _tensor(call.args[0]).shape_values, _tensor(call.args[1]).shape_values
            if ds is not None and ks is not None and can_prove_layout_transform(data_l, dd, ds) and \
                    can_prove_layout_transform(kern_l, dw, ks):
                return Inferred([transpose_sub_layout_like(init, data_l, dd), transpose_sub_layout_like(init, kern_l, dw)],
                                [transpose_sub_layout_like(init, out_l, do)], new)
            d, w = init, init
        o = d
        new = _attrs(call, data_layout=transpose_like(data_l, init, d).name,
                     kernel_layout=transpose_like(kern_l, init, w).name, out_layout=transpose_like(out_l, init, o).name)
        return Inferred([d, w], [o], new)
    return infer


for _n, _r, _p in (("nn.conv1d", 1, False), ("nn.conv2d", 2, True), ("nn.conv3d", 3, False),
                   ("nn.conv1d_transpose", 1, False), ("nn.conv2d_transpose", 2, True),
                   ("nn.conv3d_transpose", 3, False)):
    INFER["relax." + _n] = _conv(_r, _p)


def _pool(rank: int, packed: bool):
    def infer(call, desired, lay):
        _no_desired(call, desired)
        init = initial_layout(rank + 2)
        d = lay(call.args[0])
        in_l = SLayout(call.attrs["layout"])
        out_l = SLayout(call.attrs.get("out_layout") or call.attrs["layout"])
        if packed and _packed(d):
            want = transpose_sub_layout_like(in_l, init, d)
            shape = _tensor(call.args[0]).shape_values
            if shape is not None and can_prove_layout_transform(in_l, want, shape):
                return Inferred([d], [d], _attrs(call, layout=want.name, out_layout=want.name))
            d = init
        return Inferred([d], [d], _attrs(call, layout=transpose_like(in_l, init, d).name,
                                         out_layout=transpose_like(out_l, init, d).name))
    return infer


for _n in ("nn.max_pool1d", "nn.avg_pool1d", "nn.adaptive_avg_pool1d"):
    INFER["relax." + _n] = _pool(1, False)
for _n in ("nn.max_pool2d", "nn.avg_pool2d", "nn.adaptive_avg_pool2d"):
    INFER["relax." + _n] = _pool(2, True)
for _n in ("nn.max_pool3d", "nn.avg_pool3d", "nn.adaptive_avg_pool3d"):
    INFER["relax." + _n] = _pool(3, False)


@register("image.resize2d", "image.resize3d")
def _resize(call, desired, lay):
    name = call.op.name
    want = desired.get(name)
    in_l = SLayout(call.attrs["layout"])
    init = initial_layout(5 if name.endswith("3d") else 4)
    if want is not None:
        dd = SLayout(want[0])
        if _packed(dd):
            raise RelaxError(f"ConvertLayout: {name[len('relax.'):]} supports axis swaps only")
        d = transpose_like(init, in_l, dd)
        new = _attrs(call, layout=want[0])
    else:
        d = lay(call.args[0])
        if _packed(d):
            d = init
        new = _attrs(call, layout=transpose_like(in_l, init, d).name)
    return Inferred([d, initial_decision(-1) if not isinstance(call.args[1].struct_info, TensorStructInfo)
                     else initial_layout(_tensor(call.args[1]).ndim)], [d], new)


# ---- reductions and normalizations -------------------------------------------------------------------------


@register("max", "mean", "min", "prod", "std", "sum", "variance")
def _reduce(call, desired, lay):
    _no_desired(call, desired)
    ndim = _tensor(call.args[0]).ndim
    axis = call.attrs.get("axis")
    axis = list(range(ndim)) if axis is None else [int(a) for a in axis]
    s = ["0"] * ndim
    for a in axis:
        s[(a + ndim) % ndim] = "#"
    j = 0
    for i in range(ndim):
        if s[i] != "#":
            s[i] = chr(ord("A") + j)
            j += 1
    existing = lay(call.args[0])
    new_str = transpose_sub_layout_str_like("".join(s), initial_layout(ndim).name, existing.name)
    ref = new_str
    letters = "".join(c for c in new_str if not c.isdigit())
    new_axis = [i for i, c in enumerate(letters) if c == "#"]
    out = []
    for i, c in enumerate(ref):
        if (c.isdigit() and i + 1 < len(ref) and ref[i + 1] == "#") or c == "#":
            continue
        out.append(c)
    keep = bool(call.attrs.get("keepdims"))
    return Inferred([existing], [existing if keep else SLayout("".join(out))], _attrs(call, axis=new_axis))


def _axis_attrs(call, lay, keys, packed_ok=True):
    d = lay(call.args[0])
    ndim = _tensor(call.args[0]).ndim
    if not packed_ok and _packed(d):
        d = initial_layout(ndim)
    return d, ndim


@register("nn.softmax", "nn.prelu")
def _softmax(call, desired, lay):
    _no_desired(call, desired)
    d, ndim = _axis_attrs(call, lay, (), packed_ok=False)
    ins = [d] + [lay(a) for a in call.args[1:]]
    return Inferred(ins, [d], _attrs(call, axis=find_axis(d, int(call.attrs["axis"]))))


@register("nn.batch_norm")
def _batch_norm(call, desired, lay):
    _no_desired(call, desired)
    inits = [initial_decision(_tensor(a).ndim) for a in call.args[:5]]
    d, ndim = _axis_attrs(call, lay, (), packed_ok=False)
    axis = find_axis(d, (int(call.attrs["axis"]) + ndim) % ndim)
    return Inferred([d] + inits[1:5], [[d, inits[3], inits[4]]], _attrs(call, axis=axis))


@register("nn.layer_norm")
def _layer_norm(call, desired, lay):
    _no_desired(call, desired)
    inits = [initial_decision(_tensor(a).ndim) for a in call.args[:3]]
    d = lay(call.args[0])
    ndim = _tensor(call.args[0]).ndim
    axes = [find_axis(d, (int(a) + ndim) % ndim) for a in call.attrs["axes"]]
    return Inferred([d] + inits[1:3], [d], _attrs(call, axes=axes))


@register("nn.group_norm", "nn.instance_norm")
def _group_norm(call, desired, lay):
    _no_desired(call, desired)
    inits = [initial_decision(_tensor(a).ndim) for a in call.args[:3]]
    d = lay(call.args[0])
    return Inferred([d] + inits[1:3], [d], _attrs(call, axes=[find_axis(d, int(a)) for a in call.attrs["axes"]],
                                                  channel_axis=find_axis(d, int(call.attrs["channel_axis"]))))


@register("nn.rms_norm")
def _rms_norm(call, desired, lay):
    _no_desired(call, desired)
    inits = [initial_decision(_tensor(a).ndim) for a in call.args[:2]]
    d = lay(call.args[0])
    return Inferred([d, inits[1]], [d], _attrs(call, axes=[find_axis(d, int(a)) for a in call.attrs["axes"]]))


# ---- manipulation -----------------------------------------------------------------------------------------


@register("permute_dims")
def _permute_dims(call, desired, lay):
    _no_desired(call, desired)
    ndim = _tensor(call.args[0]).ndim
    d = lay(call.args[0])
    if _packed(d):
        d = initial_layout(ndim)
    axes = call.attrs.get("axes")
    order = [int(a) for a in axes] if axes is not None else [ndim - 1 - i for i in range(ndim)]
    order_str = "".join(chr(ord("A") + a) for a in order)
    new_axes = transpose_str_like(initial_layout(ndim).name, d, SLayout(order_str))
    return Inferred([d], [initial_layout(ndim)], _attrs(call, axes=[ord(c) - ord("A") for c in new_axes]))


def _fields(call) -> List[Any]:
    si = call.args[0].struct_info
    if not isinstance(si, TupleStructInfo):
        raise RelaxError(f"{call.op.name} needs a tuple of tensors")
    return list(si.fields)


@register("concat")
def _concat(call, desired, lay):
    _no_desired(call, desired)
    layouts = lay(call.args[0], nested=True)
    if not isinstance(layouts, list) or not layouts:
        raise RelaxError("concat needs a tuple of tensors")
    layout = layouts[0]
    for ly in layouts:
        if _packed(ly):
            chosen = ly
            for i, fsi in enumerate(_fields(call)):
                shape = fsi.shape_values if isinstance(fsi, TensorStructInfo) else None
                # the field's struct info is of its initial layout (the tensor before conversion)
                if shape is None or not can_prove_layout_transform(initial_layout(len(shape)), ly, shape):
                    chosen = next((p for p in layouts if not _packed(p)), ly)
                    break
            layout = chosen
            break
    axis = call.attrs.get("axis")
    return Inferred([[layout] * len(layouts)], [layout], _attrs(call, axis=find_axis(layout, int(axis or 0))))


@register("stack")
def _stack(call, desired, lay):
    _no_desired(call, desired)
    layouts = lay(call.args[0], nested=True)
    layout = layouts[0]
    ndim = layout.ndim
    if _packed(layout):
        layout = initial_layout(ndim)
    axis = int(call.attrs.get("axis") or 0) % (ndim + 1)
    # (PASS.LAYOUT.8) the new axis is the output's initial axis ``axis``, placed where the input's axis
    # ``axis`` is (last for ``axis == ndim``); the input's axes from ``axis`` on are renamed one letter up
    pos = find_axis(layout, axis) if axis < ndim else ndim
    shifted = [c if ord(c) - ord("A") < axis else chr(ord(c) + 1) for c in layout.name]
    name = "".join(shifted[:pos]) + chr(ord("A") + axis) + "".join(shifted[pos:])
    return Inferred([[layout] * len(layouts)], [SLayout(name)], _attrs(call, axis=pos))


@register("split")
def _split(call, desired, lay):
    _no_desired(call, desired)
    d = lay(call.args[0])
    ndim = _tensor(call.args[0]).ndim
    out = call.struct_info
    if not isinstance(out, TupleStructInfo):
        raise RelaxError("split has no tuple struct info")
    if _packed(d):
        for f in out.fields:
            shape = f.shape_values if isinstance(f, TensorStructInfo) else None
            if shape is None or not can_prove_layout_transform(initial_layout(ndim), d, shape):
                d = initial_layout(ndim)
                break
    return Inferred([d], [[d] * len(out.fields)], _attrs(call, axis=find_axis(d, int(call.attrs["axis"]))))


@register("expand_dims")
def _expand_dims(call, desired, lay):
    _no_desired(call, desired)
    ndim = _tensor(call.args[0]).ndim
    d = lay(call.args[0])
    if _packed(d):
        d = initial_layout(ndim)
    axes = [int(a) for a in call.attrs["axis"]]
    out_ndim = ndim + len(axes)
    new = [False] * out_ndim
    for a in axes:
        new[(a + out_ndim) % out_ndim] = True
    kept = "".join(chr(ord("A") + i) for i in range(out_ndim) if not new[i])
    kept = transpose_str_like(kept, initial_layout(ndim), d)
    out, j = [], 0
    for i in range(out_ndim):
        if new[i]:
            out.append(chr(ord("A") + i))
        else:
            out.append(kept[j])
            j += 1
    return Inferred([d], [SLayout("".join(out))])


@register("squeeze")
def _squeeze(call, desired, lay):
    _no_desired(call, desired)
    si = _tensor(call.args[0])
    ndim = si.ndim
    shape = si.shape_values
    if shape is None:
        raise RelaxError("ConvertLayout: squeeze needs a known shape")
    axis = call.attrs.get("axis")
    axis = [int(a) for a in axis] if axis is not None else [
        i for i, v in enumerate(shape) if isinstance(v, P.IntImm) and v.value == 1]
    s = ["0"] * ndim
    for a in axis:
        s[a] = "1"
    j = 0
    for i in range(ndim):
        if s[i] != "1":
            s[i] = chr(ord("A") + j)
            j += 1
    d = lay(call.args[0])
    if _packed(d):
        d = initial_layout(ndim)
    new_str = transpose_str_like("".join(s), initial_layout(ndim), d)
    return Inferred([d], [SLayout(new_str.replace("1", ""))],
                    _attrs(call, axis=[i for i, c in enumerate(new_str) if c == "1"]))


def _plain(call, lay):
    ndim = _tensor(call.args[0]).ndim
    d = lay(call.args[0])
    return (initial_layout(ndim) if _packed(d) else d), ndim


@register("repeat")
def _repeat(call, desired, lay):
    _no_desired(call, desired)
    d, ndim = _plain(call, lay)
    axis = call.attrs.get("axis")
    if axis is None:
        return Inferred([d], [initial_layout(1)])
    axis = int(axis) + (ndim if int(axis) < 0 else 0)
    s = ["0"] * ndim
    s[axis] = "1"
    j = 0
    for i in range(ndim):
        if s[i] != "1":
            s[i] = chr(ord("A") + j)
            j += 1
    new_str = transpose_str_like("".join(s), initial_layout(ndim), d)
    return Inferred([d], [d], _attrs(call, axis=new_str.index("1")))


@register("tile")
def _tile(call, desired, lay):
    _no_desired(call, desired)
    d, ndim = _plain(call, lay)
    reps = [int(r) for r in call.attrs["repeats"]]
    n = len(reps)
    out_ndim = max(n, ndim)
    init = initial_layout(ndim)
    new = []
    if out_ndim == ndim:
        for i in range(ndim):
            pos = init.index_of(d[i])
            new.append(reps[pos - (ndim - n)] if pos >= ndim - n else 1)
        out = d
    else:
        extra = n - ndim
        new = reps[:extra] + [reps[init.index_of(d[i]) + extra] for i in range(ndim)]
        out = follow_decision(d, out_ndim)
    return Inferred([d], [out], _attrs(call, repeats=new))


@register("flip")
def _flip(call, desired, lay):
    _no_desired(call, desired)
    d, ndim = _plain(call, lay)
    axis = int(call.attrs["axis"])
    return Inferred([d], [d], _attrs(call, axis=find_axis(d, axis + (ndim if axis < 0 else 0))))


def _is_initial(d) -> bool:
    return d.name == initial_layout(d.ndim).name


@register("gather_elements")
def _gather_elements(call, desired, lay):
    _no_desired(call, desired)
    dl, il = lay(call.args[0]), lay(call.args[1])
    layout = il if _is_initial(dl) and not _is_initial(il) else dl
    if _packed(layout):
        layout = initial_layout(_tensor(call.args[0]).ndim)
    return Inferred([layout, layout], [layout], _attrs(call, axis=find_axis(layout, int(call.attrs["axis"]))))


@register("scatter_elements")
def _scatter_elements(call, desired, lay):
    _no_desired(call, desired)
    dl, il, ul = (lay(a) for a in call.args[:3])
    layout = il if il.name == ul.name else dl
    if _packed(layout):
        layout = initial_layout(_tensor(call.args[0]).ndim)
    return Inferred([layout] * 3, [layout], _attrs(call, axis=find_axis(layout, int(call.attrs["axis"]))))


@register("scatter_nd")
def _scatter_nd(call, desired, lay):
    _no_desired(call, desired)
    dl, il, ul = (lay(a) for a in call.args[:3])
    dn, un = _tensor(call.args[0]).ndim, _tensor(call.args[2]).ndim
    if _packed(dl) or dn != un:
        dl, ul = initial_layout(dn), initial_layout(un)
    else:
        ul = dl
    return Inferred([dl, il, ul], [dl])


@register("strided_slice")
def _strided_slice(call, desired, lay):
    _no_desired(call, desired)
    d, ndim = _plain(call, lay)
    axes_si = call.args[1].struct_info
    if not isinstance(axes_si, TupleStructInfo) or not all(
            getattr(f, "value", None) is not None and isinstance(f.value, P.IntImm) for f in axes_si.fields):
        raise RelaxError("ConvertLayout: strided_slice along non-static axes")
    new_axes = rx.Tuple(tuple(rx.PrimValue(P.IntImm(find_axis(d, int(f.value.value)), "int64"))
                              for f in axes_si.fields))
    return Inferred([d], [d], None, {1: new_axes})


@register("dynamic_strided_slice")
def _dynamic_strided_slice(call, desired, lay):
    _no_desired(call, desired)
    init = initial_layout(_tensor(call.args[0]).ndim)
    return Inferred([init], [init], {})


__all__ = ["INFER", "Inferred"]
