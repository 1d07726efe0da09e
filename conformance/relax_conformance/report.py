"""Reports of a run: the summary matrix (rich), a JSON file and a JUnit XML file."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from pathlib import Path
from typing import Optional, Sequence

from . import vocab
from .runner import CaseResult, is_unexpected


def matrix(results: list[CaseResult]) -> dict[str, Counter]:
    m: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        m[r.category][r.result] += 1
    return dict(sorted(m.items()))


def print_summary(results: list[CaseResult], impl: str, adapter_name: str, console=None,
                  max_details: int = 60) -> None:
    """Print the category x result matrix, then failures, errors, known and stale divergences."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console(stderr=False)
    table = Table(title=f"relax-conformance: {impl} ({adapter_name})")
    table.add_column("category")
    for res in vocab.RESULTS:
        table.add_column(res, justify="right")
    table.add_column("total", justify="right")
    totals: Counter = Counter()
    for cat, counts in matrix(results).items():
        totals.update(counts)
        table.add_row(cat, *[str(counts.get(res, 0) or "") for res in vocab.RESULTS], str(sum(counts.values())))
    table.add_row("[b]all[/b]", *[f"[b]{totals.get(res, 0)}[/b]" for res in vocab.RESULTS],
                  f"[b]{sum(totals.values())}[/b]")
    console.print(table)

    def section(title: str, rows: list[CaseResult], brief: bool = False) -> None:
        if not rows:
            return
        console.print(f"\n[b]{title}[/b] ({len(rows)})")
        for r in rows[:max_details]:
            run = f" [run {r.run_index}]" if r.run_index is not None else ""
            text = r.detail.strip().splitlines()
            first = text[0] if text else ""
            if brief and r.divergence is not None:
                short = first if len(first) <= 100 else first[:97] + "..."
                console.print(f"  {r.case_id}{run}: [{r.divergence.category}] {r.divergence.reason}",
                              markup=False, highlight=False, soft_wrap=True)
                console.print(f"      got: {short}", markup=False, highlight=False, soft_wrap=True)
                continue
            console.print(f"  {r.case_id}{run}: {first}", markup=False, highlight=False, soft_wrap=True)
            # a traceback says the most at its end
            rest = text[-6:] if r.result == "error" and len(text) > 7 else text[1:8]
            for extra in rest:
                console.print(f"      {extra}", markup=False, highlight=False, soft_wrap=True)
        if len(rows) > max_details:
            console.print(f"  ... and {len(rows) - max_details} more (see --json)")

    section("failures", [r for r in results if r.result == "fail"])
    section("errors (adapter crashed)", [r for r in results if r.result == "error"])
    section("known divergences", [r for r in results if r.result == "known-divergence"], brief=True)
    stale = [r for r in results if r.stale_divergence]
    if stale:
        console.print(f"\n[b]stale divergences[/b] ({len(stale)}): listed as divergences but passing; "
                      "remove them from divergences.json")
        for r in stale:
            console.print(f"  {r.case_id}", markup=False)
    bad = sum(1 for r in results if is_unexpected(r))
    console.print(f"\n{'[red]FAILED[/red]' if bad else '[green]OK[/green]'}: {bad} unexpected result(s) "
                  f"out of {len(results)} case(s)")


def to_json(results: list[CaseResult], impl: str, adapter_name: str, malformed: Sequence = (),
            version: Optional[str] = None) -> dict:
    totals = Counter(r.result for r in results)
    return {
        "impl": impl,
        "adapter": adapter_name,
        "version": version,
        "totals": {res: totals.get(res, 0) for res in vocab.RESULTS},
        "unexpected": sum(1 for r in results if is_unexpected(r)),
        "matrix": {cat: {res: c.get(res, 0) for res in vocab.RESULTS} for cat, c in matrix(results).items()},
        "cases": [
            {"id": r.case_id, "category": r.category, "result": r.result, "detail": r.detail,
             "kind": r.kind, "run": r.run_index, "duration_s": round(r.duration, 4),
             "stale_divergence": r.stale_divergence, "behaviour": r.behaviour or None,
             "divergence": None if r.divergence is None else {
                 "category": r.divergence.category, "reason": r.divergence.reason,
                 "behaviour": r.divergence.behaviour, "versions": list(r.divergence.versions) or None}}
            for r in results
        ],
        "malformed": [{"path": getattr(e, "path", ""), "problem": getattr(e, "problem", str(e))}
                      for e in malformed],
    }


#: one run of the suite on one implementation: ``(impl, adapter name, results)``
Run = tuple


def impl_label(impl: str, adapter_name: Optional[str] = None) -> str:
    """A short name of an implementation for reports (a JUnit class name): ``ref``, ``jax``, ``tvm``;
    the class of a ``MODULE:CLASS`` adapter; for ``cmd:PROGRAM`` the name the program gives itself in
    the handshake, else the stem of its last word that is not an option -- never the whole command
    line."""
    if impl.startswith("cmd:"):
        words = [w for w in impl[4:].split() if not w.startswith("-")]
        name = adapter_name if adapter_name and adapter_name != impl[4:] else \
            (Path(words[-1]).stem if words else "cmd")
    elif ":" in impl:
        name = impl.rpartition(":")[2]
    else:
        name = impl
    return re.sub(r"[^A-Za-z0-9_+-]+", "_", name).strip("_") or "impl"


