"""A time-boxed fuzzing campaign over pass sequences, with minimized reproducers.

::

    python -m relax_ref.testing.campaign --minutes 30 --target tvm --out campaign-out
    python -m relax_ref.testing.campaign --minutes 5 --target ref --passes LegalizeOps

Each iteration draws, from one seeded :class:`~relax_ref.testing.source.RandomSource`, a pass
sequence (up to ``--max-length`` passes from ``--passes``; sometimes starting with a prefix of the
fusion pipeline ``LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR``) and then a program, and
runs the oracles: against TVM's passes (``--target tvm``, :mod:`relax_ref.testing.tvm_bridge`) or
relax-ref's (``--target ref``, :mod:`relax_ref.testing.oracle`). Every outcome is counted per pass
(``ok`` and the symptoms). The first failure of each kind (symptom, pass, message with numbers and
names removed) is minimized by replaying edited choice lists (:mod:`relax_ref.testing.shrink`) and
written as a bundle (:mod:`relax_ref.testing.bundle`) under ``<out>/bundles``; later failures of
the same kind are only counted. ``<out>/report.json`` and ``<out>/report.md`` hold the numbers.

The campaign uses one process for generation and checking (plus TVM's worker process).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import RelaxError
from .bundle import failure_signature, write_bundle
from .oracle import InvalidCaseError, Outcome, check_case
from .program import GenConfig, GenerationError, Program, generate
from .shrink import shrink
from .source import RandomSource, ReplaySource, Source

FUSION_CHAIN = ("LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR")

DEFAULT_TVM_PASSES = (
    "LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR", "DeadCodeElimination", "CanonicalizeBindings",
    "FoldConstant", "EliminateCommonSubexpr", "LambdaLift", "ConvertToDataflow", "ToNonDataflow",
    "RewriteDataflowReshape", "DecomposeOpsForInference", "Normalize",
)

#: symptoms that are not failures of the pass itself (see relax_ref.testing.tvm_bridge)
NOT_PASS_FAILURES = ("tvm-load",)


def draw_sequence(src: Source, passes: Sequence[str], max_length: int) -> List[str]:
    """A pass sequence; shrinks towards one pass, the first of ``passes``."""
    chain = [p for p in FUSION_CHAIN if p in passes]
    seq: List[str] = []
    if len(chain) > 1 and src.boolean(40):
        seq = chain[:src.integer(2, len(chain))]
    extra = src.integer(0 if seq else 1, max(0 if seq else 1, max_length - len(seq)))
    for _ in range(extra):
        seq.append(src.choice(list(passes)))
    return seq


@dataclass
class Stats:
    programs: int = 0
    invalid: int = 0
    per_pass: Dict[str, Counter] = field(default_factory=dict)
    other: Counter = field(default_factory=Counter)

    def record(self, o: Outcome) -> None:
        self.programs += 1
        if o.symptom in NOT_PASS_FAILURES:
            self.other[o.symptom] += 1
            return
        last = len(o.passes) if o.ok else min(o.failed_at, len(o.passes) - 1) + 1
        for i, name in enumerate(o.passes[:last]):
            c = self.per_pass.setdefault(name, Counter())
            c["ok" if o.ok or i < o.failed_at else o.symptom] += 1


@dataclass
class Failure:
    signature: str
    symptom: str
    pass_name: Optional[str]
    message: str
    count: int = 1
    first_seed: int = 0
    bundle: Optional[str] = None
    shrunk_choices: int = 0


class Campaign:
    def __init__(self, *, target: str, passes: Sequence[str], max_length: int, out: Path, seed: int,
                 sizes: Sequence[int], shrink_seconds: float, timeout: float, gen: GenConfig) -> None:
        self.target = target
        self.passes = list(passes)
        self.max_length = max_length
        self.out = out
        self.seed = seed
        self.sizes = tuple(sizes)
        self.shrink_seconds = shrink_seconds
        self.timeout = timeout
        self.gen = gen
        self.stats = Stats()
        self.failures: Dict[str, Failure] = {}
        self.invalid_seeds: List[int] = []
        self.runner = None
        self.version = None
        if target == "tvm":
            from .tvm_bridge import TvmPassRunner

            self.runner = TvmPassRunner(timeout=timeout)
        elif target == "ref":
            from .passes import ref_pass

            missing = [p for p in self.passes if ref_pass(p) is None]
            if missing:
                raise RelaxError(f"relax_ref.transform has no pass named {', '.join(missing)}")
        else:
            raise RelaxError(f"unknown target '{target}' (expected 'tvm' or 'ref')")

    # -- one case ----------------------------------------------------------------------------------
    def case(self, src: Source, seed: int) -> Tuple[Program, Outcome]:
        seq = draw_sequence(src, self.passes, self.max_length)
        program = generate(src, self.gen)
        if self.target == "tvm":
            from .tvm_bridge import check_case_tvm

            return program, check_case_tvm(program, seq, self.runner, sizes=self.sizes, seed=seed)
        from .passes import ref_pass

        return program, check_case(program, [ref_pass(n) for n in seq], sizes=self.sizes, seed=seed,
                                   timeout=self.timeout)

    def replay(self, choices: Sequence[int], seed: int) -> Tuple[Optional[Outcome], List[int]]:
        src = ReplaySource(choices)
        try:
            _, o = self.case(src, seed)
        except Exception:  # noqa: BLE001 - an edited choice list the generator cannot use is no reproducer
            return None, src.choices
        return o, src.choices

    # -- the loop ----------------------------------------------------------------------------------
    def minimize(self, choices: Sequence[int], seed: int, signature: str) -> Tuple[List[int], Outcome]:
        def still_fails(cand: List[int]) -> Optional[List[int]]:
            o, used = self.replay(cand, seed)
            return used if o is not None and not o.ok and failure_signature(o) == signature else None

        best = shrink(choices, still_fails, seconds=self.shrink_seconds)
        o, _ = self.replay(best, seed)
        if o is None or o.ok or failure_signature(o) != signature:  # flaky: keep the original
            best = list(choices)
            o, _ = self.replay(best, seed)
        return best, o

    def run(self, minutes: float, max_programs: Optional[int] = None, log=sys.stderr) -> None:
        deadline = time.monotonic() + minutes * 60
        i = 0
        last_log = time.monotonic()
        while time.monotonic() < deadline and (max_programs is None or i < max_programs):
            seed = self.seed + i
            i += 1
            src = RandomSource(seed)
            try:
                program, o = self.case(src, seed)
            except (GenerationError, InvalidCaseError) as err:
                self.invalid(seed, err, log)
                continue
            except Exception as err:  # noqa: BLE001 - a generator crash is counted and the campaign goes on
                self.invalid(seed, err, log)
                continue
            self.stats.record(o)
            if not o.ok:
                self.on_failure(o, list(src.choices), seed, log)
            if time.monotonic() - last_log > 60:
                last_log = time.monotonic()
                print(f"[campaign] {self.stats.programs} programs, {len(self.failures)} kinds of failure",
                      file=log)
        self.write_report(minutes)

    def invalid(self, seed: int, err: BaseException, log) -> None:
        """A case the generator could not make (a generator bug): counted, logged, skipped."""
        self.stats.invalid += 1
        self.invalid_seeds.append(seed)
        print(f"[campaign] seed {seed}: invalid case: {type(err).__name__}: {str(err).splitlines()[0][:200]}",
              file=log)

    def on_failure(self, o: Outcome, choices: List[int], seed: int, log) -> None:
        sig = failure_signature(o)
        f = self.failures.get(sig)
        if f is not None:
            f.count += 1
            return
        f = self.failures[sig] = Failure(sig, o.symptom, o.failed_pass, o.message.splitlines()[0][:300],
                                         first_seed=seed)
        print(f"[campaign] seed {seed}: new failure {o.symptom} in {o.failed_pass}: {f.message}", file=log)
        small, so = self.minimize(choices, seed, sig)
        f.shrunk_choices = len(small)
        extra = {"target": self.target, "tvm_version": getattr(self.runner, "version", None),
                 "campaign_seed": seed, "generator_config": repr(self.gen)}
        f.bundle = "bundles/" + write_bundle(self.out / "bundles", so, seed=seed, choices=small, extra=extra).name

    # -- report ------------------------------------------------------------------------------------
    def report(self, minutes: float) -> dict:
        return {
            "target": self.target,
            "tvm_version": getattr(self.runner, "version", None),
            "minutes": minutes,
            "passes": self.passes,
            "max_length": self.max_length,
            "sizes": list(self.sizes),
            "seed": self.seed,
            "programs": self.stats.programs,
            "invalid": self.stats.invalid,
            "invalid_seeds": self.invalid_seeds[:50],
            "other": dict(self.stats.other),
            "per_pass": {k: dict(v) for k, v in sorted(self.stats.per_pass.items())},
            "failures": [f.__dict__ for f in self.failures.values()],
        }

    def write_report(self, minutes: float) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        rep = self.report(minutes)
        (self.out / "report.json").write_text(json.dumps(rep, indent=2) + "\n")
        (self.out / "report.md").write_text(render_markdown(rep))

    def close(self) -> None:
        if self.runner is not None:
            self.runner.close()


SYMPTOM_COLUMNS = ("ok", "crash", "ill-formed", "mismatch", "signature", "timeout", "read-back")


def render_markdown(rep: dict) -> str:
    lines = [f"# Campaign report ({rep['target']}"
             + (f", TVM {rep['tvm_version']}" if rep.get("tvm_version") else "") + ")", "",
             f"{rep['minutes']} minutes, {rep['programs']} programs checked, {rep['invalid']} invalid cases, "
             f"other: {rep['other'] or 'none'}; sizes {rep['sizes']}, sequences of up to {rep['max_length']} passes.",
             "", "| pass | " + " | ".join(SYMPTOM_COLUMNS) + " |", "|---|" + "---|" * len(SYMPTOM_COLUMNS)]
    for name, c in rep["per_pass"].items():
        lines.append(f"| {name} | " + " | ".join(str(c.get(k, 0)) for k in SYMPTOM_COLUMNS) + " |")
    lines += ["", "## Distinct failures", ""]
    if not rep["failures"]:
        lines.append("none")
    for f in rep["failures"]:
        lines.append(f"* **{f['symptom']}** in `{f['pass_name']}` ({f['count']}x, first seed {f['first_seed']}): "
                     f"{f['message']} -- bundle `{Path(f['bundle']).name if f['bundle'] else '-'}`")
    return "\n".join(lines) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m relax_ref.testing.campaign", description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, required=True, help="how long to generate programs")
    ap.add_argument("--target", choices=("tvm", "ref"), default="tvm")
    ap.add_argument("--passes", default=None, help="comma-separated pass names (default: a TVM set / every "
                                                   "available relax-ref pass)")
    ap.add_argument("--max-length", type=int, default=4)
    ap.add_argument("--out", default="campaign-out")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sizes", default="1,3")
    ap.add_argument("--shrink-seconds", type=float, default=120.0)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per pass sequence")
    ap.add_argument("--max-programs", type=int, default=None)
    ap.add_argument("--max-bindings", type=int, default=10)
    args = ap.parse_args(argv)
    if args.passes:
        passes = [p.strip() for p in args.passes.split(",") if p.strip()]
    elif args.target == "tvm":
        passes = list(DEFAULT_TVM_PASSES)
    else:
        from .passes import available_passes

        passes = [s.name for s in available_passes()]
    gen = GenConfig(max_bindings=args.max_bindings, op_pattern=True)
    c = Campaign(target=args.target, passes=passes, max_length=args.max_length, out=Path(args.out), seed=args.seed,
                 sizes=[int(s) for s in args.sizes.split(",")], shrink_seconds=args.shrink_seconds,
                 timeout=args.timeout, gen=gen)
    try:
        c.run(args.minutes, args.max_programs)
    finally:
        c.close()
    print(render_markdown(c.report(args.minutes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
