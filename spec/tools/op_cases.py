"""Regenerate the ``## Conformance cases`` section of every operator page from the conformance suite.

Usage::

    python spec/tools/op_cases.py            # rewrite the sections that are not current
    python spec/tools/op_cases.py --check    # list the pages that are not current, write nothing

For each page ``spec/ops/*.md`` that has a ``## Conformance cases`` section (``README.md`` and
``_TEMPLATE.md`` are skipped), the section lists, one bullet ``* `category/name``` each and sorted by
id, the conformance cases whose ``spec`` list cites a rule defined on that page. A citation of a draft
ID that was renamed to one of the page's rules (``rule_ids.RENAMED``) counts for the page, and so does
a group citation ``PREFIX.*`` that covers one of them. After the bullets comes one line naming the
page's rules that still need a case (normative rules, see ``RuleDef.needs_case``) and that no case
cites::

    Constraints without a case: `OP.x.C3`, `OP.x.C5`.

A page none of whose rules is cited has only that line; a page with neither cases nor missing cases
says ``None yet.``

The tool owns the set and order of the bullets and the line above. Two kinds of hand-written text in
the section are kept as written: what follows the case id on a bullet (``(C1, C2; return): ...``) for
as long as the case stays listed, and note paragraphs that are neither bullets, ``None yet.`` nor a
``Constraints without a case`` line; notes follow the generated part. The section ends at the next
heading of level 1 or 2, or at the end of the file; nothing outside it is changed.

Exit status: 0 when every page is (or was made) current, 1 with ``--check`` when some page is not,
2 when the conformance cases cannot be loaded.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

try:  # imported as part of a package
    from . import rule_ids as _ids
except ImportError:  # run as a script, or loaded from its directory
    import rule_ids as _ids  # type: ignore[no-redef]

try:
    from relax_conformance.case import discover_cases
    from relax_conformance.gen import default_cases_root
except ImportError:  # the project is not installed: use the checkout's copy
    sys.path.insert(0, str(_ids.repo_root() / "conformance"))
    from relax_conformance.case import discover_cases
    from relax_conformance.gen import default_cases_root

HEADING = "## Conformance cases"
WITHOUT = "Constraints without a case:"
NONE_YET = "None yet."
SKIP_PAGES = frozenset({"README.md", "_TEMPLATE.md"})

_BULLET_RE = re.compile(r"^\* `(?P<id>[^`]+)`(?P<rest>.*)$")
_END_RE = re.compile(r"^#{1,2} ")


# ---------------------------------------------------------------------------------------------------
# Which cases cite which rules
# ---------------------------------------------------------------------------------------------------


def natural_key(rule_id: str) -> Tuple:
    """Sort key that orders the numbers in an ID by value: ``OP.x.C2`` before ``OP.x.C10``."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part)
                 for part in re.split(r"(\d+)", rule_id) if part)


def resolve_citation(entry: str, rules: Mapping[str, "_ids.RuleDef"]) -> Set[str]:
    """The defined rules one ``spec`` entry of a case names: the rule itself, the rule a draft ID was
    renamed to, or every rule under a ``PREFIX.*`` group."""
    entry = entry.strip()
    m = _ids.ID_RE.fullmatch(entry)
    if m and m.group("wild"):
        prefix = m.group("id") + "."
        return {r for r in rules if r.startswith(prefix)}
    if entry in rules:
        return {entry}
    new = _ids.renamed_to(entry, dict(rules))
    return {new} if new is not None else set()


def citing_cases(cases: Iterable, rules: Mapping[str, "_ids.RuleDef"]) -> Dict[str, Set[str]]:
    """Rule ID -> ids of the cases (``CaseSpec``-like: ``.id`` and ``.spec``) that cite it."""
    out: Dict[str, Set[str]] = {}
    for case in cases:
        for entry in case.spec:
            for rule_id in resolve_citation(entry, rules):
                out.setdefault(rule_id, set()).add(case.id)
    return out


# ---------------------------------------------------------------------------------------------------
# The section
# ---------------------------------------------------------------------------------------------------


