"""Reading and validating case directories (format v1, see ``conformance/FORMAT.md``).

A case is a directory ``<category>/<name>/`` holding ``module.py``, ``meta.json`` and the npz files
its runs name. Its id is ``<category>/<name>``. :func:`load_case` validates everything (including
that every npz member the specs name exists and decodes) and raises :class:`CaseFormatError` with
the path and the problem; :func:`discover_cases` collects every problem of a tree at once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Optional

from . import vocab
from .npz import NpzError, read_npz
from .values import ValueSpecError, check_spec, decode

META = "meta.json"
MODULE = "module.py"

_TOP_KEYS = {
    "format_version", "description", "entry", "expect", "error_kind", "args", "outputs", "runs", "rtol",
    "atol", "spec", "tags", "oracle", "spelling", "requires", "generator",
}
_REQUIRED = ("format_version", "entry", "expect", "runs", "spec", "tags", "oracle")
_RUN_KEYS = {"inputs", "expected", "expect", "error_kind", "rtol", "atol", "args", "outputs", "note"}
SPELLINGS = ("tvm", "classic")
#: Size limits of a case's text files (the suite's largest are a few kilobytes).
MAX_META_BYTES = 1 << 20
MAX_MODULE_BYTES = 8 << 20
DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6


class CaseFormatError(ValueError):
    """A case directory does not follow the case format."""

    def __init__(self, path: Path | str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = str(path)
        self.problem = problem


@dataclass(frozen=True)
class RunSpec:
    """One run of a case: positional arguments from ``inputs``, and what must happen."""

    index: int
    inputs: str
    expected: Optional[str]
    expect: str                 # "return" or "runtime_error"
    error_kind: Optional[str]
    rtol: float
    atol: float
    args: tuple                 # value specs, one per positional argument
    outputs: Optional[dict]     # value spec of the result (for "return")
    note: str = ""


@dataclass(frozen=True)
class CaseSpec:
    """A validated case."""

    path: Path
    category: str
    name: str
    text: str
    entry: str
    expect: str
    error_kind: Optional[str]
    runs: tuple
    spec: tuple
    tags: tuple
    oracle: str
    spelling: str
    requires: tuple
    description: str = ""
    generator: Optional[str] = None

    @property
    def id(self) -> str:
        return f"{self.category}/{self.name}"

    def inputs(self, run: RunSpec) -> list:
        """The positional argument values of ``run``."""
        arrays = read_npz(self.path / run.inputs)
        return [decode(s, arrays, f"args[{i}]") for i, s in enumerate(run.args)]

    def expected(self, run: RunSpec) -> Any:
        """The expected result value of a ``return`` run."""
        if run.expected is None or run.outputs is None:
            raise CaseFormatError(self.path, f"run {run.index} has no expected value")
        return decode(run.outputs, read_npz(self.path / run.expected), "outputs")


def _fail(path: Path, problem: str) -> CaseFormatError:
    return CaseFormatError(path, problem)


def _str_list(meta: dict, key: str, path: Path) -> tuple:
    v = meta.get(key, [])
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise _fail(path, f"'{key}' must be a list of strings")
    return tuple(v)


def _tol(d: dict, key: str, default: float, path: Path, where: str) -> float:
    v = d.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
        raise _fail(path, f"{where}: '{key}' must be a non-negative number")
    return float(v)


def _error_kind(d: dict, path: Path, where: str, default: Optional[str] = None) -> Optional[str]:
    k = d.get("error_kind", default)
    if k is not None and k not in vocab.EXPECTABLE_KINDS:
        raise _fail(path, f"{where}: unknown error_kind {k!r} (see the vocabulary in FORMAT.md)")
    return k


def _check_kind_phase(path: Path, where: str, expect: str, kind: Optional[str]) -> None:
    if kind is None:
        return
    if expect == "return":
        raise _fail(path, f"{where}: expect 'return' cannot have an error_kind")
    phase = vocab.expect_for_kind(kind)
    if phase is not None and phase != expect:
        raise _fail(path, f"{where}: error_kind {kind!r} belongs to '{phase}', not to expect '{expect}'")


def _read_text(path: Path, limit: int) -> str:
    """The UTF-8 text of ``path``; a file larger than ``limit`` bytes or not UTF-8 is a format error."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as err:
        raise _fail(path, f"cannot read ({err.strerror or err})") from None
    if len(data) > limit:
        raise _fail(path, f"larger than the limit of {limit} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise _fail(path, f"not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start})") from None


