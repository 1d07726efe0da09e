"""Kill rate of ``check_pass`` on the mutant zoo (``relax_ref.testing.mutants.ZOO``).

    python benchmarks/mutant_bench.py [--json out.json] [--seconds S] [--shrink-seconds S]
                                      [--only NAME,...] [--profile NAME] [--seed N] [--unguided]
                                      [--baseline]

Runs ``check_pass(mutant, prepare=..., config=...)`` with the settings of a profile (default: the
``default`` profile, i.e. ``check_pass``'s own defaults) on every mutant, one after the other in
this process, and reports per mutant: caught or not, the symptom and the pass it failed in, the
number of programs and the seconds until the first failure, the shrink time, and the size of the
shrunk reproducer (bindings of its Relax functions). A mutant counts as *caught* only when the
failure is reported against the mutant itself and relax-ref's unbroken pass passes on the shrunk
reproducer (otherwise the status is ``pass-bug``: the search found a bug of the real pass; a failure
of a prepare pass is ``other-failure``). Mutants whose pass this build lacks are listed as skipped and left
out of the kill rate.

Targets: at least 95% caught; median time to catch under 30 s and every catch under 120 s (2
cores); reproducers of at most ~15 bindings. ``--baseline`` also runs each target pass without a
fault for ``--baseline-seconds`` (default 20; every such run must pass: the oracles raise no false
alarm), ``--skip-mutants`` runs the baseline alone.
``--unguided`` turns off the coverage-guided choice of operators and shapes (for comparison).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time


def _row(spec, args):
    from relax_ref.testing import PassCheckError, check_pass
    from relax_ref.testing.passes import ref_pass

    if ref_pass(spec.target) is None:
        return {"name": spec.name, "target": spec.target, "status": "skipped",
                "why": f"this build has no {spec.target} pass"}
    kw = spec.check_kwargs()
    t0 = time.perf_counter()
    try:
        stats = check_pass(spec.make(), profile=args.profile, seconds=args.seconds, shrink_seconds=args.shrink_seconds,
                           seed=args.seed, guided=not args.unguided, **kw)
    except PassCheckError as err:
        st = err.stats
        out = err.outcome
        own = out.failed_at == len(kw["prepare"])
        if own and _real_pass_fails(spec, kw, st):
            own = None  # the unbroken pass fails on the reproducer too: a bug of the pass, not the fault
        status = {True: "caught", False: "other-failure", None: "pass-bug"}[own]
        return {"name": spec.name, "target": spec.target, "status": status,
                "symptom": out.symptom, "failed_pass": out.failed_pass, "message": out.message.splitlines()[0][:200],
                "examples": st.found_at, "seconds_to_catch": round(st.seconds_to_failure, 2),
                "shrink_seconds": round(st.shrink_seconds, 2), "bindings_before": st.bindings_before,
                "bindings": st.bindings_after, "total_seconds": round(time.perf_counter() - t0, 2),
                "programs_per_second": round(st.programs_per_second, 1)}
    return {"name": spec.name, "target": spec.target, "status": "missed", "examples": stats.programs,
            "total_seconds": round(time.perf_counter() - t0, 2),
            "programs_per_second": round(stats.programs_per_second, 1), "coverage": stats.coverage.as_dict()}


def _real_pass_fails(spec, kw, stats) -> bool:
    """Whether relax-ref's own (unbroken) pass fails on the shrunk reproducer in the same way."""
    from relax_ref.testing.oracle import check_case
    from relax_ref.testing.passes import ref_pass

    if stats.program is None:
        return False
    out = check_case(stats.program, kw["prepare"] + [ref_pass(spec.target)], seed=stats.failing_seed,
                     signature=kw["signature"], poison=True, untested=len(kw["prepare"]), timeout=60.0)
    return not out.ok


def _baseline(targets, args):
    from relax_ref.testing import PassCheckError, check_pass
    from relax_ref.testing.passes import CATALOG, prepare_passes, ref_pass

    out = {}
    for name in targets:
        p = ref_pass(name)
        if p is None:
            continue
        spec = CATALOG[name]
        try:
            st = check_pass(p, profile=args.profile, seconds=args.baseline_seconds, seed=args.seed,
                            prepare=prepare_passes(spec), config=spec.gen_config(), signature=spec.signature)
            out[name] = {"status": "ok", "programs": st.programs, "programs_per_second": round(st.programs_per_second, 1),
                         "coverage": st.coverage.as_dict()}
        except PassCheckError as err:
            out[name] = {"status": "FAILED", "symptom": err.outcome.symptom, "message": err.outcome.message[:300]}
        print(f"  baseline {name}: {out[name]['status']}", flush=True)
    return out


