"""Throughput of the program generator plus the reference interpreter (one process, one core).

    python benchmarks/bench_generator.py [--seconds 20] [--sizes 1,3] [--max-bindings 10] [--legalize]

Each iteration draws a program with a seeded ``RandomSource`` (the generator without Hypothesis, as
the campaign uses it), builds its inputs and evaluates the entry function at every size. Target: at
least 30 small programs per second. ``--legalize`` adds a ``LegalizeOps`` oracle check per program
(pass + well-formedness + evaluation of the output), i.e. the cost of one ``check_pass`` example
without Hypothesis' own overhead.
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--sizes", default="1,3")
    ap.add_argument("--max-bindings", type=int, default=10)
    ap.add_argument("--legalize", action="store_true")
    args = ap.parse_args()

    from relax_ref.testing.oracle import check_case, expected_results
    from relax_ref.testing.program import GenConfig, generate
    from relax_ref.testing.source import RandomSource

    sizes = tuple(int(s) for s in args.sizes.split(","))
    cfg = GenConfig(max_bindings=args.max_bindings)
    legalize = None
    if args.legalize:
        from relax_ref.transform import LegalizeOps

        legalize = LegalizeOps()
    generate(RandomSource(-1), cfg)  # warm up imports and the operator registry
    gen_t, run_t, pass_t, bindings = [], [], [], []
    deadline = time.perf_counter() + args.seconds
    seed = 0
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        t0 = time.perf_counter()
        prog = generate(RandomSource(seed), cfg)
        t1 = time.perf_counter()
        exp = expected_results(prog, sizes, seed)
        t2 = time.perf_counter()
        if legalize is not None:
            out = check_case(prog, [legalize], sizes=sizes, seed=seed, expected=exp)
            if not out.ok:
                raise SystemExit(out.report())
        t3 = time.perf_counter()
        gen_t.append(t1 - t0)
        run_t.append(t2 - t1)
        pass_t.append(t3 - t2)
        bindings.append(sum(len(b.bindings) for _, f in prog.mod.relax_functions() for b in f.body.blocks))
        seed += 1
    total = time.perf_counter() - start
    n = len(gen_t)
    print(f"{n} programs in {total:.1f} s: {n / total:.1f} programs/s "
          f"(sizes {list(sizes)}, max_bindings {args.max_bindings}{', with LegalizeOps check' if legalize else ''})")
    print(f"  generate   mean {1e3 * statistics.mean(gen_t):6.2f} ms   p90 {1e3 * sorted(gen_t)[int(0.9 * n)]:6.2f} ms")
    print(f"  interpret  mean {1e3 * statistics.mean(run_t):6.2f} ms   p90 {1e3 * sorted(run_t)[int(0.9 * n)]:6.2f} ms")
    if legalize is not None:
        print(f"  legalize+check mean {1e3 * statistics.mean(pass_t):6.2f} ms")
    print(f"  top-level bindings per program: mean {statistics.mean(bindings):.1f}, max {max(bindings)}")


if __name__ == "__main__":
    main()
