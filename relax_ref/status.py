"""The operator status table (spec rule OP.0): every registry entry against inference, reference
semantics (the reference interpreter's table), legalization, JAX lowering (the JAX executor's table,
when ``relax_jax`` is importable), spec page, conformance cases and agreement with TVM.

Read by ``relax-ref ops`` (``--json`` prints one object per operator with the keys ``op``, ``infer``,
``reference``, ``legalize``, ``jax``, ``spec``, ``cases``, ``tvm`` -- the agreement with each TVM release
recorded, ``{"0.25": ..., "0.27": ...}``) and by the generated ``docs/OP_STATUS.md`` which CI checks for
being current.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import AbstractSet, Dict, List, Optional

from .interp.op_table import IMPLEMENTATIONS
from .ops.opdef import OpDef
from .ops.registry import all_ops
from .resources import DataNotFound, data_path, source_path

ROOT = Path(__file__).resolve().parents[1]


def _cases_dir(cases_dir: Optional[Path]) -> Path:
    """``cases_dir``, by default the shipped suite (``relax_ref.resources``)."""
    if cases_dir is not None:
        return Path(cases_dir)
    try:
        return data_path("cases")
    except DataNotFound:
        return Path("<no conformance cases installed>")


def jax_lowered() -> AbstractSet[str]:
    """The operators with a JAX lowering (empty when the executor cannot be imported)."""
    try:
        from relax_jax.lowering import LOWERINGS
    except ImportError:
        return frozenset()
    return frozenset(LOWERINGS)


def conformance_case_counts(cases_dir: Optional[Path] = None) -> Counter:
    """Cases per operator: a case counts for ``relax.<op>`` when its meta.json has the tag
    ``op:<op>`` (e.g. ``op:nn.softmax``)."""
    counts: Counter = Counter()
    cases_dir = _cases_dir(cases_dir)
    if not cases_dir.is_dir():
        return counts
    for meta in cases_dir.rglob("meta.json"):
        try:
            data = json.loads(meta.read_text())
        except (OSError, ValueError):
            continue
        for tag in data.get("tags", []):
            if isinstance(tag, str) and tag.startswith("op:"):
                counts["relax." + tag[3:]] += 1
    return counts


def spec_page_status(d: OpDef) -> Optional[str]:
    """The page path when it exists and is not the template, else None."""
    try:
        page = data_path("spec") / Path(d.spec_page).relative_to("spec")
    except DataNotFound:
        return None
    if page.is_file() and "TEMPLATE" not in page.read_text(errors="replace")[:200]:
        return d.spec_page
    return None


def tvm_agreement() -> Dict[str, Dict[str, str]]:
    """``{release: {operator: agreement}}`` (conformance/tvm_agreement.json), one entry per TVM release
    whose conformance report was recorded."""
    try:
        data = json.loads(data_path("tvm_agreement.json").read_text())
    except (DataNotFound, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)}


def _release_key(release: str):
    return tuple(int(x) if x.isdigit() else 0 for x in release.split("."))


def tvm_releases() -> List[str]:
    """The TVM releases with a recorded agreement, oldest first."""
    return sorted(tvm_agreement(), key=_release_key)


def record_tvm_report(report: dict) -> str:
    """Record the agreement column of a ``relax-conformance run --impl tvm --json`` report under its TVM
    release (``major.minor`` of the report's ``version``); returns the release."""
    import re

    m = re.match(r"(\d+)\.(\d+)", str(report.get("version") or ""))
    if m is None:
        raise ValueError("the report names no TVM version (run it with a relax-conformance that records one)")
    release = f"{m.group(1)}.{m.group(2)}"
    data = tvm_agreement()
    data[release] = agreement_from_report(report)
    source_path("tvm_agreement.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return release


def op_tags_by_case(cases_dir: Optional[Path] = None) -> Dict[str, List[str]]:
    """``category/name`` -> the operators its meta.json tags (``op:<op>``)."""
    out: Dict[str, List[str]] = {}
    cases_dir = _cases_dir(cases_dir)
    for meta in cases_dir.rglob("meta.json"):
        try:
            data = json.loads(meta.read_text())
        except (OSError, ValueError):
            continue
        ops = ["relax." + t[3:] for t in data.get("tags", []) if isinstance(t, str) and t.startswith("op:")]
        if ops:
            out[meta.parent.relative_to(cases_dir).as_posix()] = ops
    return out


def agreement_from_report(report: dict, cases_dir: Optional[Path] = None) -> Dict[str, str]:
    """The ``tvm`` column from a ``relax-conformance run --impl tvm --json`` report: per operator,
    ``agrees (k)`` when every tagged case passed on TVM, else how many passed, how many are listed
    known divergences (conformance/DIVERGENCES.md) and how many failed unexpectedly."""
    tags = op_tags_by_case(cases_dir)
    per_op: Dict[str, Counter] = {}
    for case in report.get("cases", []):
        for op in tags.get(case["id"], []):
            per_op.setdefault(op, Counter())[case["result"]] += 1
    out = {}
    for op, c in sorted(per_op.items()):
        total = sum(c.values())
        if c["pass"] == total:
            out[op] = f"agrees ({total})"
        else:
            parts = [f"{c['pass']}/{total} agree"]
            if c["known-divergence"]:
                parts.append(f"{c['known-divergence']} known divergence")
            bad = c["fail"] + c["error"]
            if bad:
                parts.append(f"{bad} FAIL")
            if c["skip"]:
                parts.append(f"{c['skip']} skipped")
            out[op] = ", ".join(parts)
    return out


def status_rows() -> List[dict]:
    jax = jax_lowered()
    counts = conformance_case_counts()
    tvm = tvm_agreement()
    releases = sorted(tvm, key=_release_key)
    rows = []
    for d in all_ops():
        page = spec_page_status(d)
        rows.append({
            "op": d.name,
            "infer": d.infer is not None,
            "reference": d.name in IMPLEMENTATIONS,
            "legalize": None if d.legalize_exempt else d.legalize is not None,
            "jax": d.name in jax,
            "spec": page is not None,
            "cases": counts.get(d.name, 0),
            "tvm": {r: tvm[r].get(d.name, "untested") for r in releases},
            "category": d.category,
            "spec_page": page,
        })
    return rows


def _mark(v) -> str:
    if v is None:
        return "n/a"
    if v is True:
        return "yes"
    if v is False:
        return "NO"
    return str(v)


def _flat(rows: List[dict]) -> tuple:
    """The columns with one ``tvm X.Y`` column per recorded release, and the rows' values for them."""
    releases = sorted({k for r in rows for k in r["tvm"]}, key=_release_key)
    cols = ["op", "infer", "reference", "legalize", "jax", "spec", "cases"] + [f"tvm {r}" for r in releases]
    flat = [dict(r, **{f"tvm {k}": v for k, v in r["tvm"].items()}) for r in rows]
    return cols, flat


def render_table(rows: List[dict]) -> str:
    cols, flat = _flat(rows)
    data = [[_mark(r[c]) if c != "op" else r[c] for c in cols] for r in flat]
    widths = [max(len(c), *(len(row[i]) for row in data)) if data else len(c) for i, c in enumerate(cols)]
    line = "  ".join(c.ljust(w) for c, w in zip(cols, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    for row in data:
        out.append("  ".join(v.ljust(w) for v, w in zip(row, widths)))
    done = sum(1 for r in rows if all(r[c] in (True, None) for c in ("infer", "reference", "legalize", "jax", "spec"))
               and r["cases"] > 0)
    out.append(f"\n{len(rows)} operators; {done} complete in every column")
    return "\n".join(out)


def render_markdown(rows: List[dict]) -> str:
    """``docs/OP_STATUS.md``: the same table with links to the spec pages."""
    cols, flat = _flat(rows)
    cols = cols[1:]
    lines = [
        "# Operator status",
        "",
        "Generated by `python -m relax_ref.status --write` from the operator registry; CI checks that it",
        "is current. `n/a`: legalization does not apply (the reason is in the spec page). `tvm X.Y`: the",
        "operator's conformance cases run on that TVM release (`relax-conformance run --impl tvm --json R`",
        "with the release installed, then `python -m relax_ref.status --tvm-report R --write`); known",
        "divergences, per release, are explained in [conformance/DIVERGENCES.md](../conformance/DIVERGENCES.md).",
        "",
    ]
    for release in sorted({k for r in rows for k in r["tvm"]}, key=_release_key):
        marks = [r["tvm"][release] for r in rows]
        tested = [m for m in marks if m != "untested"]
        lines.append(f"TVM {release}: {sum(1 for m in tested if m.startswith('agrees'))} of {len(tested)} "
                     f"operators with cases agree on every case, "
                     f"{sum(1 for m in tested if 'FAIL' in m)} fail unexpectedly.")
        lines.append("")
    lines += [
        "| op | " + " | ".join(cols) + " |",
        "|---|" + "---|" * len(cols),
    ]
    for r in flat:
        name = r["op"]
        link = f"[{name}](../{r['spec_page']})" if r["spec_page"] else name
        lines.append(f"| {link} | " + " | ".join(_mark(r[c]) for c in cols) + " |")
    lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--write", action="store_true", help="write docs/OP_STATUS.md")
    ap.add_argument("--check", action="store_true", help="fail if docs/OP_STATUS.md is stale")
    ap.add_argument("--tvm-report", metavar="JSON",
                    help="first record the tvm column (conformance/tvm_agreement.json) from the JSON report of "
                         "`relax-conformance run --impl tvm --json JSON`")
    a = ap.parse_args(argv)
    if a.tvm_report:
        report = json.loads(Path(a.tvm_report).read_text())
        runs = report.get("runs") if isinstance(report.get("runs"), list) else [report]
        report = next((r for r in runs if isinstance(r, dict) and r.get("impl") == "tvm"), runs[0] if runs else {})
        if report.get("impl") != "tvm":
            ap.error(f"{a.tvm_report} is a report for {report.get('impl')!r}, not tvm")
        try:
            record_tvm_report(report)
        except ValueError as err:
            ap.error(f"{a.tvm_report}: {err}")
    text = render_markdown(status_rows())
    target = ROOT / "docs" / "OP_STATUS.md"
    if a.write:
        target.write_text(text)
        return 0
    if a.check:
        if not target.is_file() or target.read_text() != text:
            print("docs/OP_STATUS.md is stale: run python -m relax_ref.status --write")
            return 1
        return 0
    print(text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
