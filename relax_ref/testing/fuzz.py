"""The fuzzing harness: ``python -m relax_ref.testing.fuzz --minutes N [--seed S] [--json OUT]``.

Programs are the conformance suite's modules (``conformance/cases``, or ``--cases DIR``), each run
through 0 to 3 text mutations (:mod:`relax_ref.testing.fuzz_mutate`). For every program the
reference, in a worker process (:mod:`relax_ref.testing.fuzz_worker`), parses the text, checks that
its print reads back (TEXT.RT.1), makes right arguments from the entry's struct info and wrong
variants of them, and evaluates all of them; relax_jax, in a worker process of its own, evaluates the
same arguments (``--impl ref`` leaves it out). Outcomes become findings
(:mod:`relax_ref.testing.fuzz_findings`): non-RelaxError exceptions, aborts and hangs of either
implementation, print/parse gaps, and the differential of error behaviour and values between the two.
A value difference that the reference shows too when it is evaluated again with subnormals flushed to
zero is allowed (PRIM.FLOAT.6, :mod:`relax_ref.testing.ftz`; counted as ``ftz_allowed``). The workers
evaluate under budgets that bound the work of a program (:data:`~relax_ref.testing.fuzz_worker.DEFAULT_BUDGETS`),
and a timeout is confirmed with a longer one before it is a hang (``slow_answers`` counts the others);
an abort is confirmed on a fresh worker, and one that is not repeated there is reported apart with its
program (``unrepeated_aborts``: the long-lived worker's state, not the program alone, ended it).
A failure of the harness itself
(classifying the outcomes) is a ``harness`` finding. Findings are deduplicated by signature; the first example of each is minimized (line deletion) within
``--minimize-seconds`` per finding. The JSON report holds the figures (programs, accepted programs,
evaluations per implementation, worker restarts) and each finding with its count and example.

The same seed draws the same programs and arguments (the timing of a run decides how many).
``run_campaign`` is the function behind the command line (the CI test calls it with a few programs).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import ftz
from .fuzz_findings import FindingSet, classify, ddmin_lines, describe_inputs
from .fuzz_mutate import mutate_text
from .fuzz_worker import Response, Worker, WorkerStartError


@dataclass(frozen=True)
class Seed:
    """A module of the suite: its id, text, entry and the argument lists of its first run."""

    origin: str
    text: str
    entry: str
    base: Tuple[Tuple[Any, ...], ...] = ()


def default_cases_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "conformance" / "cases"


def load_seeds(root: Path) -> List[Seed]:
    """The modules of a case tree (``<category>/<name>/module.py`` with ``meta.json``), with the inputs
    of their first run when they are plain arrays. Unreadable cases are skipped."""
    from ..files import read_source
    from ..npz import read_npz

    out = []
    for meta_path in sorted(Path(root).glob("*/*/meta.json")):
        d = meta_path.parent
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            text = read_source(d / "module.py")
        except (OSError, ValueError, RecursionError, Exception):  # noqa: BLE001 - a broken case is skipped
            continue
        base: Tuple[Tuple[Any, ...], ...] = ()
        runs = meta.get("runs") or []
        args = meta.get("args")
        if runs and isinstance(runs[0], dict) and runs[0].get("inputs") and isinstance(args, list) \
                and all(isinstance(a, dict) and a.get("kind") == "tensor" for a in args):
            try:
                arrays = read_npz(d / runs[0]["inputs"])
                base = (tuple(arrays[a["key"]] for a in args),)
            except Exception:  # noqa: BLE001 - inputs are optional
                base = ()
        out.append(Seed(str(d.relative_to(root)), text, str(meta.get("entry", "main")), base))
    return out


@dataclass
class Stats:
    programs: int = 0
    mutated: int = 0
    accepted: int = 0
    evaluations: Dict[str, int] = field(default_factory=dict)
    minimize_checks: int = 0
    #: value differences that the reference shows too when it flushes subnormals (PRIM.FLOAT.6)
    ftz_allowed: int = 0


class Campaign:
    """A fuzzing campaign over ``seeds`` with the implementations ``impls`` (the first is the reference;
    a second one is compared with it)."""

    def __init__(self, seeds: Sequence[Seed], *, seed: int = 0, impls: Sequence[str] = ("ref", "jax"),
                 timeout: float = 20.0, wrong: int = 3, minimize_seconds: float = 30.0,
                 mem_limit: Optional[int] = None) -> None:
        if not seeds:
            raise ValueError("no programs to start from")
        self.seeds = list(seeds)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        kw = {} if mem_limit is None else {"mem_limit": mem_limit}
        self.workers = [Worker(impl, timeout, **kw) for impl in impls]
        self.impls = list(impls)
        self.wrong = wrong
        self.minimize_seconds = minimize_seconds
        self.findings = FindingSet()
        self.stats = Stats(evaluations={i: 0 for i in impls})
        self.started = time.monotonic()
        self.stopped: Optional[str] = None      # why the campaign stopped before its budget, if it did

    # -- one program ---------------------------------------------------------------------------------

    def evaluate(self, text: str, entry: str, seed: int, base, roundtrip: bool = True,
                 impls: Optional[Sequence[int]] = None, confirm: bool = True) -> Tuple[Response, Optional[Response]]:
        """The reference's response and (when a second implementation runs) the other one's."""
        ref = self.workers[0].request(text, entry, seed=seed, wrong=self.wrong, base=base, roundtrip=roundtrip,
                                      confirm=confirm)
        self.stats.evaluations[self.impls[0]] += len(ref.runs)
        other = None
        if len(self.workers) > 1 and ref.parse.kind == "value" and ref.inputs and (impls is None or 1 in impls):
            other = self.workers[1].request(text, entry, inputs=ref.inputs, confirm=confirm)
            self.stats.evaluations[self.impls[1]] += len(other.runs)
        return ref, other

    def classify(self, ref: Response, other: Optional[Response], text: str = "", entry: str = ""):
        found = classify(ref, other, self.impls[0], self.impls[1] if len(self.impls) > 1 else "")
        if text and other is not None and any(f[0] == "value" for f in found) and ftz.available():
            # PRIM.FLOAT.6: a compiling executor may flush subnormals; a value difference that the
            # reference shows too when it flushes them is allowed (the reference is evaluated again)
            flushed = self.workers[0].request(text, entry, inputs=ref.inputs, ftz=True, confirm=False)
            if flushed.parse.kind != "value" or len(flushed.runs) != len(ref.runs):
                return found
            again = classify(flushed, other, self.impls[0], self.impls[1])
            keep = {f[1] for f in again if f[0] == "value"}
            dropped = [f for f in found if f[0] == "value" and f[1] not in keep]
            self.stats.ftz_allowed += len(dropped)
            found = [f for f in found if f not in dropped]
        return found

    def step(self) -> None:
        s = self.seeds[int(self.rng.integers(len(self.seeds)))]
        count = int(self.rng.choice(4, p=[0.15, 0.45, 0.25, 0.15]))
        text, applied = mutate_text(s.text, self.rng, count)
        pseed = int(self.rng.integers(2**31))
        self.stats.programs += 1
        self.stats.mutated += bool(applied)
        ref, other = self.evaluate(text, s.entry, pseed, s.base)
        self.stats.accepted += ref.parse.kind == "value"
        try:
            found = self.classify(ref, other, text, s.entry)
        except Exception as e:  # noqa: BLE001 - a bug of the harness is reported, the campaign goes on
            import traceback

            where = traceback.extract_tb(e.__traceback__)[-1]
            found = [("harness", f"harness|{type(e).__name__}|{where.name}", str(e)[:300], "")]
        for kind, sig, detail, run in found:
            if self.findings.add(kind, sig, detail, run, s.origin, applied, text, describe_inputs(ref, run)):
                self._minimize(self.findings.by_signature[sig], s, pseed)

    def _minimize(self, finding, s: Seed, pseed: int) -> None:
        sig = finding.signature
        if self.minimize_seconds <= 0 or sig.startswith("harness"):
            return
        ref_only = tuple(f"{k}|{self.impls[0]}|" for k in ("crash", "abort", "hang")) + ("roundtrip",)
        needs_other = not sig.startswith(ref_only)

        def still_fails(text: str) -> bool:
            self.stats.minimize_checks += 1
            ref, other = self.evaluate(text, s.entry, pseed, s.base, roundtrip=sig.startswith("roundtrip"),
                                       impls=None if needs_other else (), confirm=False)
            try:
                return any(f[1] == sig for f in self.classify(ref, other, text, s.entry))
            except Exception:  # noqa: BLE001 - reported by the campaign already
                return False

        finding.minimized, finding.minimize_steps = ddmin_lines(finding.text, still_fails, self.minimize_seconds)

    # -- the run ---------------------------------------------------------------------------------------

    def run(self, seconds: float, max_programs: Optional[int] = None, progress: bool = False) -> Dict[str, Any]:
        deadline = self.started + seconds
        try:
            while time.monotonic() < deadline and (max_programs is None or self.stats.programs < max_programs):
                self.step()
                if progress and self.stats.programs % 100 == 0:
                    print(f"  {self.stats.programs} programs, {len(self.findings.by_signature)} findings, "
                          f"{time.monotonic() - self.started:.0f} s", file=sys.stderr)
        except KeyboardInterrupt:
            print("interrupted: reporting what was found so far", file=sys.stderr)
        except WorkerStartError as e:
            self.stopped = str(e)
            print(f"stopped early ({e}): reporting what was found so far", file=sys.stderr)
        finally:
            for w in self.workers:
                w.close()
        return self.report(seconds)

    def report(self, budget: float) -> Dict[str, Any]:
        st = self.stats
        fs = sorted(self.findings.by_signature.values(), key=lambda f: (f.kind, -f.count, f.signature))
        return {
            "seed": self.seed, "budget_s": budget, "elapsed_s": round(time.monotonic() - self.started, 1),
            "impls": self.impls, "programs": st.programs, "mutated_programs": st.mutated,
            "accepted_programs": st.accepted, "evaluations": dict(st.evaluations),
            "minimize_checks": st.minimize_checks,
            "worker_restarts": {w.impl: w.restarts for w in self.workers},
            "slow_answers": {w.impl: w.slow for w in self.workers},
            "unrepeated_aborts": {w.impl: list(w.unrepeated_aborts) for w in self.workers},
            "ftz_allowed": st.ftz_allowed,
            "budgets": dict(self.workers[0].budgets),
            "worker_start_failures": {w.impl: w.start_failures for w in self.workers},
            "stopped_early": self.stopped,
            "findings_by_kind": self.findings.counts_by_kind(),
            "findings": [f.to_json() for f in fs],
        }


def run_campaign(seconds: float, *, seed: int = 0, cases: Optional[Path] = None,
                 impls: Sequence[str] = ("ref", "jax"), max_programs: Optional[int] = None,
                 timeout: float = 20.0, minimize_seconds: float = 30.0, wrong: int = 3,
                 mem_limit: Optional[int] = None, progress: bool = False) -> Dict[str, Any]:
    """Fuzz for ``seconds`` (or ``max_programs`` programs) and return the JSON report."""
    seeds = load_seeds(cases if cases is not None else default_cases_dir())
    c = Campaign(seeds, seed=seed, impls=impls, timeout=timeout, wrong=wrong,
                 minimize_seconds=minimize_seconds, mem_limit=mem_limit)
    return c.run(seconds, max_programs, progress)


def _summary(rep: Dict[str, Any]) -> str:
    lines = [f"{rep['programs']} programs ({rep['mutated_programs']} mutated, {rep['accepted_programs']} "
             f"accepted by the parser) in {rep['elapsed_s']} s, seed {rep['seed']}",
             "evaluations: " + ", ".join(f"{k} {v}" for k, v in rep["evaluations"].items()),
             f"findings: {len(rep['findings'])} signatures "
             + (str(rep["findings_by_kind"]) if rep["findings"] else "")]
    for f in rep["findings"]:
        lines.append(f"  [{f['count']:>4}] {f['signature']}")
    unrepeated = {k: len(v) for k, v in rep.get("unrepeated_aborts", {}).items() if v}
    if unrepeated:
        lines.append(f"aborts a fresh worker did not repeat: {unrepeated}")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m relax_ref.testing.fuzz", description=__doc__.splitlines()[0])
    p.add_argument("--minutes", type=float, default=1.0, help="time budget (default 1)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--impl", default="ref,jax", help="the reference first, then the implementation to compare "
                                                     "(default ref,jax; 'ref' alone: no differential)")
    p.add_argument("--cases", type=Path, default=None, help="a case tree to take modules from")
    p.add_argument("--max-programs", type=int, default=None)
    p.add_argument("--timeout", type=float, default=20.0, help="seconds per program and implementation")
    p.add_argument("--minimize-seconds", type=float, default=30.0)
    p.add_argument("--wrong", type=int, default=3, help="wrong argument lists per program (default 3)")
    p.add_argument("--json", type=Path, default=None, help="write the report here")
    p.add_argument("-q", "--quiet", action="store_true")
    a = p.parse_args(argv)
    rep = run_campaign(a.minutes * 60, seed=a.seed, cases=a.cases, impls=a.impl.split(","),
                       max_programs=a.max_programs, timeout=a.timeout, minimize_seconds=a.minimize_seconds,
                       wrong=a.wrong, progress=not a.quiet)
    if a.json is not None:
        a.json.write_text(json.dumps(rep, indent=1, default=str) + "\n", encoding="utf-8")
    print(_summary(rep))
    return 0


if __name__ == "__main__":
    sys.exit(main())
