"""Reports of a run: the summary matrix (rich), a JSON file and a JUnit XML file."""

from __future__ import annotations

import json
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


def to_json(results: list[CaseResult], impl: str, adapter_name: str, malformed: Sequence = ()) -> dict:
    totals = Counter(r.result for r in results)
    return {
        "impl": impl,
        "adapter": adapter_name,
        "totals": {res: totals.get(res, 0) for res in vocab.RESULTS},
        "unexpected": sum(1 for r in results if is_unexpected(r)),
        "matrix": {cat: {res: c.get(res, 0) for res in vocab.RESULTS} for cat, c in matrix(results).items()},
        "cases": [
            {"id": r.case_id, "category": r.category, "result": r.result, "detail": r.detail,
             "kind": r.kind, "run": r.run_index, "duration_s": round(r.duration, 4),
             "stale_divergence": r.stale_divergence, "behaviour": r.behaviour or None,
             "divergence": None if r.divergence is None else {
                 "category": r.divergence.category, "reason": r.divergence.reason,
                 "behaviour": r.divergence.behaviour}}
            for r in results
        ],
        "malformed": [{"path": getattr(e, "path", ""), "problem": getattr(e, "problem", str(e))}
                      for e in malformed],
    }


def write_json(path: str | Path, results: list[CaseResult], impl: str, adapter_name: str,
               malformed: Sequence = ()) -> None:
    Path(path).write_text(json.dumps(to_json(results, impl, adapter_name, malformed), indent=1) + "\n",
                          encoding="utf-8")


def write_junit(path: str | Path, results: list[CaseResult], impl: str,
                adapter_name: Optional[str] = None, malformed: Sequence = ()) -> None:
    """JUnit XML: one testsuite per category; skips and known divergences are ``<skipped>``; malformed
    case directories are errors of a testsuite ``malformed-cases``."""
    root = ET.Element("testsuites", name=f"relax-conformance {impl}")
    if malformed:
        suite = ET.SubElement(root, "testsuite", name="malformed-cases", tests=str(len(malformed)), failures="0",
                              errors=str(len(malformed)), skipped="0", time="0")
        for e in malformed:
            tc = ET.SubElement(suite, "testcase", classname=f"{impl}.malformed-cases",
                               name=str(getattr(e, "path", e)), time="0")
            ET.SubElement(tc, "error", message="malformed case directory").text = str(e)
    by_cat: dict[str, list[CaseResult]] = defaultdict(list)
    for r in results:
        by_cat[r.category].append(r)
    for cat in sorted(by_cat):
        rs = by_cat[cat]
        suite = ET.SubElement(root, "testsuite", name=cat, tests=str(len(rs)),
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
    ET.ElementTree(root).write(str(path), encoding="utf-8", xml_declaration=True)


__all__ = ["matrix", "print_summary", "to_json", "write_json", "write_junit"]
