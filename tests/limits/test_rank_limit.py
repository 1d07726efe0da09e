"""RUNTIME.LIMIT.1: a tensor at run time has at most 64 dimensions, on both evaluators alike."""

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import LimitExceededError

pytest.importorskip("jax")
import relax_jax  # noqa: E402

_EXPAND = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(ndim={rank}, dtype="float32")):
        w = R.expand_dims(x, axis=[0])
        return w
'''


def _run(impl, rank):
    mod = relax_ref.parse(_EXPAND.format(rank=rank))
    x = np.zeros((1,) * rank, "float32")
    if impl == "ref":
        return relax_ref.evaluate(mod, x, entry="main")
    return relax_jax.compile(mod)("main", x)


@pytest.mark.parametrize("impl", ["ref", "jax"])
def test_result_of_rank_65_is_limit_exceeded(impl):
    with pytest.raises(LimitExceededError, match="rank 65") as info:
        _run(impl, 64)
    assert info.value.limit == "rank" and info.value.value == 65


@pytest.mark.parametrize("impl", ["ref", "jax"])
def test_result_of_rank_64_is_computed(impl):
    out = np.asarray(_run(impl, 63))
    assert out.shape == (1,) * 64
