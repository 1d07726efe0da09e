"""In-place calls on relax_jax: copy against buffer donation (CALL.INPLACE.6).

Run ``python benchmarks/inplace_bench.py`` (``--rows``, ``--cols``, ``--calls``, ``--rounds``).

The workload is the step of a decode loop: ``main(x, v)`` writes the row ``v`` into row 3 of the
buffer ``x`` with ``R.call_tir_inplace`` and returns the buffer, and the loop feeds the result back
as the next ``x``. ``x`` is consumed (CALL.INPLACE.6), so relax_jax donates it to XLA:

* ``relax_jax[copy]``: ``donate_inplace=False`` (the default): the caller's JAX array is kept, so a
  copy of it is donated -- the whole buffer is copied every step;
* ``relax_jax[donated]``: ``donate_inplace=True``: the caller's array is consumed and the row is
  written into its buffer (no copy);
* ``jax.jit`` and ``jax.jit[donated]``: the same step hand-written (``x.at[3].set(v)``), without and
  with ``donate_argnums``.

The contenders alternate call by call (the order rotating each round); the ratio is the median of the
paired ratios against ``relax_jax[copy]``, each call waited on with ``block_until_ready``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

import relax_jax

_SRC = '''
from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @T.prim_func
    def set_row(A: T.Buffer((T.int64({r}), T.int64({c})), "float32"), V: T.Buffer((T.int64({c}),), "float32")):
        for j in range(T.int64({c})):
            A[T.int64(3), j] = V[j]

    @R.function
    def main(x: R.Tensor(({r}, {c}), "float32"), v: R.Tensor(({c},), "float32")) -> R.Tensor(({r}, {c}), "float32"):
        cls = Module
        y = R.call_tir_inplace(cls.set_row, (x, v), inplace_indices=[0], out_sinfo=R.Tensor(({r}, {c}), "float32"))
        return y
'''


def _contenders(rows: int, cols: int):
    src = _SRC.format(r=rows, c=cols)
    copy = relax_jax.compile(src, shape_buckets=None)
    donated = relax_jax.compile(src, shape_buckets=None, donate_inplace=True)

    def step(x, v):
        return x.at[3].set(v)

    jit = jax.jit(step)
    jit_don = jax.jit(step, donate_argnums=0)
    return {
        "relax_jax[copy]": lambda x, v: copy("main", x, v),
        "relax_jax[donated]": lambda x, v: donated("main", x, v),
        "jax.jit": jit,
        "jax.jit[donated]": jit_don,
    }, donated


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=4096)
    p.add_argument("--cols", type=int, default=1024)
    p.add_argument("--calls", type=int, default=20)
    p.add_argument("--rounds", type=int, default=5)
    a = p.parse_args(argv)
    fns, donated = _contenders(a.rows, a.cols)
    v = jnp.arange(a.cols, dtype=jnp.float32)
    state = {k: jnp.zeros((a.rows, a.cols), jnp.float32) for k in fns}
    for k, f in fns.items():                     # compile, check, settle
        state[k] = jax.block_until_ready(f(state[k], v))
        assert np.array_equal(np.asarray(state[k])[3], np.asarray(v)), k
    plan = donated._plans["main"]
    compiled = next(iter(plan.exact_cache.values()))
    hlo = compiled.fn.as_text()
    alias = [ln for ln in hlo.splitlines() if "input_output_alias" in ln]
    times = {k: [] for k in fns}
    names = list(fns)
    for r in range(a.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for _ in range(a.calls):
            for k in order:
                t = time.perf_counter()
                state[k] = jax.block_until_ready(fns[k](state[k], v))
                times[k].append(time.perf_counter() - t)
    base = times["relax_jax[copy]"]
    mb = a.rows * a.cols * 4 / 2 ** 20
    print(f"buffer {a.rows}x{a.cols} float32 ({mb:.0f} MiB), one row written per call; "
          f"{a.rounds} rounds x {a.calls} calls; load average {os.getloadavg()[0]:.1f}")
    print("donated executable:", alias[0].split("input_output_alias=")[1].split(", entry_computation_layout")[0]
          if alias else "no input_output_alias")
    print(f"{'contender':22s} {'median':>10s}  vs relax_jax[copy]")
    for k in names:
        ratio = statistics.median(t / b for t, b in zip(times[k], base))
        print(f"{k:22s} {statistics.median(times[k]) * 1e3:8.3f} ms  {ratio:6.3f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
