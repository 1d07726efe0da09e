"""Known divergences: cases where an implementation is known to disagree with the suite.

The data lives in ``conformance/divergences.json``; ``conformance/DIVERGENCES.md`` is rendered from it
(``relax-conformance divergences``; a test checks the rendering is current). Each entry::

    {"impl": "tvm", "case": "<category>/<name>", "category": "tvm-bug" | "spec-choice" | "unspecified",
     "behaviour": "run 0: error crash", "observed": "what the implementation does", "reason": "why",
     "reproducer": "optional"}

``behaviour`` is what decides the case's failure, in the runner's fixed form (``load: error KIND``,
``load: no error``, ``run N: error KIND``, ``run N: wrong value``, ``run N: a value``, ``adapter error``;
see :mod:`relax_conformance.runner`). A listed case that fails *with that behaviour* is reported as
``known-divergence``; one that fails differently is a failure like any other (the entry says what
was expected); a listed case that passes is a *stale* divergence (and fails the run, so that the list
stays honest). ``relax-conformance divergences --record REPORT.json`` copies the behaviours of a run's
JSON report into the file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

DIVERGENCE_CATEGORIES = {
    "tvm-bug": "the implementation is wrong; the reproducer shows it",
    "spec-choice": "the spec deliberately decides differently from the implementation",
    "unspecified": "the implementation's behaviour is outside what the spec requires (e.g. it crashes "
                   "where the spec requires an error)",
}


#: The form of a recorded behaviour (see :mod:`relax_conformance.runner`).
BEHAVIOUR_RE = re.compile(r"(load: (no error|error [a-z_]+(@[a-z_]+)?)"
                          r"|run \d+: (error [a-z_]+(@[a-z_]+)?|wrong value|a value)"
                          r"|adapter error|case data)")

_KEYS = ("impl", "case", "category", "behaviour", "observed", "reason")


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
    behaviour: str = ""


def default_path() -> Path:
    """The shipped list: package data of an installed wheel, ``conformance/divergences.json`` in a
    checkout."""
    from relax_ref.resources import data_path

    return data_path("divergences.json")


def load_divergences(path: Optional[Path] = None) -> list[Divergence]:
    path = Path(path) if path is not None else default_path()
    if not path.exists():
        return []
    data = _read(path)
    out: list[Divergence] = []
    seen = set()
    for i, d in enumerate(data["divergences"]):
        where = f"{path}: divergences[{i}]"
        if not isinstance(d, dict):
            raise DivergenceFileError(f"{where}: must be an object")
        for key in _KEYS:
            if not isinstance(d.get(key), str) or not d[key]:
                raise DivergenceFileError(f"{where}: missing string {key!r}")
        if d["category"] not in DIVERGENCE_CATEGORIES:
            raise DivergenceFileError(f"{where}: category must be one of {list(DIVERGENCE_CATEGORIES)}")
        if not BEHAVIOUR_RE.fullmatch(d["behaviour"]):
            raise DivergenceFileError(f"{where}: behaviour {d['behaviour']!r} is not of the form 'load: error KIND', "
                                      "'load: no error', 'run N: error KIND', 'run N: wrong value', "
                                      "'run N: a value' or 'adapter error'")
        if not isinstance(d.get("reproducer", ""), str):
            raise DivergenceFileError(f"{where}: 'reproducer' must be a string")
        extra = set(d) - set(_KEYS) - {"reproducer"}
        if extra:
            raise DivergenceFileError(f"{where}: unknown keys {sorted(extra)}")
        key = (d["impl"], d["case"])
        if key in seen:
            raise DivergenceFileError(f"{where}: duplicate entry for {key}")
        seen.add(key)
        out.append(Divergence(d["impl"], d["case"], d["category"], d["observed"], d["reason"],
                              d.get("reproducer", ""), d["behaviour"]))
    return out


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as err:
        raise DivergenceFileError(f"{path}: not valid JSON ({type(err).__name__}: {err})") from None
    except OSError as err:
        raise DivergenceFileError(f"{path}: cannot read ({err.strerror or err})") from None
    if not isinstance(data, dict) or data.get("format_version") != 1 \
            or not isinstance(data.get("divergences"), list):
        raise DivergenceFileError(f"{path}: expected {{\"format_version\": 1, \"divergences\": [...]}}")
    return data


def dump_file(entries: list[dict]) -> str:
    """The text of a divergence file: one entry per line, keys in the canonical order."""
    order = ("impl", "case", "category", "behaviour", "observed", "reason", "reproducer")
    lines = [json.dumps({k: e[k] for k in order if k in e} | {k: v for k, v in e.items() if k not in order})
             for e in entries]
    return '{\n "format_version": 1,\n "divergences": [\n' + ",\n".join("  " + ln for ln in lines) + "\n]\n}\n"


def record_behaviours(path: Optional[Path], report: dict, impl: Optional[str] = None) -> tuple[str, list[str]]:
    """Set the ``behaviour`` of every entry of ``impl`` (default: the report's) from a JSON report of a
    run (``relax-conformance run --json``); returns ``(new file text, notes)``. An entry whose case
    passed in the report is kept and noted as stale; one whose case the report lacks is noted."""
    path = Path(path) if path is not None else default_path()
    data = _read(path)
    runs = report.get("runs")
    if isinstance(runs, list):  # a report of several implementations: the one of ``impl``
        mine = [r for r in runs if isinstance(r, dict) and (impl is None or r.get("impl") == impl)]
        if len(mine) != 1:
            raise DivergenceFileError(f"the report holds runs of {', '.join(str(r.get('impl')) for r in runs)}: "
                                      "name the implementation to record (--divergence-key)")
        report = mine[0]
    impl = impl or report.get("impl")
    cases = {c.get("id"): c for c in report.get("cases", []) if isinstance(c, dict)}
    notes: list[str] = []
    for e in data["divergences"]:
        if not isinstance(e, dict) or e.get("impl") != impl:
            continue
        c = cases.get(e.get("case"))
        if c is None:
            notes.append(f"{e.get('case')}: not in the report; behaviour left as is")
        elif c.get("result") == "pass":
            notes.append(f"{e.get('case')}: passes in the report (a stale entry); behaviour left as is")
        elif c.get("behaviour"):
            e["behaviour"] = c["behaviour"]
        else:
            notes.append(f"{e.get('case')}: the report gives no behaviour ({c.get('result')})")
    return dump_file(data["divergences"]), notes


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
        "then re-render. The runner reads the JSON: a listed case that fails with the recorded behaviour",
        "is reported as `known-divergence` (separately from passes and failures); a listed case that fails",
        "with another behaviour is a failure; a listed case that passes is a *stale* entry and fails the",
        "run. Any disagreement not listed here fails. The behaviour is the runner's description of what",
        "decided the failure (`load: error KIND`, `load: no error`, `run N: error KIND`, `run N: wrong value`,",
        "`run N: a value` when an error was expected, `adapter error`); `relax-conformance divergences",
        "--record REPORT.json` copies it from the JSON report of a run.",
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
                  "| case | category | behaviour | observed | reason | reproducer |", "|---|---|---|---|---|---|"]
        for d in mine:
            lines.append(f"| `{d.case}` | {d.category} | `{d.behaviour}` | {_cell(d.observed)} | {_cell(d.reason)} | "
                         f"{_cell(d.reproducer) if d.reproducer else 'the case itself'} |")
    return "\n".join(lines) + "\n"


__all__ = ["Divergence", "DivergenceFileError", "DIVERGENCE_CATEGORIES", "BEHAVIOUR_RE", "load_divergences",
           "for_impl", "render_markdown", "default_path", "record_behaviours", "dump_file"]
