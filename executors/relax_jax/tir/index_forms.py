"""Index forms of a vectorized TensorIR nest (relax_jax.tir.grid): an index over the grid's loop
variables as ``sum(a * v) + c`` (:func:`linear_index`), and the reshape rules that turn the index
forms of TVM's reshape kernels into array reshapes, each exact at every executing point:

* :func:`divides` / :func:`cannot_fail`: which indices are worth simplifying under the grid's facts,
  and which can be left unevaluated (no load, every divisor provably non-zero: PRIM.INT.3);
* :func:`merged_axes`: consecutive positions indexed by the digits of one expression in the array's
  radix read the merged axis;
* :func:`split_axes`: a position indexed by a mixed-radix sum of loop variables reads a slice
  reshaped to one axis per variable.
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from relax_ref.ir import prim_expr as P

from ..prim_jax import is_static
from .analysis import linear_form


_DIVIDING = (P.FloorDiv, P.FloorMod, P.Div, P.Mod, P.Min, P.Max)


def divides(e: P.PrimExpr) -> bool:
    """Whether the integer index ``e`` holds a division, remainder, min or max."""
    if not e.dtype.startswith(("int", "uint")):
        return False
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, _DIVIDING):
            return True
        if isinstance(x, (P.Add, P.Sub, P.Mul)):
            stack += [x.a, x.b]
        elif isinstance(x, P.Cast):
            stack.append(x.value)
    return False


def cannot_fail(e: P.PrimExpr, an) -> bool:
    """Whether evaluating the index ``e`` cannot fail: loads, calls and divisions by a divisor not
    provably non-zero (PRIM.INT.3) can."""
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, (P.IntImm, P.PrimVar)):
            continue
        if isinstance(x, (P.FloorDiv, P.FloorMod, P.Div, P.Mod)):
            b = x.b
            if not (isinstance(b, P.IntImm) and b.value != 0):
                try:
                    if not an.can_prove(P.ne(b, P.IntImm(0, b.dtype))):
                        return False
                except Exception:  # noqa: BLE001 - unprovable
                    return False
            stack += [x.a, x.b]
        elif isinstance(x, (P.Add, P.Sub, P.Mul, P.Min, P.Max)):
            stack += [x.a, x.b]
        elif isinstance(x, P.Cast) and x.dtype.startswith(("int", "uint")) and \
                x.value.dtype.startswith(("int", "uint")):
            stack.append(x.value)
        else:
            return False
    return True


def linear_index(kx, e, gvars, static: bool = True):
    """``e`` as ``sum(a * v) + c`` over the grid variables ``gvars``: ``(coefs, c)`` with ``c``
    evaluated (a Python int when ``static``). None when ``e`` is not of that form, or with ``static``
    when ``c`` is not static."""
    lf = linear_form(e, gvars)
    if lf is None:
        return None
    coefs, rest = lf
    c = kx.ev(rest)
    if static:
        if not is_static(c):
            return None
        c = int(c)
    return coefs, c


def one_var_index(kx, e, gvars, static: bool = True):
    """``e`` as ``a * v + c`` with at most one grid variable ``v``: ``(v, a, c)``, ``v`` None for a
    constant; None otherwise (see :func:`linear_index`)."""
    lf = linear_index(kx, e, gvars, static)
    if lf is None or len(lf[0]) > 1:
        return None
    coefs, c = lf
    if not coefs:
        return None, 0, c
    (v, a), = coefs.items()
    return v, a, c


def _digits(e: P.PrimExpr):
    """``(E, d, n)`` when ``e`` is ``E // d % n``, ``E % n`` (``d`` 1), ``E // d`` (``n`` None)."""
    n = None
    if isinstance(e, P.FloorMod) and isinstance(e.b, P.IntImm) and e.b.value > 0:
        n, e = e.b.value, e.a
    if isinstance(e, P.FloorDiv) and isinstance(e.b, P.IntImm) and e.b.value > 0:
        return e.a, e.b.value, n
    return (e, 1, n) if n is not None else None


