"""A map nest that stores ``if_then_else(c, A, B)`` where ``c`` compares one loop
variable with a static value -- TVM's ``concatenate`` kernel -- runs split at that point, each part
storing its own arm, joined by one ``concatenate`` (relax_jax.tir.split): no ``select`` of padded
copies, and no run-time bounds check that the nest over the whole grid did not need either. Values
equal to numpy's / the reference interpreter's, in exact and bucketed compilations."""

import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_jax.tir import split as tir_split
from relax_ref.transform.legalize_ops import LegalizeOps
from tir_prims import HEADER, prims

RNG = np.random.default_rng(23)


def _concat_module(shapes, axis):
    params = ", ".join(f'a{i}: R.Tensor(({", ".join(map(str, s))}), "float32")' for i, s in enumerate(shapes))
    names = ", ".join(f"a{i}" for i in range(len(shapes)))
    return relax_ref.parse(HEADER + f'''
    @R.function
    def main({params}):
        with R.dataflow():
            y = R.concat([{names}], axis={axis})
            R.output(y)
        return y
''')


def _compiled(exe, entry="main"):
    plan = exe._plans[entry]
    return list(plan.exact_cache.values() or plan.cache.values())[-1]


@pytest.mark.parametrize("shapes,axis,values", [
    ((('"L"', 8, 4), (1, 8, 4)), 0, [(5, 8, 4), (1, 8, 4)]),             # the decode step's cache
    ((('"L"', 3), (2, 3), ('"M"', 3)), 0, [(4, 3), (2, 3), (3, 3)]),      # nested choices
    (((2, '"L"'), (2, 5)), 1, [(2, 3), (2, 5)]),                          # along an inner axis
])
@pytest.mark.parametrize("buckets", [None, "pow2"])
def test_legalized_concat_is_a_concatenate(shapes, axis, values, buckets):
    mod = _concat_module(shapes, axis)
    exe = relax_jax.compile(LegalizeOps()(mod), shape_buckets=buckets, pad_poison=True)
    args = [RNG.standard_normal(s).astype(np.float32) for s in values]
    got = np.asarray(exe("main", *args))
    np.testing.assert_array_equal(got, np.concatenate(args, axis=axis))
    if buckets is None:
        c = prims(exe, "main", *args, checks="raise")
        assert c["concatenate"] == len(values) - 1 and c["select_n"] == 0 and c["pad"] == 0, c
        assert not _compiled(exe).has_code          # the arms' loads are proven in bounds


SPLIT = '''
    @T.prim_func
    def k(A: T.Buffer((T.int64(2), T.int64(3)), "float32"), B: T.Buffer((T.int64(2), T.int64(4)), "float32"),
          Y: T.Buffer((T.int64(2), T.int64(7)), "float32")):
        for i, j in T.grid(T.int64(2), T.int64(7)):
            with T.block("y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = {value}

    @R.function
    def main(a: R.Tensor((2, 3), "float32"), b: R.Tensor((2, 4), "float32")) -> R.Tensor((2, 7), "float32"):
        cls = Module
        y = R.call_tir(cls.k, (a, b), out_sinfo=R.Tensor((2, 7), "float32"))
        return y
'''

A_ = "A[vi, vj]"
B_ = "B[vi, vj - T.int64(3)]"
B2 = "B[vi, vj - T.int64(3)] * T.float32(2)"


@pytest.mark.parametrize("value,split", [
    (f"T.Select(vj < T.int64(3), A[vi, T.min(vj, T.int64(2))], B[vi, T.max(vj - T.int64(3), T.int64(0))])",
     False),                                                              # both arms evaluated everywhere
    (f"T.if_then_else(vj >= T.int64(3), {B_}, {A_})", True),
    (f"T.if_then_else(T.int64(2) < vj, {B_}, {A_})", True),
    (f"T.if_then_else(vj <= T.int64(2), {A_}, {B_})", True),
    (f"T.if_then_else(T.int64(3) <= vj, {B2}, {A_} + T.float32(1))", True),   # arms of any form
    (f"T.if_then_else(T.int64(0) <= vj - T.int64(3), {B_}, {A_})", True),
    ("T.if_then_else(T.int64(1) <= vi, B[vi - T.int64(1), T.int64(1)], A[vi, T.int64(2)])", True),  # along i
    (f"T.Select(vj <= vi + T.int64(2), A[vi, T.min(vj, T.int64(2))], B[vi, T.max(vj - T.int64(3), T.int64(0))])",
     False),                                                              # two loop variables
    ("T.if_then_else(vj < T.int64(7), B[vi, T.min(vj, T.int64(3))], A[vi, T.int64(0)])", False),   # always true
    ("T.if_then_else(T.int64(0) <= vj, B[vi, T.min(vj, T.int64(3))], A[vi, T.int64(0)])", False),  # always true
])
def test_static_choice_splits_the_nest(value, split, monkeypatch):
    mod = relax_ref.parse(HEADER + SPLIT.format(value=value))
    exe = relax_jax.compile(mod)
    a = RNG.standard_normal((2, 3)).astype(np.float32)
    b = RNG.standard_normal((2, 4)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(exe("main", a, b)), relax_ref.evaluate(mod, "main", a, b))
    c = prims(exe, "main", a, b)
    if split:
        assert c["concatenate"] == 1 and c["select_n"] == 0, c
    monkeypatch.setattr(tir_split, "run_split", lambda *a: False)
    whole = relax_jax.compile(mod)
    np.testing.assert_array_equal(np.asarray(whole("main", a, b)), relax_ref.evaluate(mod, "main", a, b))
    assert (prims(whole, "main", a, b) != c) == split


@pytest.mark.parametrize("value", [
    f"T.if_then_else(vj < T.int64(3), {A_}, B[vi, vj - T.int64(2)])",     # the chosen arm reads past B
    f"T.Select(vj < T.int64(3), {A_}, {B_})",                             # Select reads both arms everywhere
])
def test_out_of_bounds_arm_is_still_checked(value):
    """An arm that reads past its buffer where it is evaluated fails as the reference does."""
    mod = relax_ref.parse(HEADER + SPLIT.format(value=value))
    a = np.zeros((2, 3), np.float32)
    b = np.zeros((2, 4), np.float32)
    with pytest.raises(relax_ref.errors.TIRBoundsError):
        relax_ref.evaluate(mod, "main", a, b)
    with pytest.raises(relax_ref.errors.TIRBoundsError):
        relax_jax.compile(mod)("main", a, b)