def _summary(rows):
    run = [r for r in rows if r["status"] != "skipped"]
    caught = [r for r in run if r["status"] == "caught"]
    times = [r["seconds_to_catch"] for r in caught]
    shrink = [r["shrink_seconds"] for r in caught]
    sizes = [r["bindings"] for r in caught]
    return {
        "mutants": len(rows), "run": len(run), "skipped": len(rows) - len(run), "caught": len(caught),
        "pass_bug": sum(1 for r in run if r["status"] == "pass-bug"),
        "kill_rate": round(len(caught) / len(run), 4) if run else None,
        "median_seconds_to_catch": round(statistics.median(times), 2) if times else None,
        "max_seconds_to_catch": max(times) if times else None,
        "median_examples_to_catch": statistics.median([r["examples"] for r in caught]) if caught else None,
        "median_shrink_seconds": round(statistics.median(shrink), 2) if shrink else None,
        "max_shrink_seconds": max(shrink) if shrink else None,
        "median_bindings": statistics.median(sizes) if sizes else None, "max_bindings": max(sizes) if sizes else None,
        "over_15_bindings": sum(1 for s in sizes if s > 15),
    }


def _table(rows) -> str:
    lines = ["| mutant | caught | symptom | programs | s to catch | shrink s | bindings |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["status"] == "skipped":
            lines.append(f"| {r['name']} | skipped ({r['why']}) | | | | | |")
        elif r["status"] == "missed":
            lines.append(f"| {r['name']} | **no** | | {r['examples']} | ({r['total_seconds']}) | | |")
        else:
            mark = {"caught": "yes", "pass-bug": "(a bug of the pass itself)"}.get(r["status"],
                                                                                   f"other: {r['failed_pass']}")
            lines.append(f"| {r['name']} | {mark} | {r['symptom']} | {r['examples']} | {r['seconds_to_catch']} | "
                         f"{r['shrink_seconds']} | {r['bindings_before']} -> {r['bindings']} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--seconds", type=float, help="search budget per mutant (default: the profile's)")
    ap.add_argument("--shrink-seconds", type=float)
    ap.add_argument("--profile", default="default")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--only", help="comma-separated mutant names (or prefixes)")
    ap.add_argument("--unguided", action="store_true")
    ap.add_argument("--baseline", action="store_true")
    ap.add_argument("--baseline-seconds", type=float, default=20.0, help="budget of each unbroken pass")
    ap.add_argument("--skip-mutants", action="store_true", help="only the baseline")
    args = ap.parse_args()

    import warnings

    from relax_ref.testing.mutants import ZOO
    from relax_ref.testing.profiles import resolve

    warnings.simplefilter("ignore", RuntimeWarning)
    specs = ZOO
    if args.only:
        keys = [k.strip() for k in args.only.split(",") if k.strip()]
        specs = [s for s in ZOO if any(s.name == k or s.name.startswith(k) for k in keys)]
    budget = resolve(args.profile, seconds=args.seconds, shrink_seconds=args.shrink_seconds, seed=args.seed)
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"{len(specs)} mutants, budget {budget.seconds:.0f} s search + {budget.shrink_seconds:.0f} s shrink each, "
          f"seed {budget.seed}{', unguided' if args.unguided else ''}; load average {load}", flush=True)
    rows = []
    start = time.perf_counter()
    for spec in ([] if args.skip_mutants else specs):
        r = _row(spec, args)
        rows.append(r)
        detail = "" if r["status"] in ("skipped", "missed") else \
            f"{r['symptom']:10s} {r['examples']:5d} programs {r['seconds_to_catch']:6.1f} s, shrink {r['shrink_seconds']:5.1f} s, " \
            f"{r['bindings_before']} -> {r['bindings']} bindings"
        print(f"{spec.name:55s} {r['status']:8s} {detail}", flush=True)
    summary = _summary(rows)
    summary["wall_seconds"] = round(time.perf_counter() - start, 1)
    summary["load_average_start"] = load
    summary["load_average_end"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    print()
    print(_table(rows))
    print()
    print(json.dumps(summary, indent=2))
    result = {"summary": summary, "mutants": rows, "profile": budget.name, "seconds": budget.seconds,
              "shrink_seconds": budget.shrink_seconds, "seed": budget.seed, "guided": not args.unguided,
              "python": sys.version.split()[0], "machine": platform.machine(), "cpus": os.cpu_count()}
    if args.baseline:
        result["baseline"] = _baseline(sorted({s.target for s in specs}), args)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=2, default=str)
            fh.write("\n")


if __name__ == "__main__":
    main()
