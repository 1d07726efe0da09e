"""Property tests: simplification preserves values, proofs are sound, evaluation wraps correctly.

The reference evaluator below is written independently of relax_ref.arith: it computes over the
mathematical integers, uses Python's ``//``/``%`` for floor division and a sign/magnitude formula for
truncating division, and reports ``None`` when any sub-expression leaves its dtype's range (the
analyzer assumes no overflow, ARITH.ASSUME.1) or divides by zero (ARITH.ASSUME.2).
"""

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from relax_ref.arith import Analyzer, eval_prim
from relax_ref.ir import prim_expr as P

VAR_NAMES = ("n", "m", "k")
_VARS = {d: tuple(P.PrimVar(nm, d) for nm in VAR_NAMES) for d in ("int32", "int64")}
_RANGE = {"int32": (-(2 ** 31), 2 ** 31 - 1), "int64": (-(2 ** 63), 2 ** 63 - 1)}


class _Undefined(Exception):
    pass


def _trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def zeval(e, env):
    """Exact value of ``e``; None on overflow or division by zero."""
    try:
        return _z(e, env)
    except _Undefined:
        return None


def _chk(v, dtype):
    if dtype == "bool":
        return v
    lo, hi = _RANGE[dtype]
    if not lo <= v <= hi:
        raise _Undefined
    return v


def _z(e, env):
    t = type(e)
    if t is P.IntImm:
        return bool(e.value) if e.dtype == "bool" else e.value
    if t is P.PrimVar:
        return env[e]
    if t is P.Select:
        c, a, b = _z(e.condition, env), _z(e.true_value, env), _z(e.false_value, env)
        return a if c else b
    if t is P.Not:
        return not _z(e.a, env)
    a, b = _z(e.a, env), _z(e.b, env)
    if t in (P.FloorDiv, P.FloorMod, P.Div, P.Mod) and b == 0:
        raise _Undefined
    ops = {
        P.Add: lambda: a + b, P.Sub: lambda: a - b, P.Mul: lambda: a * b,
        P.FloorDiv: lambda: a // b, P.FloorMod: lambda: a % b,
        P.Div: lambda: _trunc_div(a, b), P.Mod: lambda: a - b * _trunc_div(a, b),
        P.Min: lambda: min(a, b), P.Max: lambda: max(a, b),
        P.EQ: lambda: a == b, P.NE: lambda: a != b, P.LT: lambda: a < b, P.LE: lambda: a <= b,
        P.GT: lambda: a > b, P.GE: lambda: a >= b, P.And: lambda: bool(a) and bool(b),
        P.Or: lambda: bool(a) or bool(b),
    }
    return _chk(ops[t](), e.dtype)


# -- strategies ---------------------------------------------------------------------------------------

_small = st.integers(-9, 9)
_consts = st.one_of(_small, _small, _small, st.sampled_from([16, 32, 64, 100, -64, 1 << 20]))


_CMPS = [P.EQ, P.NE, P.LT, P.LE, P.GT, P.GE]
_STRATEGIES = {}


def int_exprs(dtype, max_leaves=10):
    """Random integer expressions over n, m, k (built once per (dtype, size) and reused)."""
    key = ("int", dtype, max_leaves)
    if key in _STRATEGIES:
        return _STRATEGIES[key]
    vars_ = _VARS[dtype]
    var_leaf = st.sampled_from(vars_)
    leaves = st.one_of(var_leaf, var_leaf, _consts.map(lambda c: P.IntImm(c, dtype)))
    nonzero = st.one_of(st.integers(1, 9), st.integers(-9, -1), st.sampled_from([16, 64]))

    def extend(sub):
        div_rhs = st.one_of(nonzero.map(lambda c: P.IntImm(c, dtype)), sub)
        return st.one_of(
            st.tuples(st.sampled_from([P.Add, P.Sub, P.Mul, P.Min, P.Max]), sub, sub)
            .map(lambda t: t[0](t[1], t[2])),
            st.tuples(st.sampled_from([P.FloorDiv, P.FloorMod, P.Div, P.Mod]), sub, div_rhs)
            .map(lambda t: t[0](t[1], t[2])),
            st.tuples(st.sampled_from(_CMPS), sub, sub, sub, sub)
            .map(lambda t: P.Select(t[0](t[1], t[2]), t[3], t[4])),
        )

    r = _STRATEGIES[key] = st.recursive(leaves, extend, max_leaves=max_leaves)
    return r


