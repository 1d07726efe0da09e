"""Rule identifiers of the written spec: where they are defined and where they are cited.

A rule is *defined* in ``spec/*.md`` or ``spec/ops/*.md`` by a bold label at the start of a paragraph
or list item, ``**(WF.7)**``, optionally followed by a tag ``{definition}`` or ``{informative}``.
A rule is *cited* wherever its ID appears in code, tests or conformance cases (``(WF.7)`` in a
docstring, ``"spec": ["OP.matmul.C2"]`` in a case's ``meta.json``) and wherever the spec mentions it
outside code spans. A citation may end in ``.*`` to name every rule under a prefix.

The ID grammar (chapter 0 of the spec): a prefix from :data:`PREFIXES` followed by one or more
upper-case segments (``SI.BASE.3``); operator constraints ``OP.<op>.C<n>`` with a lower-case operator
name (``OP.nn.conv2d.C4``); general operator rules ``OP.<UPPER>...`` (``OP.0``, ``OP.BCAST.1``).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Tuple

#: Rule-ID prefixes other than ``OP`` (see the table in chapter 0).
PREFIXES: Tuple[str, ...] = (
    "VAL", "PRIM", "ARITH", "SI", "EXPR", "MOD", "NORM", "WF", "EVAL", "CALL", "TIR", "TEXT", "ERR",
    "DIV", "PASS", "RUNTIME", "DIST",
)

_GENERIC = r"(?:%s)(?:\.[A-Z0-9_]+)+" % "|".join(PREFIXES)
_OP_CONSTRAINT = r"OP\.[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*\.C[0-9]+"
_OP_GENERAL = r"OP\.[A-Z0-9][A-Z0-9_]*(?:\.[A-Z0-9_]+)*"
_OP_GROUP = r"OP\.[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*(?=\.\*)"

#: One rule ID (group ``id``), optionally followed by ``.*`` (group ``wild``).
ID_RE = re.compile(
    r"(?<![A-Za-z0-9_.])(?P<id>%s|%s|%s|%s)(?P<wild>\.\*)?(?![A-Za-z0-9_])"
    % (_GENERIC, _OP_CONSTRAINT, _OP_GENERAL, _OP_GROUP)
)

#: A rule definition label: ``**(ID)**`` plus an optional ``{tag}``.
DEF_RE = re.compile(
    r"\*\*\((?P<id>%s|%s|%s)\)\*\*(?:\s*\{(?P<tag>[a-z-]+)\})?" % (_GENERIC, _OP_CONSTRAINT, _OP_GENERAL)
)

TAGS = frozenset({"definition", "informative"})
NOT_IMPLEMENTED = "«not implemented»"
RETIRED = "«retired»"
#: ``«not observable: <why>»``: a normative rule that no module's behaviour can show (exempt from the
#: case requirement; the reason is required)
NOT_OBSERVABLE_RE = re.compile(r"«not observable(?::\s*(?P<why>[^»]*))?»")

#: Top-level directories whose files may cite rules.
CITING_AREAS: Tuple[str, ...] = ("relax_ref", "executors", "conformance", "tests")
#: File suffixes read when looking for citations.
TEXT_SUFFIXES = frozenset({".py", ".pyi", ".md", ".rst", ".txt", ".json", ".toml", ".cfg", ".ini",
                           ".yaml", ".yml", ".relax", ".tvmscript"})
_SKIP_DIRS = frozenset({"__pycache__", ".git", ".venv", "venv", "node_modules", "_build", ".pytest_cache",
                        ".hypothesis", ".mypy_cache", ".ruff_cache"})
_MAX_FILE_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class RuleDef:
    """A rule defined in the spec."""

    id: str
    file: str
    line: int
    tags: FrozenSet[str] = frozenset()
    text: str = ""

    @property
    def not_implemented(self) -> bool:
        return NOT_IMPLEMENTED in self.text

    @property
    def retired(self) -> bool:
        return RETIRED in self.text

    @property
    def not_observable(self) -> bool:
        """Marked «not observable: <why>» (with or without a reason; see :attr:`unexplained`)."""
        return NOT_OBSERVABLE_RE.search(self.text) is not None

    @property
    def unexplained(self) -> bool:
        """Marked «not observable» without saying why (an error of ``check_ids``)."""
        m = NOT_OBSERVABLE_RE.search(self.text)
        return m is not None and not (m.group("why") or "").strip()

    @property
    def needs_case(self) -> bool:
        """Normative rules must be cited by a conformance case (``check_ids --require-cases``), except
        the rules of chapter 14: a pass is not observable through a module's behaviour, so PASS rules
        are checked by the pass tests and the property-testing oracle instead -- and rules marked
        «not observable: <why>»."""
        if self.id.startswith("PASS."):
            return False
        return not (self.tags & TAGS) and not self.not_implemented and not self.retired \
            and not self.not_observable


@dataclass(frozen=True)
class Citation:
    """An occurrence of a rule ID (or of a ``PREFIX.*`` group) outside its definition."""

    id: str
    file: str
    line: int
    wildcard: bool = False
    source: str = "code"  # "code" | "case" | "spec"

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.id}{'.*' if self.wildcard else ''}"


@dataclass
class Definitions:
    """The result of scanning the spec: rules by ID, plus duplicate definitions and bad tags."""

    rules: Dict[str, RuleDef] = field(default_factory=dict)
    duplicates: List[Tuple[RuleDef, RuleDef]] = field(default_factory=list)
    bad_tags: List[RuleDef] = field(default_factory=list)

    def __contains__(self, rule_id: str) -> bool:
        return rule_id in self.rules


#: IDs used by drafts of the spec before its first version, mapped to the rule that now carries the
#: requirement. Citations of these are still errors; the checker names the replacement. Entries whose
#: old ID is defined again are ignored.
RENAMED: Dict[str, str] = {
    "PRIM.1": "PRIM.INT.1", "PRIM.2": "PRIM.INT.2", "PRIM.3": "PRIM.INT.3", "PRIM.4": "PRIM.FLOAT.1",
    "PRIM.5": "PRIM.BOOL.1", "PRIM.6": "PRIM.SELECT.1", "PRIM.CAST.3": "PRIM.CAST.2",
    "PRIM.CAST.4": "PRIM.CAST.1",
    "ARITH.1": "ARITH.PROVE.1", "ARITH.2": "ARITH.PROVE.1", "ARITH.3": "ARITH.ASSUME.3",
    "ARITH.4": "ARITH.PROVE.3", "ARITH.5": "ARITH.PROVE.4", "ARITH.INT.1": "ARITH.ASSUME.1",
    "ARITH.INT.2": "PRIM.INT.1", "ARITH.SIMP.1": "ARITH.ASSUME.2",
    "SI.WELLDEF.1": "SI.ERASE.1", "SI.WELLDEF.2": "SI.ERASE.4", "SI.WELLDEF.3": "SI.ERASE.5",
    "SI.WELLDEF.4": "SI.ERASE.6", "SI.BASE.10": "SI.BASE.8", "SI.BASE.11": "SI.CALL.2",
    "SI.BASE.12": "SI.BASE.10",
    "EXPR.2": "EXPR.EQ.1", "EXPR.PURE.1": "EXPR.PURITY.1", "EXPR.PURE.2": "EXPR.PURITY.1",
    "EXPR.PURE.3": "EXPR.PURITY.2", "EXPR.PURE.4": "EXPR.PURITY.4", "EXPR.PURE.5": "EXPR.PURITY.5",
    "EXPR.PURE.6": "EXPR.PURITY.6",
    "NORM.ANF.5": "NORM.OPNORM.1", "NORM.ANF.6": "NORM.INFER.1", "NORM.ANF.7": "NORM.ANF.4",
    "NORM.PROC.1": "NORM.ANF.2", "NORM.PROC.2": "NORM.ANF.3", "NORM.PROC.3": "NORM.BLOCK.1",
    "NORM.PROC.4": "NORM.BLOCK.2", "NORM.PROC.5": "NORM.VOID.1", "NORM.PROC.6": "NORM.OPNORM.1",
    "NORM.SI.1": "NORM.INFER.1", "NORM.SI.2": "NORM.INFER.3", "NORM.SI.3": "NORM.INFER.4",
    "NORM.SI.4": "NORM.INFER.3", "NORM.SI.5": "NORM.INFER.3", "NORM.SI.6": "NORM.INFER.3",
    "NORM.SI.7": "NORM.INFER.5", "NORM.SI.8": "NORM.IF.1", "NORM.SI.9": "NORM.SEQ.1",
    "NORM.SI.10": "NORM.CALL.1", "NORM.SI.11": "NORM.GLOBAL.1", "NORM.SI.12": "NORM.GLOBAL.3",
    "NORM.SI.13": "NORM.INFER.6", "NORM.BIND.1": "NORM.VAR.1", "NORM.BIND.2": "NORM.ANNOT.4",
    "NORM.BIND.3": "NORM.MATCHCAST.1", "NORM.BIND.4": "NORM.MATCHCAST.2",
    "NORM.PRIMFUNC.1": "NORM.GLOBAL.2",
    "WF.1": "WF.SINFO.1", "WF.2": "WF.GLOBAL.1", "WF.3": "WF.GLOBAL.2", "WF.4": "WF.PARAM.1",
    "WF.5": "WF.SYM.2", "WF.6": "WF.VAR.1", "WF.7": "WF.VAR.2", "WF.8": "WF.SYM.1",
    "WF.9": "WF.DATAFLOW.1", "WF.10": "WF.IF.1", "WF.11": "WF.SEQ.1", "WF.12": "WF.ANF.1",
    "WF.13": "WF.FUNC.1", "WF.14": "WF.DATAFLOW.2", "WF.15": "WF.DATAFLOW.3", "WF.16": "WF.PURITY.1",
    "WF.17": "WF.PURITY.2", "WF.18": "WF.PRIMFUNC.1", "WF.19": "WF.OPNORM.1", "WF.20": "WF.OPVALID.1",
    "WF.21": "WF.SINFO.2", "WF.22": "WF.SINFO.3", "WF.23": "WF.SHAPE.1", "WF.25": "WF.SYM.1",
    "WF.28": "WF.TIR.1",
    "EVAL.GVAR.1": "EVAL.GLOBAL.1", "EVAL.PRIMVALUE.1": "EVAL.PRIM.1",
    "CALL.TIR.INPLACE.1": "CALL.INPLACE.1", "CALL.TIR.INPLACE.2": "CALL.INPLACE.2",
    "CALL.TIR.INPLACE.3": "CALL.INPLACE.3", "CALL.TIR.INPLACE.4": "CALL.INPLACE.4",
    "TIR.WF.1": "WF.TIR.1", "TIR.WF.2": "WF.TIR.2", "TIR.WF.3": "WF.TIR.4", "TIR.WF.4": "WF.TIR.5",
    "TIR.WF.5": "WF.TIR.5", "TIR.WF.6": "WF.TIR.4", "TIR.BUF.7": "TIR.BLOCK.MATCH.1",
    "TIR.BUF.8": "TIR.BUF.6", "TIR.STMT.6": "TIR.STMT.1", "TIR.STMT.7": "TIR.STMT.4",
    "OP.BCAST.1": "NORM.OP.BCAST.1", "OP.BCAST.2": "NORM.OP.BCAST.2", "OP.BCAST.3": "OP.SEM.2",
    "OP.DTYPE.1": "NORM.OP.DTYPE.1", "OP.DTYPE.2": "NORM.OP.BCAST.3", "OP.AXIS.1": "NORM.OP.AXIS.1",
    "OP.UNARY.1": "NORM.OP.DTYPE.2",
    "TEXT.PRINT.1": "TEXT.RT.1", "TEXT.PRINT.2": "TEXT.MOD.5", "TEXT.PRINT.3": "TEXT.RT.2",
}


def renamed_to(rule_id: str, rules: Dict[str, "RuleDef"]) -> Optional[str]:
    """The rule that replaced a draft ID, if ``rule_id`` is a known draft ID that is not defined."""
    if rule_id in rules:
        return None
    new = RENAMED.get(rule_id)
    return new if new in rules else None


# ---------------------------------------------------------------------------------------------------
# Markdown scanning
# ---------------------------------------------------------------------------------------------------


def spec_files(spec_dir: Path) -> List[Path]:
    """The Markdown files that make up the spec, in reading order: ``README.md``, the chapters
    ``NN-*.md``, ``ops/README.md``, the operator pages, and ``ops/_TEMPLATE.md``."""
    spec_dir = Path(spec_dir)
    files: List[Path] = []
    if (spec_dir / "README.md").is_file():
        files.append(spec_dir / "README.md")
    files += sorted(p for p in spec_dir.glob("[0-9][0-9]-*.md") if p.is_file())
    ops = spec_dir / "ops"
    if ops.is_dir():
        if (ops / "README.md").is_file():
            files.append(ops / "README.md")
        files += sorted(p for p in ops.glob("*.md") if p.name not in ("README.md", "_TEMPLATE.md"))
        if (ops / "_TEMPLATE.md").is_file():
            files.append(ops / "_TEMPLATE.md")
    return files


_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN_RE = re.compile(r"(`+)(?:(?!\1).)+?\1")


def prose_lines(text: str) -> Iterator[Tuple[int, str]]:
    """Yield ``(line_number, line)`` for the lines of a Markdown text that are outside fenced code
    blocks and HTML comments, with inline code spans blanked out (so IDs written as literal text in
    backticks are neither definitions nor references)."""
    fence: Optional[str] = None
    in_comment = False
    for number, line in enumerate(text.splitlines(), start=1):
        if in_comment:
            if "-->" in line:
                in_comment = False
                line = line.split("-->", 1)[1]
            else:
                continue
        m = _FENCE_RE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        while "<!--" in line:
            before, after = line.split("<!--", 1)
            if "-->" in after:
                line = before + after.split("-->", 1)[1]
            else:
                line = before
                in_comment = True
                break
        yield number, _CODE_SPAN_RE.sub(lambda s: " " * len(s.group(0)), line)


def _paragraph_after(lines: Sequence[str], index: int, column: int) -> str:
    """The text of the paragraph or list item that starts at ``lines[index][column:]``."""
    out = [lines[index][column:]]
    for nxt in lines[index + 1:]:
        stripped = nxt.strip()
        if not stripped or stripped.startswith("#") or DEF_RE.search(nxt) or stripped.startswith(("* ", "- ")):
            break
        out.append(stripped)
    return " ".join(s.strip() for s in out)


def parse_definitions(spec_dir: Path, files: Optional[Iterable[Path]] = None) -> Definitions:
    """Scan the spec for rule definitions."""
    spec_dir = Path(spec_dir)
    result = Definitions()
    for path in files if files is not None else spec_files(spec_dir):
        text = path.read_text(encoding="utf-8")
        raw_lines = text.splitlines()
        rel = _rel(path, spec_dir.parent)
        for number, line in prose_lines(text):
            for m in DEF_RE.finditer(line):
                tag = m.group("tag")
                rule = RuleDef(
                    id=m.group("id"),
                    file=rel,
                    line=number,
                    tags=frozenset({tag}) if tag else frozenset(),
                    text=_paragraph_after(raw_lines, number - 1, m.start()),
                )
                if tag and tag not in TAGS:
                    result.bad_tags.append(rule)
                if rule.id in result.rules:
                    result.duplicates.append((result.rules[rule.id], rule))
                else:
                    result.rules[rule.id] = rule
    return result


def defined_ids(spec_dir: Path) -> Dict[str, RuleDef]:
    """Rule ID -> definition, for every rule defined in the spec."""
    return parse_definitions(spec_dir).rules


def find_ids(text: str) -> List[Tuple[str, bool, int]]:
    """``(id, wildcard, offset)`` for every rule ID in ``text``."""
    return [(m.group("id"), m.group("wild") is not None, m.start()) for m in ID_RE.finditer(text)]


def spec_references(spec_dir: Path, files: Optional[Iterable[Path]] = None) -> List[Citation]:
    """IDs mentioned in the spec's prose (outside code spans, code blocks and definition labels)."""
    spec_dir = Path(spec_dir)
    out: List[Citation] = []
    for path in files if files is not None else spec_files(spec_dir):
        rel = _rel(path, spec_dir.parent)
        for number, line in prose_lines(path.read_text(encoding="utf-8")):
            line = DEF_RE.sub(lambda m: " " * len(m.group(0)), line)
            for rule_id, wild, _ in find_ids(line):
                out.append(Citation(rule_id, rel, number, wild, "spec"))
    return out


