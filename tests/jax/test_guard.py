"""relax_jax.guard.guarded_compile: tracing and lowering with Python's cyclic collector paused, its
state restored afterwards (also when the trace fails), the compiled function unchanged."""

from __future__ import annotations

import gc

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from relax_ref.limits import DEFAULT_LIMITS
from relax_jax.guard import gc_paused, guarded_compile


def _jitted(seen: list, fail: bool = False):
    def f(x):
        seen.append(gc.isenabled())
        if fail:
            raise ValueError("trace failed")
        return jnp.sin(x) * 2.0
    return jax.jit(f)


@pytest.mark.parametrize("enabled", [True, False])
def test_collector_paused_while_tracing_and_restored(enabled):
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        seen: list = []
        x = np.linspace(-1, 1, 8, dtype=np.float32)
        compiled = guarded_compile(_jitted(seen), (x,), DEFAULT_LIMITS)
        assert seen == [False]
        assert gc.isenabled() is enabled
        np.testing.assert_array_equal(np.asarray(compiled(x)), np.asarray(_jitted([])(x)))
        with pytest.raises(ValueError, match="trace failed"):
            guarded_compile(_jitted(seen, fail=True), (x,), DEFAULT_LIMITS)
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_gc_paused_restores_on_error():
    was = gc.isenabled()
    try:
        gc.enable()
        with pytest.raises(RuntimeError):
            with gc_paused():
                assert not gc.isenabled()
                raise RuntimeError
        assert gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
