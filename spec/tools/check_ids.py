"""Check the spec's rule IDs against their citations.

Usage::

    python spec/tools/check_ids.py                  # cited-but-undefined IDs, duplicate definitions
    python spec/tools/check_ids.py --require-cases  # also: normative rules no conformance case cites
    python spec/tools/check_ids.py --list           # print every defined rule with its citation count
    python spec/tools/check_ids.py --json           # machine-readable report

Errors (exit status 1):

* an ID cited in ``relax_ref/``, ``executors/``, ``conformance/``, ``tests/`` or in the spec's own
  prose that no rule defines (a ``PREFIX.*`` citation needs at least one rule under the prefix);
* a rule defined twice, or a definition label with an unknown ``{tag}``;
* a rule marked «not observable» without a reason (``«not observable: <why>»``);
* with ``--require-cases``: a normative rule (no ``{definition}``/``{informative}`` tag, not
  «not implemented», «retired» or «not observable: <why>») that no conformance case's ``spec`` list
  names exactly, or a rule marked «not observable» that a case cites after all.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence

try:  # imported as part of a package
    from . import rule_ids as _ids
except ImportError:  # run as a script, or loaded from its directory
    import rule_ids as _ids  # type: ignore[no-redef]


@dataclass
class Report:
    """What :func:`check` found. ``ok`` is false when there is any error."""

    defined: int = 0
    citations: int = 0
    renamed: dict = field(default_factory=dict)
    undefined: List[_ids.Citation] = field(default_factory=list)
    duplicates: List[tuple] = field(default_factory=list)
    bad_tags: List[_ids.RuleDef] = field(default_factory=list)
    uncited: List[_ids.RuleDef] = field(default_factory=list)
    unexplained: List[_ids.RuleDef] = field(default_factory=list)
    observed: List[_ids.RuleDef] = field(default_factory=list)   # «not observable» yet cited by a case
    not_observable: int = 0
    require_cases: bool = False

    @property
    def ok(self) -> bool:
        return not (self.undefined or self.duplicates or self.bad_tags or self.unexplained
                    or (self.require_cases and (self.uncited or self.observed)))

    def to_json(self) -> dict:
        return {
            "ok": self.ok,
            "defined": self.defined,
            "citations": self.citations,
            "undefined": [{"id": c.id + (".*" if c.wildcard else ""), "file": c.file, "line": c.line,
                           "renamed_to": self.renamed.get(c.id)} for c in self.undefined],
            "duplicates": [{"id": a.id, "first": f"{a.file}:{a.line}", "again": f"{b.file}:{b.line}"}
                           for a, b in self.duplicates],
            "bad_tags": [{"id": r.id, "file": r.file, "line": r.line} for r in self.bad_tags],
            "uncited_by_cases": [r.id for r in self.uncited],
            "not_observable": self.not_observable,
            "not_observable_without_reason": [r.id for r in self.unexplained],
            "not_observable_but_cited_by_cases": [r.id for r in self.observed],
        }


def check(root: Optional[Path] = None, spec_dir: Optional[Path] = None, require_cases: bool = False,
          areas: Sequence[str] = _ids.CITING_AREAS) -> Report:
    """Scan the spec under ``spec_dir`` (default ``<root>/spec``) and the citing areas under ``root``."""
    root = Path(root) if root is not None else _ids.repo_root()
    spec_dir = Path(spec_dir) if spec_dir is not None else root / "spec"
    defs = _ids.parse_definitions(spec_dir)
    citations = _ids.cited_ids(root, areas) + _ids.spec_references(spec_dir)
    report = Report(defined=len(defs.rules), citations=len(citations), require_cases=require_cases)
    report.undefined = _ids.undefined(citations, defs.rules)
    for c in report.undefined:
        new = _ids.renamed_to(c.id, defs.rules)
        if new is not None:
            report.renamed[c.id] = new
    report.duplicates = list(defs.duplicates)
    report.bad_tags = list(defs.bad_tags)
    report.uncited = _ids.uncited_by_cases(defs.rules, citations)
    report.unexplained = [r for r in defs.rules.values() if r.unexplained]
    marked = [r for r in defs.rules.values() if r.not_observable]
    report.not_observable = len(marked)
    case_cited = {c.id for c in citations if c.source == "case" and not c.wildcard}
    report.observed = [r for r in marked if r.id in case_cited]
    return report


def _print_report(report: Report, out=sys.stdout) -> None:
    for c in report.undefined:
        hint = f" (renamed to {report.renamed[c.id]})" if c.id in report.renamed else ""
        print(f"error: {c.file}:{c.line}: cited ID {c.id}{'.*' if c.wildcard else ''} is not defined{hint}",
              file=out)
    for first, again in report.duplicates:
        print(f"error: {again.file}:{again.line}: rule {again.id} is already defined at "
              f"{first.file}:{first.line}", file=out)
    for r in report.bad_tags:
        print(f"error: {r.file}:{r.line}: rule {r.id} has an unknown tag (allowed: "
              f"{', '.join(sorted(_ids.TAGS))})", file=out)
    for r in report.unexplained:
        print(f"error: {r.file}:{r.line}: rule {r.id} is marked «not observable» without a reason "
              f"(write «not observable: <why>»)", file=out)
    if report.require_cases:
        for r in report.uncited:
            print(f"error: {r.file}:{r.line}: rule {r.id} is not cited by any conformance case", file=out)
        for r in report.observed:
            print(f"error: {r.file}:{r.line}: rule {r.id} is marked «not observable» but a conformance case "
                  f"cites it", file=out)
    elif report.uncited:
        print(f"note: {len(report.uncited)} normative rules are not yet cited by a conformance case "
              f"(use --require-cases to make this an error)", file=out)
    status = "ok" if report.ok else "FAILED"
    print(f"{status}: {report.defined} rules defined, {report.citations} citations, "
          f"{len(report.undefined)} undefined, {report.not_observable} marked not observable", file=out)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--require-cases", action="store_true",
                        help="error for normative rules not cited by any conformance case")
    parser.add_argument("--root", type=Path, default=None, help="repository root (default: detected)")
    parser.add_argument("--json", action="store_true", help="print a JSON report")
    parser.add_argument("--list", action="store_true", help="list defined rules with citation counts")
    args = parser.parse_args(argv)

    report = check(args.root, require_cases=args.require_cases)
    if args.list:
        root = args.root or _ids.repo_root()
        rules = _ids.defined_ids(root / "spec")
        citations = _ids.cited_ids(root)
        counts = Counter(c.id for c in citations if not c.wildcard)
        cases = Counter(c.id for c in citations if c.source == "case" and not c.wildcard)
        for rule_id, rule in rules.items():
            tag = ",".join(sorted(rule.tags)) or ("not-implemented" if rule.not_implemented else
                                                  "not-observable" if rule.not_observable else "")
            print(f"{rule_id:32} {counts[rule_id]:4} cites {cases[rule_id]:3} cases  {tag}")
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        _print_report(report)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
