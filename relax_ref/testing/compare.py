"""Comparing interpreter results before and after a pass, with per-dtype tolerances.

``compare(expected, actual)`` returns ``None`` when the two host values agree and otherwise a one-line
description of the first difference (``result[1]: max abs diff 0.5 at (2, 0)``). Values are the
public results of :func:`relax_ref.evaluate`: numpy arrays, tuples, shapes, Python scalars, strings,
``None``.

Tensors must agree in shape and dtype. Integer and bool tensors must be equal; float tensors must
satisfy ``|a - e| <= atol * (1 + max|e|) + rtol * |e|`` elementwise (the absolute term scales with
the result's magnitude, since a pass may legally reassociate a float reduction), with NaN equal to
NaN and infinities equal only to themselves. :data:`TOLERANCES` holds ``(rtol, atol)`` per dtype;
pass ``tolerances=`` to override some of them.

KV-cache objects (CALL.KVCACHE.1, CALL.PAGEDKV.1) are compared by what a program can observe of them,
not by identity: an attention KV cache by its fill count, window position, row shape and cached rows
(the reserved rows past the fill count hold nothing); a paged KV cache by its configuration, its
sequences' lengths, the open forward, the free pages and each sequence's stored keys and values
(CALL.PAGEDKV.10), wherever in the page pool they live.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Tuple

import numpy as np

#: (rtol, atol) per float dtype
TOLERANCES: Dict[str, Tuple[float, float]] = {
    "float16": (1e-2, 1e-2),
    "bfloat16": (2e-2, 2e-2),
    "float32": (1e-4, 1e-5),
    "float64": (1e-9, 1e-12),
}


def _tol(dtype: str, tolerances: Optional[Mapping[str, Tuple[float, float]]]) -> Tuple[float, float]:
    if tolerances and dtype in tolerances:
        return tolerances[dtype]
    return TOLERANCES.get(dtype, (1e-4, 1e-5))


def _dtype_name(a: np.ndarray) -> str:
    from ..ir.dtype import from_numpy

    try:
        return from_numpy(a.dtype)
    except Exception:  # noqa: BLE001 - a foreign dtype is still described by its name
        return str(a.dtype)


def compare_arrays(e: np.ndarray, a: np.ndarray, where: str, tolerances=None) -> Optional[str]:
    if e.shape != a.shape:
        return f"{where}: shape {tuple(a.shape)} != expected {tuple(e.shape)}"
    de, da = _dtype_name(e), _dtype_name(a)
    if de != da:
        return f"{where}: dtype {da} != expected {de}"
    if e.size == 0:
        return None
    if not de.startswith(("float", "bfloat")):
        bad = np.argwhere(e != a)
        if bad.size:
            idx = tuple(int(i) for i in bad[0])
            return f"{where}: {a[idx]!r} != expected {e[idx]!r} at {idx} ({len(bad)} elements differ)"
        return None
    ef, af = e.astype(np.float64), a.astype(np.float64)
    rtol, atol = _tol(de, tolerances)
    both_nan = np.isnan(ef) & np.isnan(af)
    same_inf = np.isinf(ef) & (ef == af)
    finite = np.isfinite(ef)
    scale = float(np.max(np.abs(ef[finite]))) if finite.any() else 0.0
    with np.errstate(invalid="ignore"):
        close = np.abs(af - ef) <= atol * (1.0 + scale) + rtol * np.abs(ef)
    ok = both_nan | same_inf | (close & np.isfinite(af))
    if ok.all():
        return None
    bad = np.argwhere(~ok)
    idx = tuple(int(i) for i in bad[0])
    return (f"{where}: {af[idx]!r} != expected {ef[idx]!r} at {idx} ({len(bad)} of {e.size} elements "
            f"differ beyond rtol={rtol}, atol={atol})")


def compare(expected: Any, actual: Any, where: str = "result", tolerances=None) -> Optional[str]:
    """``None`` when ``actual`` agrees with ``expected``, else the first difference."""
    from ..values import ShapeValue

    if isinstance(expected, np.ndarray) or isinstance(actual, np.ndarray):
        if not (isinstance(expected, np.ndarray) and isinstance(actual, np.ndarray)):
            return f"{where}: {type(actual).__name__} != expected {type(expected).__name__}"
        return compare_arrays(expected, actual, where, tolerances)
    if isinstance(expected, ShapeValue) or isinstance(actual, ShapeValue):
        if tuple(expected) != tuple(actual) or type(expected) is not type(actual):
            return f"{where}: {actual!r} != expected {expected!r}"
        return None
    if isinstance(expected, tuple):
        if not isinstance(actual, tuple) or len(actual) != len(expected):
            return f"{where}: {type(actual).__name__} of length {len(actual) if isinstance(actual, tuple) else '-'} " \
                   f"!= expected tuple of length {len(expected)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            d = compare(e, a, f"{where}[{i}]", tolerances)
            if d is not None:
                return d
        return None
    if isinstance(expected, float) and isinstance(actual, float):
        if np.isnan(expected) and np.isnan(actual) or expected == actual:   # equal infinities too
            return None
        if not (np.isfinite(expected) and np.isfinite(actual)):   # inf vs -inf, a number vs inf or nan
            return f"{where}: {actual!r} != expected {expected!r}"
        rtol, atol = _tol("float32", tolerances)  # a prim's dtype is not in its host value
        if abs(expected - actual) <= atol * (1 + abs(expected)) + rtol * abs(expected):
            return None
        return f"{where}: {actual!r} != expected {expected!r}"
    cache = _compare_caches(expected, actual, where, tolerances)
    if cache is not _NOT_CACHES:
        return cache
    if type(expected) is not type(actual) or expected != actual:
        return f"{where}: {actual!r} != expected {expected!r}"
    return None


_NOT_CACHES = object()


def _compare_caches(e: Any, a: Any, where: str, tolerances) -> Any:
    """The difference of two KV-cache objects (None: none), or ``_NOT_CACHES``."""
    from ..interp.kv_cache import AttentionKVCache
    from ..interp.paged_kv_cache import PagedKVCache

    kinds = (AttentionKVCache, PagedKVCache)
    if not isinstance(e, kinds) and not isinstance(a, kinds):
        return _NOT_CACHES
    if type(e) is not type(a):
        return f"{where}: {type(a).__name__} != expected {type(e).__name__}"
    if isinstance(e, AttentionKVCache):
        ed, ad = np.asarray(e.data), np.asarray(a.data)
        if (a.fill, a.pos) != (e.fill, e.pos):
            return f"{where}: fill {a.fill}, position {a.pos} != expected fill {e.fill}, position {e.pos}"
        if ad.shape[1:] != ed.shape[1:]:
            return f"{where}: rows of shape {ad.shape[1:]} != expected {ed.shape[1:]}"
        return compare_arrays(ed[:e.fill], ad[:a.fill], f"{where}.rows", tolerances)
    if a.config != e.config:
        return f"{where}: {a!r} != expected {e!r}"
    se, sa = e.state, a.state
    for what, fe, fa in (("sequence lengths", se.lengths, sa.lengths), ("open forward", se.forward, sa.forward),
                         ("free pages", se.available(), sa.available())):
        if fa != fe:
            return f"{where}: {what} {fa!r} != expected {fe!r}"
    pe, pa = np.asarray(e.pool), np.asarray(a.pool)
    for s, n in sorted(se.lengths.items()):
        d = compare_arrays(pe[:, :, se.slots(s, 0, n)], pa[:, :, sa.slots(s, 0, n)], f"{where}.sequence[{s}]",
                           tolerances)
        if d is not None:
            return d
    return None


__all__ = ["TOLERANCES", "compare", "compare_arrays"]