def _read_json(path: Path) -> Any:
    text = _read_text(path, MAX_META_BYTES)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise _fail(path, f"not valid JSON ({err})") from None
    except RecursionError:
        raise _fail(path, "not readable JSON (nested too deeply)") from None
    except ValueError as err:  # e.g. an integer literal with more digits than Python converts
        raise _fail(path, f"not readable JSON ({err})") from None


def _load_run(meta_path: Path, i: int, r: Any, expect: str, error_kind: Any, case_args: Any, case_outputs: Any,
              rtol: float, atol: float) -> RunSpec:
    """Validate ``runs[i]`` of a meta.json; its defaults come from the case."""
    where = f"runs[{i}]"
    if not isinstance(r, dict):
        raise _fail(meta_path, f"{where} must be an object")
    bad = sorted(set(r) - _RUN_KEYS)
    if bad:
        raise _fail(meta_path, f"{where}: unknown keys {bad}")
    r_expect = r.get("expect", expect)
    if r_expect not in ("return", "runtime_error"):
        raise _fail(meta_path, f"{where}: a run expects 'return' or 'runtime_error', got {r_expect!r}")
    r_kind = _error_kind(r, meta_path, where, error_kind if r_expect == expect else None)
    _check_kind_phase(meta_path, where, r_expect, r_kind)
    args = r.get("args", case_args)
    outputs = r.get("outputs", case_outputs)
    if not isinstance(args, list):
        raise _fail(meta_path, f"{where}: 'args' must be a list of value specs")
    try:
        for j, a in enumerate(args):
            check_spec(a, f"{where}.args[{j}]")
        if r_expect == "return":
            if outputs is None:
                raise ValueSpecError(f"{where}: a 'return' run needs 'outputs'")
            check_spec(outputs, f"{where}.outputs")
    except ValueSpecError as err:
        raise _fail(meta_path, str(err)) from None
    inputs = r.get("inputs")
    if not isinstance(inputs, str) or "/" in inputs or not inputs.endswith(".npz"):
        raise _fail(meta_path, f"{where}: 'inputs' must name an npz file in the case directory")
    expected = r.get("expected")
    if r_expect == "return" and not isinstance(expected, str):
        raise _fail(meta_path, f"{where}: a 'return' run needs an 'expected' npz file")
    if r_expect == "runtime_error" and expected is not None:
        raise _fail(meta_path, f"{where}: a 'runtime_error' run must have \"expected\": null")
    if expected is not None and ("/" in expected or not expected.endswith(".npz")):
        raise _fail(meta_path, f"{where}: 'expected' must name an npz file in the case directory")
    note = r.get("note", "")
    if not isinstance(note, str):
        raise _fail(meta_path, f"{where}: 'note' must be a string")
    return RunSpec(i, inputs, expected, r_expect, r_kind,
                   _tol(r, "rtol", rtol, meta_path, where), _tol(r, "atol", atol, meta_path, where),
                   tuple(args), outputs if r_expect == "return" else None, note)


