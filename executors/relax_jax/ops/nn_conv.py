"""Lowerings of the convolutions (semantics: ``relax_ref.ops.nn_conv``): ``lax.conv_general_dilated``
(``Precision.HIGHEST``, operands converted to the output dtype first, 16-bit floats accumulated in
float32); transposed convolutions follow the reference's per-kernel-position algorithm. Exact shapes.
"""

from __future__ import annotations

import itertools

import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.ir import dtype as _dt
from relax_ref.ops.nn_conv import conv_transpose_sizes

from ..lowering import lowering
from ..prim_jax import cast, np_dtype
from .common import dtype_of
from .nn_common import F32, SPATIAL, from_canonical, inferred_out_dtype, layout_perm, to_canonical


def _acc_dtype(out_dtype: str):
    if _dt.is_float(out_dtype):
        return F32 if out_dtype in ("float16", "bfloat16") else np_dtype(out_dtype)
    return np.dtype("int64")


def _to_acc(x, out_dtype: str):
    v = cast(x, dtype_of(x), out_dtype) if dtype_of(x) != out_dtype else x
    if out_dtype == "bool":
        return v.astype(jnp.int64)
    return v.astype(_acc_dtype(out_dtype))


def _finish(acc, out_dtype: str):
    if out_dtype == "bool":
        return acc != 0
    return acc.astype(np_dtype(out_dtype))


def conv(ctx, x, w, strides, padding, dilation, groups: int, out_dtype: str):
    nsp = x.ndim - 2
    pads = [(padding[i], padding[i + nsp]) for i in range(nsp)]
    xa, wa = _to_acc(x, out_dtype), _to_acc(w, out_dtype)
    ksz = tuple(wa.shape[2:])
    if 0 in ksz:
        # an empty window: every output is a sum over no terms, 0 (OP.NN.CONV.SEM.1); XLA's verifier
        # refuses a window dimension of 0, so the result is made here, with the inferred shape
        # (OP.nn.conv2d.C5: ``(n + pb + pe - d * (k - 1) - 1) // s + 1``)
        out_sp = tuple((xa.shape[2 + i] + pads[i][0] + pads[i][1] - dilation[i] * (ksz[i] - 1) - 1) // strides[i] + 1
                       for i in range(nsp))
        return _finish(jnp.zeros((xa.shape[0], wa.shape[0]) + out_sp, xa.dtype), out_dtype)
    sp = SPATIAL[nsp]
    dn = lax.conv_dimension_numbers(xa.shape, wa.shape, ("NC" + sp, "OI" + sp, "NC" + sp))
    prec = lax.Precision.HIGHEST if jnp.issubdtype(xa.dtype, jnp.floating) else None
    acc = lax.conv_general_dilated(xa, wa, window_strides=tuple(strides), padding=pads,
                                   rhs_dilation=tuple(dilation), dimension_numbers=dn,
                                   feature_group_count=groups, precision=prec, preferred_element_type=xa.dtype)
    return _finish(acc, out_dtype)


def conv_transpose(ctx, x, w, strides, padding, output_padding, dilation, groups: int, out_dtype: str):
    nsp = x.ndim - 2
    n, c = x.shape[:2]
    og = w.shape[1]
    ksz = w.shape[2:]
    cg = c // groups
    full_len, out_len = conv_transpose_sizes(ctx.op_name, tuple(x.shape), tuple(w.shape), strides, padding,
                                             output_padding, dilation, groups)
    xa, wa = _to_acc(x, out_dtype), _to_acc(w, out_dtype)
    # the spatial element count spelled out: ``-1`` cannot be inferred when the batch is empty
    xg = xa.reshape((n, groups, cg, int(np.prod(x.shape[2:], dtype=np.int64))))
    wg = wa.reshape((groups, cg, og) + tuple(ksz))
    full = jnp.zeros((n, groups, og) + tuple(full_len), dtype=xa.dtype)
    if int(np.prod(x.shape, dtype=np.int64)) and int(np.prod(w.shape, dtype=np.int64)):
        prec = lax.Precision.HIGHEST if jnp.issubdtype(xa.dtype, jnp.floating) else None
        for kk in itertools.product(*[range(k) for k in ksz]):
            wk = jnp.swapaxes(wg[(slice(None), slice(None), slice(None)) + kk], 1, 2)
            contrib = jnp.matmul(wk[None], xg, precision=prec).reshape((n, groups, og) + tuple(x.shape[2:]))
            sl = tuple(slice(kk[i] * dilation[i], kk[i] * dilation[i] + (x.shape[2 + i] - 1) * strides[i] + 1,
                             strides[i]) for i in range(nsp))
            full = full.at[(slice(None), slice(None), slice(None)) + sl].add(contrib)
    crop = tuple(slice(padding[i], padding[i] + out_len[i]) for i in range(nsp))
    out = full[(slice(None), slice(None), slice(None)) + crop]
    return _finish(out.reshape((n, groups * og) + tuple(out_len)), out_dtype)


def _conv_lowering(nsp: int, transpose: bool):
    def low(ctx, x, w):
        sp = SPATIAL[nsp]
        dtgt, ktgt = "NC" + sp, ("IO" if transpose else "OI") + sp
        dperm = layout_perm(ctx, ctx.attrs["data_layout"], dtgt, "data")
        kperm = layout_perm(ctx, ctx.attrs["kernel_layout"], ktgt, "kernel")
        operm = layout_perm(ctx, ctx.attrs["out_layout"], dtgt, "output")
        out_dtype = inferred_out_dtype(ctx, x)
        xc, wc = to_canonical(x, dperm), to_canonical(w, kperm)
        strides, padding, dilation = (tuple(int(v) for v in ctx.attrs[k]) for k in ("strides", "padding", "dilation"))
        groups = int(ctx.attrs["groups"])
        if transpose:
            opad = tuple(int(v) for v in ctx.attrs["output_padding"])
            y = conv_transpose(ctx, xc, wc, strides, padding, opad, dilation, groups, out_dtype)
        else:
            y = conv(ctx, xc, wc, strides, padding, dilation, groups, out_dtype)
        return from_canonical(y, operm)
    return low


for _k in (1, 2, 3):
    lowering(f"relax.nn.conv{_k}d")(_conv_lowering(_k, False))
    lowering(f"relax.nn.conv{_k}d_transpose")(_conv_lowering(_k, True))
