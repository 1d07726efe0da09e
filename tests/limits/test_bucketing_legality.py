"""Bucketing never changes legality (RUNTIME.LIMIT.6, OP.SEM.2): over random programs whose
parameters have symbolic dimensions, relax_jax (which pads symbolic sizes to their buckets) raises an
error exactly when the reference does, of the same kind, and otherwise returns the same values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relax_ref
from relax_ref.errors import RelaxError

relax_jax = pytest.importorskip("relax_jax")

BINARY = ("add", "subtract", "multiply", "maximum", "minimum", "floor_mod", "equal")
HEAD = "from tvm.script import ir as I, relax as R\n\n\n@I.ir_module\nclass Module:\n    @R.function\n"


@st.composite
def programs(draw):
    """A chain of two binary operators over three parameters whose annotated dims are constants or
    shared symbolic variables; actual sizes drawn around them (equal, 1, or different)."""
    rank = draw(st.integers(1, 3))
    names = ["n", "m"]
    params, shapes = [], []
    sym_val = {v: draw(st.integers(1, 5)) for v in names}
    for _ in range(3):
        r = draw(st.integers(1, rank))
        ann, actual = [], []
        for _ in range(r):
            kind = draw(st.sampled_from(("sym", "sym", "const")))
            if kind == "sym":
                v = draw(st.sampled_from(names))
                ann.append(f'"{v}"')
                actual.append(sym_val[v])
            else:
                c = draw(st.sampled_from((1, 3, 4, 5)))
                ann.append(str(c))
                actual.append(c)
        params.append(ann)
        shapes.append(tuple(actual))
    # occasionally break an annotation-consistent argument into a clash the checks must catch
    if draw(st.booleans()):
        i = draw(st.integers(0, 2))
        a = list(shapes[i])
        a[-1] = draw(st.integers(1, 6))
        shapes[i] = tuple(a)
    ops = [draw(st.sampled_from(BINARY)) for _ in range(2)]
    dtype = "int32" if "floor_mod" in ops else "float32"
    sig = ", ".join(f'x{i}: R.Tensor(({", ".join(a)},), "{dtype}")' for i, a in enumerate(params))
    body = (f"        a = R.{ops[0]}(x0, x1)\n"
            f"        b = R.{ops[1]}(a, x2)\n" if ops[0] != "equal" else
            f"        a = R.{ops[0]}(x0, x1)\n        b = R.{ops[1]}(x1, x2)\n")
    text = HEAD + f"    def main({sig}):\n{body}        return b\n"
    seed = draw(st.integers(0, 2 ** 16))
    return text, shapes, dtype, seed


def _outcome(fn):
    try:
        return ("value", np.asarray(fn()))
    except RelaxError as err:
        return (err.kind, None)


@settings(max_examples=40)
@given(programs())
def test_error_behaviour_agrees_under_bucketing(prog):
    text, shapes, dtype, seed = prog
    try:
        mod = relax_ref.parse(text)
    except RelaxError:
        return                                   # statically ill-typed: nothing to run
    rng = np.random.default_rng(seed)
    if dtype == "int32":
        args = [rng.integers(1, 9, s).astype(dtype) for s in shapes]
    else:
        args = [rng.standard_normal(s).astype(dtype) for s in shapes]
    ref = _outcome(lambda: relax_ref.evaluate(mod, "main", *args))
    jax_ = _outcome(lambda: relax_jax.compile(mod)("main", *args))
    assert ref[0] == jax_[0], (text, shapes, ref[0], jax_[0])
    if ref[0] == "value":
        assert ref[1].shape == jax_[1].shape
        np.testing.assert_allclose(jax_[1], ref[1], rtol=1e-6, atol=1e-6)
