"""TensorIR interpreter: vectorized vs scalar path on a 64x64x64 matmul with ``T.init``.

    python benchmarks/bench_tir_interp.py [--size 64] [--repeat 5]

Prints the median time of each path and the speedup (target: >= 100x).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from relax_ref.interp import run_prim_func
from relax_ref.script.parser import parse_module

TEXT = '''
@I.ir_module
class Module:
    @T.prim_func
    def matmul(A: T.Buffer((T.int64({n}), T.int64({n})), "float32"), B: T.Buffer((T.int64({n}), T.int64({n})), "float32"), C: T.Buffer((T.int64({n}), T.int64({n})), "float32")):
        for i0, i1, k in T.grid(T.int64({n}), T.int64({n}), T.int64({n})):
            with T.block("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                with T.init():
                    C[v_i0, v_i1] = T.float32(0)
                C[v_i0, v_i1] = C[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1]
'''


def median_time(fn, repeat: int) -> float:
    fn()  # warm-up (compiles the PrimFunc once)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    n = args.size
    func = parse_module(TEXT.format(n=n))["matmul"]
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    c_vec, c_sca = np.zeros((n, n), np.float32), np.zeros((n, n), np.float32)
    t_vec = median_time(lambda: run_prim_func(func, [a, b, c_vec], vectorize=True), args.repeat)
    t_sca = median_time(lambda: run_prim_func(func, [a, b, c_sca], vectorize=False), max(1, args.repeat // 2))
    err = float(np.abs(c_vec - c_sca).max())
    print(f"matmul {n}x{n}x{n} with T.init ({n ** 3} block instances)")
    print(f"  vectorized path: {t_vec * 1e3:9.2f} ms")
    print(f"  scalar path:     {t_sca * 1e3:9.2f} ms")
    print(f"  speedup:         {t_sca / t_vec:9.1f}x   (max |difference| {err:.2e})")


if __name__ == "__main__":
    main()
