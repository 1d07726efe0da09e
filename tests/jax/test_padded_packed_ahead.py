"""The padded fast path (relax_jax.hotpath.make_padded_hot) makes the packed vector of the symbolic
values a next call is expected to pass (each value advanced as much as it did from the previous call,
a decode step's growing length) while a call computes, and a call passing exactly those values takes
it. A call passing any other values -- a shorter or longer cache than expected, the same length again,
lengths that advance by another stride -- gives the reference evaluator's values, on the fast path."""

import jax.numpy as jnp
import numpy as np
import pytest

import relax_jax
import relax_ref

from program_texts import GROWING_CACHE as _GROW


def _tok_w():
    rng = np.random.default_rng(3)
    return rng.standard_normal((1, 4), np.float32), rng.standard_normal((1, 4), np.float32)


# per step: None passes the previous step's result back (the expected length), an int passes a fresh
# array of that many rows (the lengths stay in the bucket of 16 rows from 9 on)
_SCHEDULES = {
    "shorter than expected": [9, None, None, 10, None, None],
    "longer than expected": [9, None, None, 14, None],
    "the same length again": [9, None, 10, 10, 10, None],
    "another stride": [9, 11, 13, 14, None],
}


@pytest.mark.parametrize("donate", [False, True])
@pytest.mark.parametrize("schedule", sorted(_SCHEDULES))
def test_any_length_gives_the_reference_values(schedule, donate):
    mod = relax_ref.parse(_GROW)
    kw = dict(donate_argnums={"step": (1,)}) if donate else {}
    exe = relax_jax.compile(mod, padded_results={"step"}, **kw)
    tok, w = _tok_w()
    rng = np.random.default_rng(4)
    cache = ref_cache = None
    hits = []
    for i, rows in enumerate(_SCHEDULES[schedule]):
        if rows is not None:
            ref_cache = rng.standard_normal((rows, 4), np.float32)
            cache = jnp.asarray(ref_cache)
        before = exe.stats.cache_hits
        total, grown = exe("step", jnp.asarray(tok), cache, jnp.asarray(w))
        hits.append(exe.stats.cache_hits - before)
        want_total, want_cache = relax_ref.evaluate(mod, "step", tok, ref_cache, w)
        np.testing.assert_array_equal(np.asarray(grown), want_cache, err_msg=f"step {i}")
        np.testing.assert_allclose(np.asarray(total), want_total, rtol=1e-5, err_msg=f"step {i}")
        cache, ref_cache = grown, want_cache
    # the first call compiles; the others are on the fast path, the calls under test among them
    assert sum(hits[2:]) == len(hits) - 2, hits