# ---------------------------------------------------------------------------------------------------
# Code, tests and conformance cases
# ---------------------------------------------------------------------------------------------------


def _rel(path: Path, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()


def _walk(base: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.endswith(".egg-info"))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if path.suffix in TEXT_SUFFIXES:
                yield path


def _read(path: Path) -> Optional[str]:
    try:
        if path.stat().st_size > _MAX_FILE_BYTES:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _is_case_file(rel: str) -> bool:
    return rel.startswith("conformance/cases/") and rel.endswith(".json")


def case_spec_list(data) -> List[str]:
    """The ``spec`` entries of a conformance case's JSON (a list of IDs, or one ID)."""
    if not isinstance(data, dict) or "spec" not in data:
        return []
    spec = data["spec"]
    if isinstance(spec, str):
        return [spec]
    if isinstance(spec, list):
        return [s for s in spec if isinstance(s, str)]
    return []


def _line_of(text: str, needle: str) -> int:
    pos = text.find(needle)
    return text.count("\n", 0, pos) + 1 if pos >= 0 else 1


def cited_ids(root: Path, areas: Sequence[str] = CITING_AREAS) -> List[Citation]:
    """Every citation in the code, tests and conformance cases under ``root``.

    Conformance-case JSON files contribute their ``spec`` lists with ``source="case"``; every other
    text file contributes each ID it contains with ``source="code"``.
    """
    root = Path(root)
    out: List[Citation] = []
    for area in areas:
        base = root / area
        if not base.is_dir():
            continue
        for path in _walk(base):
            text = _read(path)
            if text is None:
                continue
            rel = _rel(path, root)
            if _is_case_file(rel):
                try:
                    data = json.loads(text)
                except ValueError:
                    data = None
                entries = case_spec_list(data)
                if entries:
                    for entry in entries:
                        m = ID_RE.fullmatch(entry.strip())
                        wild = bool(m and m.group("wild"))
                        rule_id = m.group("id") if m else entry.strip()
                        out.append(Citation(rule_id, rel, _line_of(text, entry), wild, "case"))
                    continue
            for number, line in enumerate(text.splitlines(), start=1):
                for rule_id, wild, _ in find_ids(line):
                    out.append(Citation(rule_id, rel, number, wild, "code"))
    return out


def resolves(citation: Citation, rules: Dict[str, RuleDef]) -> bool:
    """Whether a citation names a defined rule or a group of rules: ``X`` is defined, or (for
    ``X.*``, and for a bare ``X`` that is not itself a rule) at least one rule starts with ``X.``."""
    if not citation.wildcard and citation.id in rules:
        return True
    prefix = citation.id + "."
    return any(r.startswith(prefix) for r in rules)


def undefined(citations: Iterable[Citation], rules: Dict[str, RuleDef]) -> List[Citation]:
    return [c for c in citations if not resolves(c, rules)]


def uncited_by_cases(rules: Dict[str, RuleDef], citations: Iterable[Citation]) -> List[RuleDef]:
    """Normative rules that no conformance case cites by exact ID."""
    cited = {c.id for c in citations if c.source == "case" and not c.wildcard}
    return [r for r in rules.values() if r.needs_case and r.id not in cited]


def repo_root() -> Path:
    """The repository root (the directory that contains ``spec/``)."""
    return Path(__file__).resolve().parents[2]


__all__ = [
    "PREFIXES", "ID_RE", "DEF_RE", "TAGS", "NOT_OBSERVABLE_RE", "CITING_AREAS", "RuleDef", "Citation", "Definitions",
    "spec_files", "prose_lines", "parse_definitions", "defined_ids", "find_ids", "spec_references",
    "cited_ids", "case_spec_list", "resolves", "undefined", "uncited_by_cases", "repo_root", "RENAMED",
    "renamed_to",
]
