"""Block-level ``T.match_buffer`` windows on the JAX executor (TIR.BLOCK.MATCH.1).

``T.match_buffer(A[vi, 0:m], (m,), ...)`` inside a block binds a buffer ``W`` as a window of ``A``:
element ``(j0, ...)`` of ``W`` is element ``(min0 + j0, ...)`` of ``A`` (leading region dimensions of
extent 1 are dropped, as in the reference interpreter). Nothing is copied: a :class:`Window` records the
region's minima, and every load or store of ``W`` becomes one of ``A`` at the shifted indices, so writes
through the window reach ``A`` (and a window of a read-only ``call_tir`` input is read-only).

Binding checks what the reference checks: the region lies inside ``A`` (``out_of_bounds``), the
window's shape, strides and offset are bound or compared against the region (``shape_mismatch``,
TIR.FUNC.3 steps 2 to 4), and an access of ``W`` is checked against ``W``'s extents (TIR.BOUNDS.1).
Minima and extents may be traced values (a block inside a ``fori_loop``); the checks are then check sites.
"""

from __future__ import annotations

from typing import Any, List

import jax.numpy as jnp
import numpy as np

from relax_ref.errors import ShapeMismatchError, TIRBoundsError, UnsupportedError, WellFormedError
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir

from ..prim_jax import is_static, np_dtype


class Window:
    """``W``'s view of ``src``: the region's minima, the number of dropped leading dimensions, ``W``'s
    extents."""

    __slots__ = ("src", "mins", "lead", "exts")

    def __init__(self, src: tir.Buffer, mins: List[Any], lead: int, exts: List[Any]) -> None:
        self.src = src
        self.mins = mins
        self.lead = lead
        self.exts = exts


def _i64(x: Any) -> Any:
    return jnp.asarray(x, jnp.int64)


def _add(a: Any, b: Any) -> Any:
    return int(a) + int(b) if is_static(a) and is_static(b) else _i64(a) + _i64(b)


def _mul(a: Any, b: Any) -> Any:
    return int(a) * int(b) if is_static(a) and is_static(b) else _i64(a) * _i64(b)


def _any(conds: List[Any]) -> Any:
    """The disjunction of static (numpy bool) and traced conditions; None when there are none."""
    out = None
    for c in conds:
        out = c if out is None else (np.bool_(bool(out) or bool(c)) if is_static(out) and is_static(c)
                                     else jnp.logical_or(out, c))
    return out


def _lt(a: Any, b: Any) -> Any:
    return np.bool_(int(a) < int(b)) if is_static(a) and is_static(b) else jnp.less(_i64(a), _i64(b))


def _ne(a: Any, b: Any) -> Any:
    return np.bool_(int(a) != int(b)) if is_static(a) and is_static(b) else jnp.not_equal(_i64(a), _i64(b))


def _bind_or_compare(kx, e: P.PrimExpr, want: Any, what: str, target: tir.Buffer, mask) -> None:
    if isinstance(e, P.PrimVar) and e not in kx.env:
        kx.env[e] = int(want) if is_static(want) else want
        return
    have = kx.ev(e, mask)
    bad = _ne(have, want)
    name = target.name
    kx.check(bad, mask, lambda: ShapeMismatchError(
        f"match_buffer '{name}': {what} is {have if is_static(have) else '?'}, the region gives "
        f"{want if is_static(want) else '?'}", binding=name))


def bind_window(kx, mb: tir.MatchBufferRegion, mask) -> None:
    """Bind ``mb.buffer`` as a window of ``mb.source`` in the kernel state ``kx``."""
    target, region = mb.buffer, mb.source
    src = region.buffer
    dv, view = kx.resolve(src)
    if view is not None:
        raise UnsupportedError(f"match_buffer '{target.name}': a window of the buffer view '{src.name}'")
    if kx.grid is not None:
        raise UnsupportedError(f"match_buffer '{target.name}' inside a vectorized loop nest")
    ext_src = kx.logical[dv]
    mins = [kx.ev(r.min, mask) for r in region.region]
    exts = [kx.ev(r.extent, mask) for r in region.region]
    if len(mins) != len(ext_src):
        raise WellFormedError(f"match_buffer '{target.name}': a region of rank {len(mins)} of buffer "
                              f"'{src.name}' of rank {len(ext_src)} (WF.TIR.4)")
    bad = _any([_any([_lt(m, 0), _lt(e, 0), _lt(n, _add(m, e))]) for m, e, n in zip(mins, exts, ext_src)])
    if bad is not None:
        sname, tname = src.name, target.name
        kx.check(bad, mask, lambda: TIRBoundsError(
            f"match_buffer '{tname}': the region exceeds buffer '{sname}'", buffer=sname))
    k = len(target.shape)
    lead = len(exts) - k
    if lead < 0:
        raise UnsupportedError(f"match_buffer '{target.name}' of rank {k} cannot view a region of rank {len(exts)}")
    wide = _any([_ne(e, 1) for e in exts[:lead]])
    if wide is not None:
        tname = target.name
        kx.check(wide, mask, lambda: UnsupportedError(
            f"match_buffer '{tname}' of rank {k} cannot view a region whose leading extents are not 1"))
    if np_dtype(target.dtype) != np.dtype(kx.arrays[dv].dtype):
        raise UnsupportedError(f"match_buffer '{target.name}' of dtype {target.dtype} cannot view "
                               f"{kx.arrays[dv].dtype} data")
    for d, (dim, n) in enumerate(zip(target.shape, exts[lead:])):
        _bind_or_compare(kx, dim, n, f"shape[{d}]", target, mask)
    strides: List[Any] = [1] * len(ext_src)
    for d in range(len(ext_src) - 2, -1, -1):
        strides[d] = _mul(strides[d + 1], ext_src[d + 1])
    for d, s in enumerate(target.strides or ()):
        _bind_or_compare(kx, s, strides[lead + d], f"strides[{d}]", target, mask)
    if target.elem_offset is not None:
        off: Any = 0
        for m, s in zip(mins, strides):
            off = _add(off, _mul(m, s))
        _bind_or_compare(kx, target.elem_offset, off, "elem_offset", target, mask)
    kx.windows[target.data] = Window(src, mins, lead, list(exts[lead:]))


def window_index(kx, buf: tir.Buffer, win: Window, idx: list, exprs, mask, write: bool):
    """The source buffer's data variable and the indices into it of an access ``buf[idx]``."""
    if len(idx) != len(win.exts):
        raise WellFormedError(f"buffer '{buf.name}' of rank {len(win.exts)} is accessed with {len(idx)} "
                              "indices (WF.TIR.4)")
    if not kx._proven(buf, exprs):
        bad = _any([_any([_lt(i, 0), _lt(_add(n, -1), i)]) for i, n in zip(idx, win.exts)])
        if bad is not None:
            kind = "write to" if write else "read of"
            name = buf.name
            kx.check(bad, mask, lambda: TIRBoundsError(f"out-of-bounds {kind} buffer '{name}'", buffer=name))
    dv, _ = kx.resolve(win.src)
    return dv, list(win.mins[:win.lead]) + [_add(m, i) for m, i in zip(win.mins[win.lead:], idx)]


__all__ = ["Window", "bind_window", "window_index"]