def merged_axes(kx, grid, arr, exprs):
    """Reshape rule (the read side of a flattening): consecutive positions indexed by the digits of
    one expression ``E`` in the array's own radix (``E // 64``, ``E % 64`` into axes of 8 and 64)
    read the merged axis at ``E``, when ``0 <= E < `` the merged extent at every executing point.
    The inner axes must be unpadded (their physical extent is the radix)."""
    an = grid.analyzer
    p = 0
    while p < len(exprs) - 1:
        dg = _digits(exprs[p])
        if dg is None or dg[1] == 1:
            p += 1
            continue
        big, d = dg[0], dg[1]
        q, size = p + 1, 1
        while q < len(exprs) and size < d:
            size *= int(arr.shape[q])
            q += 1
        if size != d or any(arr.shape[j] == 0 for j in range(p, q)):
            p += 1
            continue
        total = d * int(arr.shape[p])
        ok = True
        try:
            ok = an.can_prove(P.ge(big, P.IntImm(0, big.dtype))) and \
                an.can_prove(P.lt(big, P.IntImm(total, big.dtype)))
            stride = total
            for j in range(p, q):
                stride //= int(arr.shape[j])
                want = P.floormod(P.floordiv(big, P.IntImm(stride, big.dtype)), P.IntImm(int(arr.shape[j]), big.dtype))
                if not ok or not an.can_prove_equal(exprs[j], want):
                    ok = False
                    break
        except Exception:  # noqa: BLE001 - unprovable: no merge
            ok = False
        if not ok:
            p += 1
            continue
        arr = arr.reshape(tuple(arr.shape[:p]) + (total,) + tuple(arr.shape[q:]))
        exprs = exprs[:p] + [big] + exprs[q:]
        p += 1
    return arr, exprs


def split_axes(kx, grid, arr, exprs):
    """Reshape rule (the read side of a split): a position indexed by ``sum(a_k * v_k) + c`` whose
    coefficients are a mixed radix over the grid's physical extents (``v2 * 64 + v3``, ``v3`` of 64
    points) reads the slice ``[c, c + a_1 * N)`` (stride ``a_1``) reshaped to one axis per
    variable."""
    gvars = list(grid.by_var)
    p = 0
    while p < len(exprs):
        lf = linear_index(kx, exprs[p], gvars)
        if lf is None or len(lf[0]) < 2:
            p += 1
            continue
        coefs, c = lf
        terms = sorted(((a, v) for v, a in coefs.items()), key=lambda t: t[0])
        radix = terms[0][0]
        ok = radix > 0
        for a, v in terms:
            if not ok or a != radix:
                ok = False
                break
            radix *= grid.by_var[v].phys
        if not ok:
            p += 1
            continue
        a1 = terms[0][0]
        count = radix // a1
        start = c + sum(a * grid.by_var[v].lo for a, v in terms)
        n = arr.shape[p]
        lo, hi = max(0, -start), max(0, start + a1 * (count - 1) + 1 - n)
        if lo + hi > a1 * count:
            p += 1
            continue
        if lo or hi:
            pad = [(0, 0)] * arr.ndim
            pad[p] = (lo, hi)
            arr = jnp.pad(arr, pad)
            start += lo
        lim = start + a1 * (count - 1) + 1
        arr = lax.slice_in_dim(arr, start, lim, a1, axis=p)
        ext = [grid.by_var[v].phys for _, v in reversed(terms)]
        arr = arr.reshape(tuple(arr.shape[:p]) + tuple(ext) + tuple(arr.shape[p + 1:]))
        exprs = exprs[:p] + [v for _, v in reversed(terms)] + exprs[p + 1:]
        p += len(terms)
    return arr, exprs


__all__ = ["divides", "cannot_fail", "linear_index", "one_var_index", "merged_axes", "split_axes"]
