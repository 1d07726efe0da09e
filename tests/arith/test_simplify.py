"""Unit tests of the analyzer: one check per rewrite rule (ARITH.*), facts, proofs and bounds."""

import timeit

import pytest

from relax_ref.arith import Analyzer, can_prove, can_prove_equal, eval_prim, simplify
from relax_ref.errors import RelaxError, UnsupportedError
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir

n, m, k = P.PrimVar("n"), P.PrimVar("m"), P.PrimVar("k")
i32 = P.PrimVar("i", "int32")
S = P.to_str


def s(e, **kw):
    return S(simplify(e, **kw))


# -- canonical form (ARITH.CANON.*) --------------------------------------------------------------------


@pytest.mark.parametrize("e, expected", [
    ((n + 1) * 4 - 4, "n * 4"),
    (4 * n, "n * 4"),
    (1 + n, "n + 1"),
    (n - 1, "n - 1"),
    (3 - n, "3 - n"),
    (0 - n, "n * -1"),
    (0 - n - m, "0 - n - m"),
    (-1 - n, "0 - n - 1"),
    (2 * n + 3 * m + 1, "n * 2 + m * 3 + 1"),
    (n + m, "n + m"),
    (m + n, "m + n"),
    (k - (n - m), "k + m - n"),
    (n - 5 - m, "n - m - 5"),
    (n * 2 - n - n, "0"),
    ((n - m) + (m - n), "0"),
    (n * 2 * m, "n * m * 2"),
    (k * n * m, "k * n * m"),
    (2 * n * n + n, "n * n * 2 + n"),
    (n * m + n, "n * m + n"),
])
def test_polynomial_normal_form(e, expected):
    assert s(e) == expected


@pytest.mark.parametrize("e, expected", [
    (n * (m + 1), "n * (m + 1)"),
    ((n + 1) * (n + 1), "(n + 1) * (n + 1)"),
    ((m + n) * k, "(m + n) * k"),
    (n * 2 * (m + 1), "n * (m + 1) * 2"),
    ((m + 1) * (n + 1) * 2, "(m + 1) * (n + 1) * 2"),
    (n * (m + 1) - n * m, "n"),                       # expanded when that is smaller
    ((n + 1) * (m + 1) - (m + 1) * (n + 1), "0"),
])
def test_products_of_sums_print_factored(e, expected):
    assert s(e) == expected


