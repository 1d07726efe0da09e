"""Property (issue: JAX executor): programs from the pass-testing generator
(``relax_ref.testing.strategies``: operator calls over symbolic and static shapes, call_tir of random
TensorIR kernels, tuples, If, match_cast, helper functions and closures) give the same results on
the reference interpreter and on the JAX executor, bucketing on, at several sizes of the symbolic
variables -- sizes that share a pow2 bucket and sizes that do not."""

import os

from hypothesis import given, settings

import jax
import numpy as np

import relax_jax
import relax_ref
from relax_ref.testing import strategies
from relax_ref.testing.compare import compare
from relax_ref.testing.inputs import inputs_for

EXAMPLES = 200 if os.environ.get("HYPOTHESIS_PROFILE") == "long" else 15
SIZES = (3, 4, 1)


def to_host(v):
    if isinstance(v, jax.Array):
        return np.asarray(v)
    if isinstance(v, list):
        return [to_host(x) for x in v]
    if type(v) is tuple:
        return tuple(to_host(x) for x in v)
    return v


@settings(max_examples=EXAMPLES, deadline=None)
@given(strategies.programs(max_bindings=6))
def test_generated_programs_agree_with_the_reference(prog):
    exe = relax_jax.compile(prog.mod, pad_poison=True)
    for size in SIZES:
        args = inputs_for(prog, size, seed=size)
        want = relax_ref.evaluate(prog.mod, prog.entry, *args)
        got = to_host(exe(prog.entry, *args))
        problem = compare(want, got, where=f"{prog.entry} at size {size}")
        assert problem is None, f"{problem}\n{prog.mod.script()}"