def bool_exprs(dtype, max_leaves=6):
    """Comparisons of random integer expressions combined with and / or / not."""
    key = ("bool", dtype, max_leaves)
    if key in _STRATEGIES:
        return _STRATEGIES[key]
    ints = int_exprs(dtype, max_leaves)
    cmp = st.tuples(st.sampled_from(_CMPS), ints, ints).map(lambda t: t[0](t[1], t[2]))
    r = _STRATEGIES[key] = st.recursive(
        cmp,
        lambda sub: st.one_of(
            st.tuples(st.sampled_from([P.And, P.Or]), sub, sub).map(lambda t: t[0](t[1], t[2])),
            sub.map(P.Not)),
        max_leaves=3)
    return r


def envs(dtype, nonneg, n=1):
    lo = 0 if nonneg else -40
    dlo, dhi = _RANGE[dtype]
    val = st.one_of(st.integers(lo, 40), st.integers(-(1 << 20) if not nonneg else 0, 1 << 20),
                    st.integers(0 if nonneg else dlo, dhi))
    env = st.tuples(*[val] * len(VAR_NAMES)).map(lambda vs: dict(zip(_VARS[dtype], vs)))
    return st.lists(env, min_size=n, max_size=n)


def _dtype_and(fn):
    return st.sampled_from(["int32", "int64"]).flatmap(fn)


# -- properties -----------------------------------------------------------------------------------------


def _check_simplify_preserves(e, envs_, nonneg):
    an = Analyzer(symbolic_nonneg=nonneg)
    s = an.simplify(e)
    checked = 0
    for env in envs_:
        ref = zeval(e, env)
        if ref is None:
            continue
        checked += 1
        assert eval_prim(e, env) == ref, P.to_str(e)
        got = eval_prim(s, env)
        assert got == ref, f"{P.to_str(e)}  ->  {P.to_str(s)}  at {[(v.name, x) for v, x in env.items()]}"
    assume(checked > 0)


@pytest.mark.parametrize("nonneg", [True, False])
@given(data=st.data())
def test_simplify_preserves_value_int(nonneg, data):
    dtype = data.draw(st.sampled_from(["int32", "int64"]))
    e = data.draw(int_exprs(dtype))
    _check_simplify_preserves(e, data.draw(envs(dtype, nonneg, 4)), nonneg)


@pytest.mark.parametrize("nonneg", [True, False])
@given(data=st.data())
def test_simplify_preserves_value_bool(nonneg, data):
    dtype = data.draw(st.sampled_from(["int32", "int64"]))
    e = data.draw(bool_exprs(dtype, 6))
    _check_simplify_preserves(e, data.draw(envs(dtype, nonneg, 4)), nonneg)


@pytest.mark.parametrize("nonneg", [True, False])
@given(data=st.data())
def test_can_prove_is_sound(nonneg, data):
    dtype = data.draw(st.sampled_from(["int32", "int64"]))
    c = data.draw(bool_exprs(dtype, 6))
    an = Analyzer(symbolic_nonneg=nonneg)
    if an.can_prove(c):
        for env in data.draw(envs(dtype, nonneg, 6)):
            v = zeval(c, env)
            assert v is None or v is True, f"proved {P.to_str(c)} but false at {env}"
    if an.can_prove(P.Not(c)):
        for env in data.draw(envs(dtype, nonneg, 6)):
            assert zeval(c, env) in (None, False)


@given(data=st.data())
def test_can_prove_equal_is_sound(data):
    dtype = data.draw(st.sampled_from(["int32", "int64"]))
    a = data.draw(int_exprs(dtype, 6))
    b = data.draw(st.one_of(int_exprs(dtype, 6), st.just(Analyzer().simplify(a))))
    an = Analyzer()
    if an.can_prove_equal(a, b):
        for env in data.draw(envs(dtype, True, 6)):
            va, vb = zeval(a, env), zeval(b, env)
            assert va is None or vb is None or va == vb


@given(data=st.data())
def test_const_int_bound_is_sound(data):
    dtype = data.draw(st.sampled_from(["int32", "int64"]))
    e = data.draw(int_exprs(dtype, 8))
    nonneg = data.draw(st.booleans())
    lo, hi = Analyzer(symbolic_nonneg=nonneg).const_int_bound(e)
    for env in data.draw(envs(dtype, nonneg, 6)):
        v = zeval(e, env)
        if v is not None:
            assert lo is None or lo <= v
            assert hi is None or v <= hi


