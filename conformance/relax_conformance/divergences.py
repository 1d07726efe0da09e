"""Known divergences: cases where an implementation is known to disagree with the suite.

The data lives in ``conformance/divergences.json``; ``conformance/DIVERGENCES.md`` is rendered from it
(``relax-conformance divergences``; a test checks the rendering is current). Each entry::

    {"impl": "tvm", "case": "<category>/<name>", "category": "tvm-bug" | "spec-choice" | "unspecified",
     "behaviour": "run 0: error crash", "observed": "what the implementation does", "reason": "why",
     "versions": ["0.25", "0.27"], "reproducer": "optional"}

``behaviour`` is what decides the case's failure, in the runner's fixed form (``load: error KIND``,
``load: no error``, ``run N: error KIND``, ``run N: wrong value``, ``run N: a value``, ``adapter error``;
see :mod:`relax_conformance.runner`). A listed case that fails *with that behaviour* is reported as
``known-divergence``; one that fails differently is a failure like any other (the entry says what
was expected); a listed case that passes is a *stale* divergence (and fails the run, so that the list
stays honest). ``relax-conformance divergences --record REPORT.json`` copies the behaviours of a run's
JSON report into the file.

``versions`` (optional) lists the releases of the implementation that show the divergence, as
``major.minor`` (``"0.25"``); an entry without it holds for every version. An adapter that states its
``version`` (the TVM adapter: ``tvm.__version__``) is judged against the entries for its release only,
so a divergence that a release no longer shows is stale for that release alone, and a case may have one
entry per release when the releases behave differently (no two entries of a case share a release). An
adapter that states no version is judged against every entry (of two for one case, the later one).
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
    versions: tuple = ()          # the releases that show it ("0.25", ...); () = every version

    def applies_to(self, version: Optional[str]) -> bool:
        """Does the entry hold for an implementation of ``version`` (None: unknown, every entry)?"""
        return version is None or not self.versions or release_of(version) in self.versions


def release_of(version: str) -> str:
    """``"0.27.0.post1"`` -> ``"0.27"``: the release a version belongs to (its first two numbers)."""
    m = re.match(r"\s*(\d+)\.(\d+)", str(version))
    return f"{m.group(1)}.{m.group(2)}" if m else str(version).strip()


_VERSION_RE = re.compile(r"\d+\.\d+")


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
    seen: dict = {}  # (impl, case) -> the releases listed so far ("*": every release)
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
        versions = d.get("versions", [])
        if not isinstance(versions, list) or not all(isinstance(v, str) and _VERSION_RE.fullmatch(v)
                                                     for v in versions) or "versions" in d and not versions:
            raise DivergenceFileError(f"{where}: 'versions' must be a non-empty list of releases such as "
                                      "[\"0.25\", \"0.27\"]")
        if len(set(versions)) != len(versions):
            raise DivergenceFileError(f"{where}: 'versions' lists a release twice")
        extra = set(d) - set(_KEYS) - {"reproducer", "versions"}
        if extra:
            raise DivergenceFileError(f"{where}: unknown keys {sorted(extra)}")
        prev, mine = seen.setdefault((d["impl"], d["case"]), set()), set(versions) or {"*"}
        if "*" in prev or ("*" in mine and prev) or prev & mine:
            shared = f" for release {', '.join(sorted(prev & mine))}" if prev & mine - {"*"} else ""
            raise DivergenceFileError(f"{where}: duplicate entry for {(d['impl'], d['case'])}{shared}")
        prev |= mine
        out.append(Divergence(d["impl"], d["case"], d["category"], d["observed"], d["reason"],
                              d.get("reproducer", ""), d["behaviour"], tuple(versions)))
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
    order = ("impl", "case", "category", "behaviour", "versions", "observed", "reason", "reproducer")
    lines = [json.dumps({k: e[k] for k in order if k in e} | {k: v for k, v in e.items() if k not in order})
             for e in entries]
    return '{\n "format_version": 1,\n "divergences": [\n' + ",\n".join("  " + ln for ln in lines) + "\n]\n}\n"


def _entry_applies(e: dict, release: Optional[str]) -> bool:
    return release is None or not e.get("versions") or release in e["versions"]


def record_behaviours(path: Optional[Path], report: dict, impl: Optional[str] = None) -> tuple[str, list[str]]:
    """Set the ``behaviour`` of every entry of ``impl`` (default: the report's) that holds for the
    report's version (all of them when the report states none) from a JSON report of a run
    (``relax-conformance run --json``); returns ``(new file text, notes)``. An entry shared with other
    releases whose case now behaves differently is split: the report's release gets an entry of its
    own (its observation and reason copied, to be reviewed). An entry whose case passed in the report is
    kept and noted as stale for that release; one whose case the report lacks is noted."""
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
    release = release_of(report["version"]) if report.get("version") else None
    cases = {c.get("id"): c for c in report.get("cases", []) if isinstance(c, dict)}
    notes: list[str] = []
    out: list = []
    on = f" on {impl} {release}" if release else " in the report"
    for e in data["divergences"]:
        out.append(e)
        if not isinstance(e, dict) or e.get("impl") != impl or not _entry_applies(e, release):
            continue
        c = cases.get(e.get("case"))
        if c is None:
            notes.append(f"{e.get('case')}: not in the report; behaviour left as is")
        elif c.get("result") == "pass":
            notes.append(f"{e.get('case')}: passes{on} (a stale entry"
                         f"{f': remove {release} from its versions' if release and e.get('versions') else ''}); "
                         "behaviour left as is")
        elif c.get("result") == "skip":
            notes.append(f"{e.get('case')}: skipped{on}; behaviour left as is")
        elif not c.get("behaviour"):
            notes.append(f"{e.get('case')}: the report gives no behaviour ({c.get('result')})")
        elif c["behaviour"] != e.get("behaviour") and release and len(e.get("versions") or ()) > 1:
            e["versions"] = [v for v in e["versions"] if v != release]
            out.append(dict(e, behaviour=c["behaviour"], versions=[release]))
            notes.append(f"{e.get('case')}: behaves as '{c['behaviour']}'{on}, not '{e['behaviour']}': a new entry "
                         f"for {release} (review its observation and reason)")
        else:
            e["behaviour"] = c["behaviour"]
    return dump_file(out), notes


def for_impl(divs: list[Divergence], impl: str, version: Optional[str] = None) -> dict[str, Divergence]:
    """The entries of ``impl`` that hold for ``version`` (module docstring), by case."""
    return {d.case: d for d in divs if d.impl == impl and d.applies_to(version)}


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
        "The versions column lists the releases of the implementation that show the divergence (`all`: every",
        "release); a run is judged against the entries for the release it runs, so an entry is stale only",
        "for a release that no longer shows it, and a case that behaves differently in two releases has an",
        "entry for each.",
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
        mine = sorted((d for d in divs if d.impl == impl), key=lambda d: (d.category, d.case, d.versions))
        releases = sorted({v for d in mine for v in d.versions}, key=lambda v: tuple(int(x) for x in v.split(".")))
        per = "".join(f"; {r}: {sum(1 for d in mine if d.applies_to(r))}" for r in releases)
        lines += ["", f"## `{impl}` ({len({d.case for d in mine})} cases{per})", "",
                  "| case | category | versions | behaviour | observed | reason | reproducer |",
                  "|---|---|---|---|---|---|---|"]
        for d in mine:
            lines.append(f"| `{d.case}` | {d.category} | {', '.join(d.versions) or 'all'} | `{d.behaviour}` | "
                         f"{_cell(d.observed)} | {_cell(d.reason)} | "
                         f"{_cell(d.reproducer) if d.reproducer else 'the case itself'} |")
    return "\n".join(lines) + "\n"


__all__ = ["Divergence", "DivergenceFileError", "DIVERGENCE_CATEGORIES", "BEHAVIOUR_RE", "load_divergences",
           "for_impl", "render_markdown", "default_path", "record_behaviours", "dump_file", "release_of"]