def section_span(text: str) -> Optional[Tuple[int, int]]:
    """Character offsets ``(start, end)`` of the body of the ``## Conformance cases`` section: from the
    line after the heading to the next heading of level 1 or 2 (or the end of the text). Headings inside
    fenced code blocks do not count. ``None`` when the page has no such section."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    heading: Optional[int] = None
    for number, line in _ids.prose_lines(text):
        index = number - 1
        if heading is None:
            if lines[index].rstrip("\r\n").rstrip() == HEADING:
                heading = index
        elif _END_RE.match(line):
            return offsets[heading + 1], offsets[index]
    if heading is None:
        return None
    return offsets[heading + 1], len(text)


def _paragraphs(body: str) -> List[List[str]]:
    paras: List[List[str]] = []
    current: List[str] = []
    for line in body.splitlines():
        if line.strip():
            current.append(line.rstrip())
        elif current:
            paras.append(current)
            current = []
    if current:
        paras.append(current)
    return paras


def parse_body(body: str) -> Tuple[Dict[str, str], List[str]]:
    """Split an existing section body into the hand-written text after each bullet's case id (case id
    -> text, continuation lines included) and the note paragraphs to keep."""
    annotations: Dict[str, str] = {}
    notes: List[str] = []
    for para in _paragraphs(body):
        if _BULLET_RE.match(para[0]):
            current: Optional[str] = None
            for line in para:
                m = _BULLET_RE.match(line)
                if m:
                    current = m.group("id")
                    annotations[current] = m.group("rest")
                elif current is not None and line[:1].isspace():
                    annotations[current] += "\n" + line
                else:  # a paragraph glued to the list
                    current = None
                    notes.append(line)
            continue
        if para[0] == NONE_YET and len(para) == 1:
            continue
        if para[0].startswith(WITHOUT):
            continue
        notes.append("\n".join(para))
    return annotations, notes


def render_body(case_ids: Iterable[str], uncited: Iterable[str], old_body: str = "") -> str:
    """The section body (without the heading and the blank line after it), ending in a newline."""
    annotations, notes = parse_body(old_body)
    blocks: List[str] = []
    bullets = [f"* `{cid}`{annotations.get(cid, '')}" for cid in sorted(set(case_ids))]
    if bullets:
        blocks.append("\n".join(bullets))
    missing = sorted(set(uncited), key=natural_key)
    if missing:
        blocks.append(f"{WITHOUT} " + ", ".join(f"`{r}`" for r in missing) + ".")
    if not blocks:
        blocks.append(NONE_YET)
    blocks += notes
    return "\n\n".join(blocks) + "\n"


def rewrite(text: str, case_ids: Iterable[str], uncited: Iterable[str]) -> str:
    """``text`` with its ``## Conformance cases`` section regenerated (unchanged if it has none). The
    heading is followed by one blank line; a following heading is preceded by one; a section at the
    end of the page ends the file with a single newline."""
    span = section_span(text)
    if span is None:
        return text
    start, end = span
    body = render_body(case_ids, uncited, text[start:end])
    rest = text[end:]
    head = text[:start]
    if not head.endswith("\n"):
        head += "\n"
    return head + "\n" + body + ("\n" + rest if rest else "")


# ---------------------------------------------------------------------------------------------------
# The pages
# ---------------------------------------------------------------------------------------------------


@dataclass
class PageUpdate:
    """One operator page with a ``## Conformance cases`` section: its text now and as generated."""

    path: Path
    old: str
    new: str
    added: List[str]
    removed: List[str]

    @property
    def current(self) -> bool:
        return self.old == self.new


def _listed(text: str) -> Set[str]:
    span = section_span(text)
    if span is None:
        return set()
    return {m.group("id") for line in text[span[0]:span[1]].splitlines() if (m := _BULLET_RE.match(line))}


def operator_pages(spec_dir: Path) -> List[Path]:
    """The operator pages that have a ``## Conformance cases`` section, sorted by name."""
    out = []
    for page in sorted((Path(spec_dir) / "ops").glob("*.md")):
        if page.name in SKIP_PAGES:
            continue
        if section_span(page.read_text(encoding="utf-8")) is not None:
            out.append(page)
    return out


def plan(root: Optional[Path] = None, cases_root: Optional[Path] = None,
         cases: Optional[Sequence] = None) -> List[PageUpdate]:
    """The regenerated text of every operator page with a ``## Conformance cases`` section. ``cases``
    defaults to the suite under ``cases_root`` (default: the runner's default case root); a suite that
    does not load raises ``ValueError`` listing its format errors."""
    root = Path(root) if root is not None else _ids.repo_root()
    spec_dir = root / "spec"
    if cases is None:
        loaded, errors = discover_cases([cases_root or default_cases_root()])
        if errors:
            raise ValueError("malformed conformance cases:\n" + "\n".join(f"  {e}" for e in errors))
        cases = loaded
    rules = _ids.parse_definitions(spec_dir).rules
    by_rule = citing_cases(cases, rules)
    updates = []
    for page in operator_pages(spec_dir):
        rel = page.resolve().relative_to(root.resolve()).as_posix()
        own = [r for r in rules.values() if r.file == rel]
        case_ids: Set[str] = set()
        for r in own:
            case_ids |= by_rule.get(r.id, set())
        uncited = [r.id for r in own if r.needs_case and not by_rule.get(r.id)]
        old = page.read_text(encoding="utf-8")
        new = rewrite(old, case_ids, uncited)
        before, after = _listed(old), _listed(new)
        updates.append(PageUpdate(page, old, new, sorted(after - before), sorted(before - after)))
    return updates


def check(root: Optional[Path] = None, cases_root: Optional[Path] = None) -> List[PageUpdate]:
    """The pages whose section is not current (empty when every page is)."""
    return [u for u in plan(root, cases_root) if not u.current]


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true",
                        help="list the pages that are not current and exit 1; write nothing")
    parser.add_argument("--root", type=Path, default=None, help="repository root (default: detected)")
    parser.add_argument("--cases", type=Path, default=None,
                        help="conformance case root (default: the runner's)")
    args = parser.parse_args(argv)
    root = args.root or _ids.repo_root()
    try:
        updates = plan(root, args.cases)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    stale = [u for u in updates if not u.current]
    for u in stale:
        rel = u.path.resolve().relative_to(Path(root).resolve()).as_posix()
        change = f"+{len(u.added)} -{len(u.removed)} cases" if (u.added or u.removed) else "rewritten"
        if args.check:
            print(f"{rel}: not current ({change})")
        else:
            u.path.write_text(u.new, encoding="utf-8")
            print(f"wrote {rel} ({change})")
    if args.check and stale:
        print(f"FAILED: {len(stale)} of {len(updates)} pages are not current; "
              f"run `python spec/tools/op_cases.py`")
        return 1
    print(f"ok: {len(updates)} pages, {len(updates) - len(stale)} already current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