def load_case(case_dir: str | Path) -> CaseSpec:
    """Load and validate one case directory."""
    path = Path(case_dir)
    meta_path = path / META
    if not meta_path.is_file():
        raise _fail(path, f"missing {META}")
    if not (path / MODULE).is_file():
        raise _fail(path, f"missing {MODULE}")
    meta = _read_json(meta_path)
    if not isinstance(meta, dict):
        raise _fail(meta_path, "must hold a JSON object")
    unknown = sorted(set(meta) - _TOP_KEYS)
    if unknown:
        raise _fail(meta_path, f"unknown keys {unknown}")
    missing = [k for k in _REQUIRED if k not in meta]
    if missing:
        raise _fail(meta_path, f"missing keys {missing}")
    if meta["format_version"] != vocab.FORMAT_VERSION:
        raise _fail(meta_path, f"format_version {meta['format_version']!r} is not supported "
                               f"(this runner reads version {vocab.FORMAT_VERSION})")
    entry = meta["entry"]
    if not isinstance(entry, str) or not entry.isidentifier():
        raise _fail(meta_path, "'entry' must be a function name")
    expect = meta["expect"]
    if expect not in vocab.EXPECTS:
        raise _fail(meta_path, f"'expect' must be one of {list(vocab.EXPECTS)}, got {expect!r}")
    error_kind = _error_kind(meta, meta_path, "case")
    _check_kind_phase(meta_path, "case", expect, error_kind)
    oracle = meta["oracle"]
    if oracle not in vocab.ORACLES:
        raise _fail(meta_path, f"'oracle' must be one of {list(vocab.ORACLES)}, got {oracle!r}")
    spelling = meta.get("spelling", "tvm")
    if spelling not in SPELLINGS:
        raise _fail(meta_path, f"'spelling' must be one of {list(SPELLINGS)}")
    spec_ids = _str_list(meta, "spec", meta_path)
    if not spec_ids:
        raise _fail(meta_path, "'spec' must cite at least one rule ID")
    rtol = _tol(meta, "rtol", DEFAULT_RTOL, meta_path, "case")
    atol = _tol(meta, "atol", DEFAULT_ATOL, meta_path, "case")
    case_args = meta.get("args", [])
    case_outputs = meta.get("outputs")
    runs_raw = meta["runs"]
    if not isinstance(runs_raw, list):
        raise _fail(meta_path, "'runs' must be a list")
    if expect in vocab.LOAD_EXPECTS and runs_raw:
        raise _fail(meta_path, f"an '{expect}' case is decided at load time and must have no runs")
    if expect not in vocab.LOAD_EXPECTS and not runs_raw:
        raise _fail(meta_path, f"an '{expect}' case needs at least one run")
    runs = [_load_run(meta_path, i, r, expect, error_kind, case_args, case_outputs, rtol, atol)
            for i, r in enumerate(runs_raw)]
    case = CaseSpec(
        path=path, category=path.parent.name, name=path.name,
        text=_read_text(path / MODULE, MAX_MODULE_BYTES), entry=entry, expect=expect, error_kind=error_kind,
        runs=tuple(runs), spec=spec_ids, tags=_str_list(meta, "tags", meta_path), oracle=oracle,
        spelling=spelling, requires=_str_list(meta, "requires", meta_path),
        description=meta.get("description", "") if isinstance(meta.get("description", ""), str) else "",
        generator=meta.get("generator") if isinstance(meta.get("generator"), str) else None,
    )
    # decode every run now so that a broken npz is reported as a format error, not at run time
    for run in case.runs:
        try:
            case.inputs(run)
            if run.expect == "return":
                case.expected(run)
        except (NpzError, ValueSpecError) as err:
            raise _fail(path, f"runs[{run.index}]: {err}") from None
        except RecursionError:
            raise _fail(path, f"runs[{run.index}]: a value spec is nested too deeply") from None
    return case


def find_case_dirs(root: str | Path) -> list[Path]:
    """Every directory under ``root`` (or ``root`` itself) holding a meta.json or module.py."""
    root = Path(root)
    if not root.exists():
        raise CaseFormatError(root, "no such directory")
    if (root / META).exists() or (root / MODULE).exists():
        return [root]
    found = set()
    for p in list(root.rglob(META)) + list(root.rglob(MODULE)):
        found.add(p.parent)
    return sorted(found)


def discover_cases(roots: Iterable[str | Path]) -> tuple[list[CaseSpec], list[CaseFormatError]]:
    """Load every case under ``roots``; returns ``(cases sorted by id, format errors)``."""
    cases: dict[str, CaseSpec] = {}
    errors: list[CaseFormatError] = []
    for root in roots:
        try:
            dirs = find_case_dirs(root)
        except CaseFormatError as err:
            errors.append(err)
            continue
        for d in dirs:
            try:
                c = load_case(d)
            except CaseFormatError as err:
                errors.append(err)
                continue
            except RecursionError:
                errors.append(CaseFormatError(d, "nested too deeply to read"))
                continue
            except (ValueError, TypeError, KeyError, OSError, MemoryError) as err:
                # a check this reader lacks: still a problem of this case only, never of the run
                errors.append(CaseFormatError(d, f"unreadable ({type(err).__name__}: {err})"))
                continue
            if c.id in cases and cases[c.id].path.resolve() != c.path.resolve():
                errors.append(CaseFormatError(d, f"duplicate case id {c.id!r} (also {cases[c.id].path})"))
                continue
            cases[c.id] = c
    return [cases[k] for k in sorted(cases)], errors


__all__ = ["CaseFormatError", "RunSpec", "CaseSpec", "load_case", "find_case_dirs", "discover_cases",
           "DEFAULT_RTOL", "DEFAULT_ATOL", "SPELLINGS", "META", "MODULE"]