def write_json(path: str | Path, results: list[CaseResult], impl: str, adapter_name: str,
               malformed: Sequence = (), version: Optional[str] = None) -> None:
    """The report of one implementation's run (:func:`to_json`)."""
    Path(path).write_text(json.dumps(to_json(results, impl, adapter_name, malformed, version), indent=1) + "\n",
                          encoding="utf-8")


def write_json_runs(path: str | Path, runs: Sequence[Run], malformed: Sequence = (),
                    versions: Optional[dict] = None) -> None:
    """One file for a run on several implementations: ``{"runs": [report, ...]}``, one
    :func:`to_json` report per implementation in the order run (:func:`runs_of` reads either form);
    ``versions``: each implementation's version, if it states one."""
    doc = {"runs": [to_json(results, impl, name, malformed, (versions or {}).get(impl))
                    for impl, name, results in runs]}
    Path(path).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


def runs_of(report: dict) -> list[dict]:
    """The per-implementation reports of a JSON report file: its ``runs``, or the report itself."""
    runs = report.get("runs")
    if isinstance(runs, list):
        return [r for r in runs if isinstance(r, dict)]
    return [report]


def write_junit(path: str | Path, results: list[CaseResult], impl: str,
                adapter_name: Optional[str] = None, malformed: Sequence = ()) -> None:
    """JUnit XML of one implementation's run (:func:`write_junit_runs`)."""
    write_junit_runs(path, [(impl, adapter_name, results)], malformed)


def write_junit_runs(path: str | Path, runs: Sequence[Run], malformed: Sequence = ()) -> None:
    """JUnit XML: a ``testsuites`` root with the totals, one testsuite per implementation and category
    (class names ``<impl>.<category>``, :func:`impl_label`); skips and known divergences are
    ``<skipped>``; malformed case directories are errors of a testsuite ``malformed-cases``."""
    labels = [impl_label(impl, name) for impl, name, _ in runs]
    root = ET.Element("testsuites", name="relax-conformance " + ",".join(labels))
    if malformed:
        suite = ET.SubElement(root, "testsuite", name="malformed-cases", tests=str(len(malformed)), failures="0",
                              errors=str(len(malformed)), skipped="0", time="0")
        for e in malformed:
            tc = ET.SubElement(suite, "testcase", classname="malformed-cases",
                               name=str(getattr(e, "path", e)), time="0")
            ET.SubElement(tc, "error", message="malformed case directory").text = str(e)
    for label, (_, _, results) in zip(labels, runs):
        _junit_suites(root, label, results, prefix=len(runs) > 1)
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in root.iter("testsuite"))))
    root.set("time", f"{sum(float(s.get('time', '0')) for s in root.iter('testsuite')):.3f}")
    ET.ElementTree(root).write(str(path), encoding="utf-8", xml_declaration=True)


def _junit_suites(root: ET.Element, impl: str, results: list[CaseResult], prefix: bool) -> None:
    by_cat: dict[str, list[CaseResult]] = defaultdict(list)
    for r in results:
        by_cat[r.category].append(r)
    for cat in sorted(by_cat):
        rs = by_cat[cat]
        suite = ET.SubElement(root, "testsuite", name=f"{impl}.{cat}" if prefix else cat, tests=str(len(rs)),
                              failures=str(sum(r.result == "fail" or r.stale_divergence for r in rs)),
                              errors=str(sum(r.result == "error" for r in rs)),
                              skipped=str(sum(r.result in ("skip", "known-divergence") for r in rs)),
                              time=f"{sum(r.duration for r in rs):.3f}")
        for r in rs:
            tc = ET.SubElement(suite, "testcase", classname=f"{impl}.{cat}", name=r.case_id.split("/", 1)[-1],
                               time=f"{r.duration:.3f}")
            if r.result == "fail":
                ET.SubElement(tc, "failure", message=(r.detail.splitlines() or [""])[0][:500]).text = r.detail
            elif r.result == "error":
                ET.SubElement(tc, "error", message="adapter error").text = r.detail
            elif r.result == "skip":
                ET.SubElement(tc, "skipped", message=r.detail)
            elif r.result == "known-divergence":
                msg = f"known divergence ({r.divergence.category}): {r.divergence.reason}" if r.divergence else ""
                ET.SubElement(tc, "skipped", type="known-divergence", message=msg).text = r.detail
            if r.stale_divergence:
                ET.SubElement(tc, "failure", message="stale divergence: the case passes but is listed")


__all__ = ["matrix", "print_summary", "to_json", "write_json", "write_json_runs", "runs_of", "write_junit",
           "write_junit_runs", "impl_label"]
