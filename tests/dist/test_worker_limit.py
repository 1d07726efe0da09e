"""RUNTIME.LIMIT.9: the local view runs at most ``max_workers`` workers, on the reference (one thread
per worker) and on relax_jax (simulated workers: one vmap lane each). A mesh of 2**40 devices parses
instantly; before the limit the reference started a thread per device without end."""

import time

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import LimitExceededError
from relax_ref.interp.workers import evaluate_local
from relax_ref.limits import DEFAULT_LIMITS

relax_jax = pytest.importorskip("relax_jax")
from relax_jax.local_view import LocalView  # noqa: E402


def _module(shape, n):
    return relax_ref.parse(f'''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({{"mesh": [R.device_mesh({shape}, I.Range(0, {n}))]}})
    @R.function
    def main(x: R.DTensor((4,), "float32", "mesh[0]", "R, R")):
        return x
''')


BIG = ((2 ** 20, 2 ** 20), 2 ** 40)
X = np.arange(4, dtype="float32")


def _check(err, n, limit):
    assert err.kind == "limit_exceeded" and err.limit == "max_workers" and err.value == n
    assert str(n) in str(err) and f"max_workers = {limit}" in str(err) and "'main'" in str(err)


def test_the_reference_rejects_a_mesh_past_max_workers_before_starting_a_worker():
    start = time.perf_counter()
    with pytest.raises(LimitExceededError) as info:
        evaluate_local(_module(*BIG), "main", X)
    assert time.perf_counter() - start < 5
    _check(info.value, 2 ** 40, DEFAULT_LIMITS.max_workers)


def test_the_reference_budget_is_configurable():
    mod = _module((2, 2), 4)
    np.testing.assert_array_equal(evaluate_local(mod, "main", X, limits=DEFAULT_LIMITS.with_(max_workers=4)), X)
    with pytest.raises(LimitExceededError) as info:
        evaluate_local(mod, "main", X, limits=DEFAULT_LIMITS.with_(max_workers=3))
    _check(info.value, 4, 3)


def test_relax_jax_rejects_a_mesh_past_max_workers_before_tracing():
    start = time.perf_counter()
    with pytest.raises(LimitExceededError) as info:
        LocalView(_module(*BIG), simulate=True)
    assert time.perf_counter() - start < 5
    _check(info.value, 2 ** 40, DEFAULT_LIMITS.max_workers)


def test_relax_jax_budget_is_configurable():
    mod = _module((2, 2), 4)
    exe = relax_jax.compile(mod, limits=DEFAULT_LIMITS.with_(max_workers=4))
    np.testing.assert_array_equal(np.asarray(LocalView(exe, simulate=True)(X)), X)
    with pytest.raises(LimitExceededError) as info:
        LocalView(relax_jax.compile(mod, limits=DEFAULT_LIMITS.with_(max_workers=3)), simulate=True)
    _check(info.value, 4, 3)
