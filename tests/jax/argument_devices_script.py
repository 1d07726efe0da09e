"""Arrays placed on another device than the executable's (two host CPU devices; run by
test_argument_devices.py in a fresh process): each call gives the reference's values, on the general
path and on each fast path, and the results live on the executable's device."""

import os
import sys
from pathlib import Path

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import relax_jax  # noqa: E402
import relax_ref  # noqa: E402
from relax_ref.interp.kv_cache import AttentionKVCache  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from program_texts import KV_STEP_SUM  # noqa: E402

SRC = '''
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @R.function
    def add(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        return R.add(x, y)

    @R.function
    def grow(k: R.Tensor((1, "m", 3), "float32"), r: R.Tensor((1, 1, 3), "float32")) -> R.Tensor((1, "m + 1", 3), "float32"):
        m = T.int64()
        return R.concat([k, r], axis=1)
''' + KV_STEP_SUM


def main() -> None:
    mod = relax_ref.parse(SRC)
    d0, d1 = jax.devices()
    exe, ref = relax_jax.compile(mod, device=d0), relax_ref.Interpreter(mod)
    x, y = np.arange(6, dtype="float32").reshape(2, 3), np.ones((2, 3), "float32")
    for i in range(4):          # the general path, then the exact fast path
        got = exe("add", jax.device_put(x + i, d1), y)
        assert got.devices() == {d0}, got.devices()
        np.testing.assert_array_equal(np.asarray(got), ref("add", x + i, y))
    print("ok exact")
    k = np.zeros((1, 3, 3), "float32")
    for i in range(6):          # lengths below their bucket: the padded fast path
        r = np.full((1, 1, 3), i, "float32")
        got = exe("grow", jax.device_put(k, d1), jax.device_put(r, d1))
        np.testing.assert_array_equal(np.asarray(got), ref("grow", k, r))
        k = np.asarray(got)
    print("ok padded")
    room = np.zeros((16, 3), "float32")
    cache = AttentionKVCache(jax.device_put(jnp.asarray(room), d1), 2, 0)
    mine = AttentionKVCache(np.array(room), 2, 0)
    for i in range(5):          # a cache whose buffer is on the other device, every step
        b = np.full((1, 3), i, "float32")
        cache.data = jax.device_put(cache.data, d1)
        cache, t = exe("step_sum", cache, b, (3 + i,))
        mine, want = ref("step_sum", mine, b, (3 + i,))
        np.testing.assert_array_equal(np.asarray(t), want)
        assert cache.fill == mine.fill and cache.data.devices() == {d0}
    print("ok kv")


if __name__ == "__main__":
    main()