def test_constant_folding_wraps():
    big = P.IntImm(2 ** 31 - 1, "int32")
    assert simplify(big + 1) == P.IntImm(-(2 ** 31), "int32")
    assert simplify(P.IntImm(200, "uint8") + P.IntImm(100, "uint8")) == P.IntImm(44, "uint8")
    assert simplify(P.IntImm(-(2 ** 63), "int64") // -1) == P.IntImm(-(2 ** 63), "int64")
    assert simplify(P.truncdiv(P.IntImm(-7), 2)) == P.IntImm(-3)
    assert simplify(P.truncmod(P.IntImm(-7), 2)) == P.IntImm(-1)
    assert simplify(P.IntImm(-7) // 2) == P.IntImm(-4)
    assert simplify(P.IntImm(-7) % 2) == P.IntImm(1)


def test_ring_normalization_is_exact_under_wraparound():
    # (x + 2**31 - 1) + 1 == x - 2**31 in int32 for every x (ARITH.CANON.2)
    x = P.PrimVar("x", "int32")
    e = (x + (2 ** 31 - 1)) + 1
    r = simplify(e)
    for v in (-(2 ** 31), -5, 0, 7, 2 ** 31 - 1):
        assert eval_prim(r, {x: v}) == eval_prim(e, {x: v})


# -- division and modulo (ARITH.DIV.*, ARITH.MOD.*) -----------------------------------------------------


@pytest.mark.parametrize("e, expected", [
    (n * 2 // 2, "n"),
    ((n * 4 + 3) // 4, "n"),
    (n * 4 // 8, "n // 2"),
    ((n * 4 + 2) // 8, "n // 2"),
    (n * 6 // 4, "n * 3 // 2"),
    ((n + 7) // 8 * 8, "(n + 7) // 8 * 8"),
    ((n + 9) // 8, "(n + 9) // 8"),
    ((n - 1) // 2, "(n - 1) // 2"),
    ((n + m) // 2, "(n + m) // 2"),
    ((n + 1) // 2 + (n + 1) // 2, "(n + 1) // 2 * 2"),
    (n // -2, "n * -1 // 2"),
    (n // 1, "n"),
    (n * m // m, "n"),
    (n * 4 // (m * 2), "n * 2 // m"),
    ((n * m + n) // n, "m + 1"),
])
def test_floordiv_rules(e, expected):
    assert s(e) == expected


@pytest.mark.parametrize("e, expected", [
    (8 * n % 4, "0"),
    (n * 6 % 4, "n % 2 * 2"),
    ((n * 2 + 1) % 4, "n % 2 * 2 + 1"),
    (n * 3 % 2, "n % 2"),
    ((n + 9) % 8, "(n + 1) % 8"),
    ((n - 1) % 8, "(n - 1) % 8"),
    ((n * 8 + 4) % 8, "4"),
    (n % 1, "0"),
    (n * m % m, "0"),
])
def test_floormod_rules(e, expected):
    assert s(e) == expected


@pytest.mark.parametrize("e, expected", [
    (n // 4 * 4 + n % 4, "n"),
    (n % 4 + n // 4 * 4, "n"),
    (n - n // 4 * 4, "n % 4"),
    ((n + 1) // 2 * 2 - n, "1 - (n + 1) % 2"),
    ((n + 5) // 4 * 4 + (n + 5) % 4, "n + 5"),
    ((n - 1) % 8 - (n + 7) % 8, "0"),
    ((n + 9) // 8 - (n + 1) // 8, "1"),
    (P.min_(n, m) + P.max_(n, m), "n + m"),
])
def test_recombination_rules(e, expected):
    assert s(e) == expected


def test_division_uses_bounds():
    a = Analyzer()
    a.bind_range(k, 0, 8)
    assert S(a.simplify(k // 8)) == "0"
    assert S(a.simplify(k % 8)) == "k"
    assert S(a.simplify((k + 8) // 8)) == "1"
    assert S(a.simplify((k + 16) % 8)) == "k"
    a.bind_range(m, 1, 100)
    a.bind_range(i32, 0, 4)
    b = Analyzer()
    b.bind_range(k, 0, n)
    b.bind_range(n, 1, 1000)
    assert S(b.simplify(k // n)) == "0"
    assert S(b.simplify(k % n)) == "k"


def test_truncating_division():
    assert s(P.truncdiv(n, 4)) == "n // 4"           # non-negative dividend: same as floor
    assert s(P.truncmod(n, 4)) == "n % 4"
    assert s(P.truncdiv(n, 4), symbolic_nonneg=False) == "T.truncdiv(n, 4)"
    assert s(P.truncmod(n - 10, 4)) == "T.truncmod(n - 10, 4)"


def test_division_by_zero_is_left_for_evaluation():
    for e in (n // 0, n % 0, P.IntImm(4) // 0, P.truncdiv(n, 0), P.truncmod(P.IntImm(3), 0)):
        r = simplify(e)
        assert isinstance(r, (P.FloorDiv, P.FloorMod, P.Div, P.Mod))


# -- min / max / select (ARITH.MINMAX.*) --------------------------------------------------------------


@pytest.mark.parametrize("e, expected", [
    (P.max_(n - 1, 0), "T.max(n - 1, 0)"),
    (P.min_(n, n + 1), "n"),
    (P.min_(n + 2, n + 1), "n + 1"),
    (P.max_(n, 0), "n"),                              # n >= 0 by assumption
    (P.min_(n * 4, n * 4 + 4), "n * 4"),
    (P.min_(n + 1, m + 1), "T.min(n, m) + 1"),
    (P.max_(n * 2, n * 3), "n * 3"),
    (P.min_(n // 2, n), "n // 2"),
    (P.max_(P.min_(n, m), n), "n"),
    (P.min_(P.IntImm(3), P.IntImm(-2)), "-2"),
    (P.max_(n, m) - P.min_(n, m), "T.max(n, m) - T.min(n, m)"),
])
def test_min_max_rules(e, expected):
    assert s(e) == expected


def test_min_max_without_nonneg_assumption():
    assert s(P.max_(n, 0), symbolic_nonneg=False) == "T.max(n, 0)"
    assert s(P.min_(n, n + 1), symbolic_nonneg=False) == "n"


def test_select_rules():
    assert s(P.select(P.lt(n, m), n, m)) == "T.Select(n < m, n, m)"
    assert s(P.select(P.lt(n, n + 1), n, m)) == "n"
    assert s(P.select(P.lt(n, m), n + 1, 1 + n)) == "n + 1"
    x = P.PrimVar("x", "float32")
    assert simplify(P.select(P.ge(n, 0), x, x * 2.0)) is x


# -- comparisons and logic (ARITH.CMP.*) ----------------------------------------------------------------


@pytest.mark.parametrize("e, expected", [
    (P.lt(n, n + 1), "True"),
    (P.ge((n + 7) // 8 * 8, n), "True"),
    (P.eq(n * 2, n + n), "True"),
    (P.eq(n * 2, 1), "False"),                        # parity
    (P.ne(n * 2, 1), "True"),
    (P.lt(n, 0), "False"),
    (P.ge(n, 0), "True"),
    (P.lt(n, m), "n < m"),
    (P.le(P.min_(n, 4), 4), "True"),
    (P.ge(P.max_(n, m), m), "True"),
    (P.le(n % 8, 7), "True"),
    (P.logical_and(P.lt(n, 4), P.lt(n, 5)), "n < 4 and n < 5"),
    (P.logical_and(P.lt(n, n + 1), P.lt(n, m)), "n < m"),
    (P.logical_or(P.lt(n, m), P.ge(n, 0)), "True"),
    (P.logical_and(P.lt(n, m), P.logical_not(P.lt(n, m))), "False"),
    (P.logical_not(P.lt(n, m)), "n >= m"),
    (P.logical_not(P.logical_not(P.lt(n, m))), "n < m"),
])
def test_comparison_and_logic_rules(e, expected):
    assert s(e) == expected


def test_float_comparisons_are_not_negated():
    x = P.PrimVar("x", "float32")
    e = P.logical_not(P.lt(x, 1.0))
    assert isinstance(simplify(e), P.Not)              # NaN makes "not (x < 1)" differ from "x >= 1"
    assert isinstance(simplify(P.eq(x, x)), P.EQ)
    assert simplify(P.lt(P.FloatImm(1.0), P.FloatImm(2.0))) == P.IntImm(1, "bool")


# -- casts, calls, let, loads ------------------------------------------------------------------------------


def test_casts():
    assert simplify(P.cast("int64", P.IntImm(300, "int32"))) == P.IntImm(300, "int64")
    assert simplify(P.Cast("int8", P.IntImm(300, "int32"))) == P.IntImm(44, "int8")
    assert simplify(P.Cast("int32", P.FloatImm(-3.7))) == P.IntImm(-3, "int32")
    assert simplify(P.Cast("float32", P.IntImm(3))) == P.FloatImm(3.0)
    assert s(P.Cast("int64", i32 + 1)) == 'T.Cast(\'int64\', i + 1)'
    assert simplify(P.Cast("int32", P.Cast("int64", i32))) is i32
    a = Analyzer()
    a.bind_range(n, 0, 100)
    assert a.simplify(P.Cast("int64", P.Cast("int32", n))) is n
    assert isinstance(simplify(P.Cast("int64", P.Cast("int32", n))), P.Cast)   # may wrap
    assert simplify(P.Cast("bool", P.IntImm(5))) == P.IntImm(1, "bool")
    lo, hi = Analyzer().const_int_bound(P.Cast("int32", P.lt(n, m)))
    assert (lo, hi) == (0, 1)


def test_calls():
    x = P.PrimVar("x", "float32")
    ite = P.PrimCall("float32", "tir.if_then_else", (P.lt(n, n + 1), x, P.FloatImm(0.0)))
    assert simplify(ite) is x
    shl = P.PrimCall("int32", "tir.shift_left", (P.IntImm(3, "int32"), P.IntImm(4, "int32")))
    assert simplify(shl) == P.IntImm(48, "int32")
    neg = P.PrimCall("int32", "tir.shift_left", (P.IntImm(3, "int32"), P.IntImm(-1, "int32")))
    assert simplify(neg) == neg                        # undefined shift: evaluation reports it
    exp = P.PrimCall("float32", "tir.exp", (P.FloatImm(1.0),))
    assert simplify(exp) == exp                        # float intrinsics are not folded
    pc = P.PrimCall("int32", "tir.popcount", (i32,))
    assert Analyzer().const_int_bound(pc) == (0, 32)
    assert s(P.PrimCall("int64", "tir.likely", (n,)) + 0) == "T.likely(n)"


def test_let():
    v = P.PrimVar("v")
    assert s(P.Let(v, P.IntImm(3), v * 2 + n)) == "n + 6"
    assert s(P.Let(v, m, v - m)) == "0"
    kept = simplify(P.Let(v, n * m, v + v))
    assert isinstance(kept, P.Let) and S(kept.body) == "v * 2"
    assert s(P.Let(v, n * m, P.IntImm(4))) == "4"
    assert simplify(P.lt(P.Let(v, n % 4, v), 4)) == P.IntImm(1, "bool")


def test_buffer_loads_are_atoms():
    buf = tir.Buffer("A", (16,), "int32")
    ld = tir.BufferLoad(buf, (P.IntImm(1, "int32") + 2,))
    r = simplify(ld + ld - ld)
    assert isinstance(r, tir.BufferLoad) and r.indices == (P.IntImm(3, "int32"),)
    assert Analyzer().const_int_bound(ld) == (None, None)


# -- facts and queries (ARITH.FACT.*, ARITH.PROVE.*) ------------------------------------------------------


def test_bind_substitutes():
    a = Analyzer()
    a.bind(n, 4)
    assert a.simplify(n * 2) == P.IntImm(8)
    a.bind(m, n + k)
    assert S(a.simplify(m - k)) == "4"
    a.bind(n, P.IntImm(2) * 2)                         # the same value again is fine
    with pytest.raises(RelaxError):
        a.bind(n, 5)
    with pytest.raises(RelaxError):
        a.bind(k, k + 1)
    with pytest.raises(RelaxError):
        a.bind(k, P.IntImm(1, "int32"))
    with pytest.raises(RelaxError):
        Analyzer().bind(i32, 2 ** 40)


def test_bind_range_and_symbolic_ranges():
    a = Analyzer(symbolic_nonneg=False)
    a.bind_range(n, -4, 8)
    assert a.const_int_bound(n) == (-4, 3)
    assert a.const_int_bound(n * n) == (0, 16)
    assert a.can_prove(P.lt(n * 2, 7))
    a.bind_range(k, 0, m)
    assert a.can_prove(P.lt(k, m))
    assert a.can_prove(P.le(k + 1, m))
    assert not a.can_prove(P.lt(k, m - 1))
    a.bind_range(n, 0, 100)                           # ranges intersect
    assert a.const_int_bound(n) == (0, 3)


def test_symbolic_nonneg_switch():
    assert can_prove(P.ge(n, 0))
    assert not can_prove(P.ge(n, 0), symbolic_nonneg=False)
    assert Analyzer().const_int_bound(n) == (0, None)
    assert Analyzer(symbolic_nonneg=False).const_int_bound(n) == (None, None)
    u = P.PrimVar("u", "uint32")
    assert Analyzer(symbolic_nonneg=False).const_int_bound(u) == (None, None)
    assert Analyzer(symbolic_nonneg=False).can_prove_nonneg(u)


def test_can_prove_equal():
    assert can_prove_equal(n * (m + 1), n * m + n)
    assert can_prove_equal((n + 1) * 4 - 4, 4 * n)
    assert can_prove_equal(n * 2 // 2, n)
    assert can_prove_equal(P.IntImm(4), 4)
    assert can_prove_equal(3, 3) and not can_prove_equal(3, 4)
    assert not can_prove_equal(n, m)
    assert not can_prove_equal(n // 2 * 2, n)
    x = P.PrimVar("x", "float32")
    assert can_prove_equal(x * 2.0, x * 2.0)
    assert not can_prove_equal(x * 2.0, x + x)       # no algebra on floats


def test_const_int_bound():
    a = Analyzer()
    assert a.const_int_bound(n % 8) == (0, 7)
    assert a.const_int_bound(P.IntImm(5)) == (5, 5)
    assert a.const_int_bound(P.min_(n, 10)) == (0, 10)
    assert a.const_int_bound(n - 1) == (-1, None)
    assert a.const_int_bound(i32 // 4) == (0, (2 ** 31 - 1) // 4)
    assert a.const_int_bound(P.lt(n, m)) == (0, 1)
    assert a.const_int_bound(P.lt(n, n + 1)) == (1, 1)
    assert a.const_int_bound(P.PrimVar("f", "float32")) == (None, None)
    assert a.can_prove_nonneg(n * m) and not a.can_prove_nonneg(n - m)
    assert a.can_prove_positive(n + 1) and not a.can_prove_positive(n)


def test_copy_is_independent():
    a = Analyzer()
    a.bind_range(n, 0, 4)
    b = a.copy()
    b.bind(n, 2)
    assert a.simplify(n) is n
    assert b.simplify(n) == P.IntImm(2)
    assert a.const_int_bound(n) == (0, 3)


def test_can_prove_int_condition_and_bool_literals():
    assert can_prove(n + 1)                           # an int condition means "!= 0"
    assert not can_prove(n)
    assert can_prove(True) and not can_prove(False)


def test_unknown_nodes_are_rejected():
    class Weird(P.PrimExpr):
        dtype = "int64"

    with pytest.raises(UnsupportedError):
        simplify(Weird())


def test_cache_is_cleared_by_new_facts():
    a = Analyzer()
    e = P.min_(n, 10)
    assert S(a.simplify(e)) == "T.min(n, 10)"
    a.bind_range(n, 0, 5)
    assert a.simplify(e) is n


def test_deterministic_output():
    e = (m + 1) * 2 + n * (k + m) - 3
    outs = {S(Analyzer().simplify(e)) for _ in range(3)}
    assert len(outs) == 1
    r = simplify(e)
    assert simplify(r) == r


def test_simplify_is_fast_on_shape_expressions():
    exprs = [n * 2 + 1, (n + 1) * 4 - 4, (n + 7) // 8 * 8, P.max_(n - 1, 0), n * m]

    def run():
        a = Analyzer()
        for e in exprs:
            a.simplify(e)
    per_expr = min(timeit.repeat(run, number=20, repeat=3)) / (20 * len(exprs))
    assert per_expr < 500e-6  # generous: the target is well under 50 us on a quiet machine
