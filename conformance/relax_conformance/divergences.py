"""Known divergences: cases where an implementation is known to disagree with the suite.

The data lives in ``conformance/divergences.json``; ``conformance/DIVERGENCES.md`` is rendered from it
(``relax-conformance divergences``; a test checks the rendering is current). Each entry::

    {"impl": "tvm", "case": "<category>/<name>", "category": "tvm-bug" | "spec-choice" | "unspecified",
     "observed": "what the implementation does", "reason": "why", "reproducer": "optional"}

A case listed for the implementation under test that does not pass is reported as
``known-divergence``; a listed case that passes is reported as a *stale* divergence (and fails the run,
so that the list stays honest).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

DIVERGENCE_CATEGORIES = {
    "tvm-bug": "the implementation is wrong; the reproducer shows it",
    "spec-choice": "the spec deliberately decides differently from the implementation",
    "unspecified": "the implementation's behaviour is outside what the spec requires (e.g. it crashes "
                   "where the spec requires an error)",
}


class DivergenceFileError(ValueError):
    """The divergence file is malformed."""


@dataclass(frozen=True)
class Divergence:
    impl: str
    case: str
    category: str
    observed: str
    reason: str
    reproducer: str = ""


def default_path() -> Path:
    return Path(__file__).resolve().parent.parent / "divergences.json"


def load_divergences(path: Optional[Path] = None) -> list[Divergence]:
    path = Path(path) if path is not None else default_path()
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise DivergenceFileError(f"{path}: not valid JSON ({err})") from None
    if not isinstance(data, dict) or data.get("format_version") != 1 \
            or not isinstance(data.get("divergences"), list):
        raise DivergenceFileError(f"{path}: expected {{\"format_version\": 1, \"divergences\": [...]}}")
    out: list[Divergence] = []
    seen = set()
    for i, d in enumerate(data["divergences"]):
        where = f"{path}: divergences[{i}]"
        if not isinstance(d, dict):
            raise DivergenceFileError(f"{where}: must be an object")
        for key in ("impl", "case", "category", "observed", "reason"):
            if not isinstance(d.get(key), str) or not d[key]:
                raise DivergenceFileError(f"{where}: missing string {key!r}")
        if d["category"] not in DIVERGENCE_CATEGORIES:
            raise DivergenceFileError(f"{where}: category must be one of {list(DIVERGENCE_CATEGORIES)}")
        extra = set(d) - {"impl", "case", "category", "observed", "reason", "reproducer"}
        if extra:
            raise DivergenceFileError(f"{where}: unknown keys {sorted(extra)}")
        key = (d["impl"], d["case"])
        if key in seen:
            raise DivergenceFileError(f"{where}: duplicate entry for {key}")
        seen.add(key)
        out.append(Divergence(d["impl"], d["case"], d["category"], d["observed"], d["reason"],
                              d.get("reproducer", "")))
    return out


def for_impl(divs: list[Divergence], impl: str) -> dict[str, Divergence]:
    return {d.case: d for d in divs if d.impl == impl}


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render_markdown(divs: list[Divergence]) -> str:
    """The text of DIVERGENCES.md."""
    lines = [
        "# Known divergences",
        "",
        "Generated from `conformance/divergences.json` by `relax-conformance divergences`; edit the JSON,",
        "then re-render. The runner reads the JSON: a listed case that does not pass is reported as",
        "`known-divergence` (separately from passes and failures); a listed case that passes is a *stale*",
        "entry and fails the run. Any disagreement not listed here fails.",
        "",
        "Categories:",
        "",
    ]
    for cat, text in DIVERGENCE_CATEGORIES.items():
        lines.append(f"* `{cat}`: {text}.")
    impls = sorted({d.impl for d in divs})
    if not impls:
        lines += ["", "No divergences are recorded."]
    for impl in impls:
        mine = sorted((d for d in divs if d.impl == impl), key=lambda d: (d.category, d.case))
        lines += ["", f"## `{impl}` ({len(mine)} cases)", "",
                  "| case | category | observed | reason | reproducer |", "|---|---|---|---|---|"]
        for d in mine:
            lines.append(f"| `{d.case}` | {d.category} | {_cell(d.observed)} | {_cell(d.reason)} | "
                         f"{_cell(d.reproducer) if d.reproducer else 'the case itself'} |")
    return "\n".join(lines) + "\n"


__all__ = ["Divergence", "DivergenceFileError", "DIVERGENCE_CATEGORIES", "load_divergences", "for_impl",
           "render_markdown", "default_path"]
