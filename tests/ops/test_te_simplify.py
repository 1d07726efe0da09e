"""The simplification of generated kernels' integer parts (TIR.TE.GEN.8): TVM's forms, and values kept."""

from hypothesis import given, settings, strategies as st

from relax_ref.arith.evaluate import eval_prim
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ops.te_simplify import simplify_compute

r, c = P.PrimVar("r", "int64"), P.PrimVar("c", "int64")


def _i(v):
    return P.IntImm(v, "int64")


def _s(e):
    return P.to_str(simplify_compute(e))


def test_comparisons_take_tvms_forms():
    assert _s(P.GE(r, P.Sub(c, _i(1)))) == "c <= r + 1"          # tril, k = 1
    assert _s(P.LE(r, P.Sub(c, _i(1)))) == "r < c"               # triu, k = 1
    assert _s(P.LT(P.Add(r, _i(3)), P.Add(c, _i(3)))) == "r < c"
    assert _s(P.LT(_i(2), P.Add(c, _i(5)))) == "-3 < c"


def test_splits_take_tvms_forms():
    x = P.PrimVar("x", "int64")
    assert _s(P.FloorMod(P.FloorDiv(P.FloorDiv(x, _i(4)), _i(3)), _i(2))) == "x % 24 // 12"
    assert _s(P.FloorMod(P.FloorDiv(x, _i(4)), _i(3))) == "x % 12 // 4"


def test_values_and_loads_keep_their_form():
    b = tir.Buffer("b", (_i(8),), "int32")
    load = tir.BufferLoad(b, (P.FloorMod(P.FloorDiv(r, _i(2)), _i(2)),))
    e = P.Sub(P.IntImm(0, "int32"), load)
    out = simplify_compute(e)
    assert isinstance(out, P.Sub) and P.to_str(out.b.indices[0]) == "r % 4 // 2"
    assert _s(P.Sub(_i(0), r)) == "0 - r"


_LEAF = st.sampled_from(["r", "c"]) | st.integers(-6, 6)


def _expr(depth):
    if depth == 0:
        return _LEAF
    sub = _expr(depth - 1)
    return _LEAF | st.tuples(st.sampled_from(["+", "-", "*", "//", "%"]), sub, sub) | \
        st.tuples(st.sampled_from(["//", "%"]), sub, st.integers(1, 5))


def _build(t):
    if isinstance(t, str):
        return {"r": r, "c": c}[t]
    if isinstance(t, int):
        return _i(t)
    op, a, b = t
    a, b = _build(a), _build(b)
    return {"+": P.Add, "-": P.Sub, "*": P.Mul, "//": P.FloorDiv, "%": P.FloorMod}[op](a, b)


@settings(max_examples=200, deadline=None)
@given(t=st.tuples(_expr(3), _expr(3)), cmp=st.sampled_from([P.LT, P.LE, P.GT, P.GE]),
       rv=st.integers(-20, 20), cv=st.integers(-20, 20))
def test_values_are_kept(t, cmp, rv, cv):
    env = {r: rv, c: cv}
    for e in (_build(t[0]), cmp(_build(t[0]), _build(t[1]))):
        try:
            want = eval_prim(e, env)
        except Exception:  # noqa: BLE001 - a division by zero: nothing to compare
            continue
        assert eval_prim(simplify_compute(e), env) == want, P.to_str(e)


def test_no_sign_assumption_and_tvms_min_max_rewrites():
    """TIR.TE.GEN.8: no variable is assumed non-negative; a lone negated term inside an expression is
    ``0 - x``; ``min(x + c, y) - x`` is ``min(c, y - x)``; a common factor leaves a ``max``."""
    v = P.PrimVar("v", "int64")
    w = P.PrimVar("w", "int64")
    assert _s(P.Max(P.Sub(_i(0), v), _i(0))) == "T.max(0 - v, 0)"
    assert _s(P.Div(P.Add(v, _i(2)), _i(2))) == "T.truncdiv(v + 2, 2)"
    e = P.Add(P.Sub(P.Min(P.Add(v, _i(2)), _i(111)), P.Add(v, P.Max(P.Sub(_i(0), v), _i(0)))), _i(1))
    assert _s(e) == "T.min(2, 111 - v) + 1 - T.max(0 - v, 0)"
    f = P.Max(P.Sub(P.Sub(P.Mul(v, _i(2)), P.Mul(w, _i(2))), _i(2)), _i(0))
    assert _s(f) == "T.max(v - w - 1, 0) * 2"
    g = P.Max(P.Sub(P.Mul(v, _i(2)), _i(1)), _i(0))             # no common factor with the constant
    assert _s(g) == "T.max(v * 2 - 1, 0)"
    h = P.Min(P.Add(P.Mul(v, _i(2)), _i(4)), _i(10))            # min keeps its form
    assert _s(h) == "T.min(v * 2 + 4, 10)"
    for vv in (-3, 0, 5):
        for ww in (-2, 0, 4):
            env = {v: vv, w: ww}
            for x in (e, f, g, h):
                assert eval_prim(simplify_compute(x), env) == eval_prim(x, env)