@given(data=st.data())
def test_bind_range_facts_are_respected(data):
    dtype = "int64"
    n, m, k = _VARS[dtype]
    lo = data.draw(st.integers(-20, 20))
    ext = data.draw(st.integers(1, 30))
    an = Analyzer(symbolic_nonneg=True)
    an.bind_range(n, lo, ext)
    an.bind_range(m, 0, n + 1) if lo >= 0 else an.bind_range(m, 0, 8)
    e = data.draw(int_exprs(dtype, 8))
    s = an.simplify(e)
    c = data.draw(bool_exprs(dtype, 4))
    proved = an.can_prove(c)
    for _ in range(4):
        nv = data.draw(st.integers(lo, lo + ext - 1))
        mv = data.draw(st.integers(0, nv if lo >= 0 else 7))
        env = {n: nv, m: mv, k: data.draw(st.integers(0, 50))}
        ref = zeval(e, env)
        if ref is not None:
            assert eval_prim(s, env) == ref, f"{P.to_str(e)} -> {P.to_str(s)} at {env}"
        if proved:
            assert zeval(c, env) in (None, True), P.to_str(c)


@given(data=st.data())
def test_bind_substitution_is_respected(data):
    dtype = "int64"
    n, m, k = _VARS[dtype]
    value = data.draw(int_exprs(dtype, 4).filter(lambda v: n not in _free_vars(v)))
    an = Analyzer(symbolic_nonneg=False)
    an.bind(n, value)
    e = data.draw(int_exprs(dtype, 8))
    s = an.simplify(e)
    assert n not in _free_vars(s)
    for env in data.draw(envs(dtype, False, 3)):
        nv = zeval(value, env)
        if nv is None:
            continue
        env = dict(env)
        env[n] = nv
        ref = zeval(e, env)
        if ref is not None:
            assert eval_prim(s, env) == ref, f"{P.to_str(e)} -> {P.to_str(s)}"


def _free_vars(e):
    from relax_ref.ir.functor import prim_vars_in

    return prim_vars_in(e)


@given(data=st.data())
def test_simplify_is_deterministic_and_stable(data):
    dtype = data.draw(st.sampled_from(["int32", "int64"]))
    e = data.draw(int_exprs(dtype, 8))
    s1 = Analyzer().simplify(e)
    s2 = Analyzer().simplify(e)
    assert s1 == s2
    # re-simplifying the output preserves its value (it need not be a fixed point)
    s3 = Analyzer().simplify(s1)
    for env in data.draw(envs(dtype, True, 3)):
        r1 = zeval(s1, env)
        if r1 is not None:
            assert eval_prim(s3, env) == r1


@pytest.mark.slow
@settings(max_examples=250)
@pytest.mark.parametrize("nonneg", [True, False])
@given(data=st.data())
def test_simplify_preserves_value_many(nonneg, data):
    dtype = data.draw(st.sampled_from(["int32", "int64"]))
    e = data.draw(int_exprs(dtype, 16))
    _check_simplify_preserves(e, data.draw(envs(dtype, nonneg, 6)), nonneg)


# -- wrap-around of evaluation ------------------------------------------------------------------------

_INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def _formula_wrap(v, dtype):
    bits = int(dtype.lstrip("uint"))
    v = v % (2 ** bits)
    if not dtype.startswith("u") and v >= 2 ** (bits - 1):
        v -= 2 ** bits
    return v


@given(dtype=st.sampled_from(_INT_DTYPES), a=st.integers(-(2 ** 64), 2 ** 64),
       b=st.integers(-(2 ** 64), 2 ** 64), op=st.sampled_from(["add", "sub", "mul", "fdiv", "fmod",
                                                                 "tdiv", "tmod", "min", "max"]))
def test_eval_wraps_like_twos_complement(dtype, a, b, op):
    x, y = P.PrimVar("x", dtype), P.PrimVar("y", dtype)
    a, b = _formula_wrap(a, dtype), _formula_wrap(b, dtype)
    node = {"add": P.Add, "sub": P.Sub, "mul": P.Mul, "fdiv": P.FloorDiv, "fmod": P.FloorMod,
            "tdiv": P.Div, "tmod": P.Mod, "min": P.Min, "max": P.Max}[op](x, y)
    assume(b != 0 or op not in ("fdiv", "fmod", "tdiv", "tmod"))
    exact = {"add": a + b, "sub": a - b, "mul": a * b, "fdiv": a // b if b else 0,
             "fmod": a % b if b else 0, "tdiv": _trunc_div(a, b) if b else 0,
             "tmod": a - b * _trunc_div(a, b) if b else 0, "min": min(a, b), "max": max(a, b)}[op]
    assert eval_prim(node, {x: a, y: b}) == _formula_wrap(exact, dtype)


@given(dtype=st.sampled_from(_INT_DTYPES), src=st.sampled_from(_INT_DTYPES),
       v=st.integers(-(2 ** 64), 2 ** 64))
def test_eval_int_cast_wraps(dtype, src, v):
    x = P.PrimVar("x", src)
    v = _formula_wrap(v, src)
    assert eval_prim(P.Cast(dtype, x), {x: v}) == _formula_wrap(v, dtype)
