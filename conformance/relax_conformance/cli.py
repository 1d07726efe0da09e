"""``relax-conformance``: run the suite, list cases, regenerate cases, render coverage and divergences.

    relax-conformance run [--impl ref|jax|tvm|MODULE:CLASS|cmd:"..."] [--cases DIR ...] [--filter TAG ...]
                          [--json OUT] [--junit OUT] [-j N] [--isolate | --in-process] [--timeout S]
    relax-conformance list [--cases DIR ...] [--filter TAG ...]
    relax-conformance regen [--check]
    relax-conformance coverage [--check]
    relax-conformance divergences [--check]

``run`` is the default subcommand (``relax-conformance --impl tvm`` works). Each implementation's
cases run in ``-j`` worker processes (see :mod:`relax_conformance.adapters`): a crash or a hang fails
one case, and the run goes on. Exit status: 0 when every case passed, was skipped or is a known
divergence; 1 on any failure, adapter error or stale divergence; 2 when the suite itself is unusable
(unknown ``--impl``, an adapter that cannot start, nothing selected) or when case directories are
malformed (each is reported; the other cases still run). Every error is a message, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Optional

from relax_ref._version import __version__

from .case import CaseFormatError, discover_cases
from .gen import GenerationError, default_cases_root

SUBCOMMANDS = ("run", "list", "regen", "coverage", "divergences")


def _err(msg: str) -> None:
    print(f"relax-conformance: {msg}", file=sys.stderr)


def _load(args) -> tuple[list, list]:
    """``(selected cases, format errors of malformed case directories)``."""
    from .runner import select_cases

    roots = args.cases or [default_cases_root()]
    cases, errors = discover_cases(roots)
    return select_cases(cases, args.filter or []), errors


def _report_malformed(errors: list, console=None) -> None:
    if not errors:
        return
    head = f"{len(errors)} malformed case director{'y' if len(errors) == 1 else 'ies'} (not run):"
    if console is None:
        _err(head)
        for e in errors:
            print(f"  {e}", file=sys.stderr)
        return
    console.print(f"\n[b]malformed cases[/b] ({len(errors)}, not run)")
    for e in errors:
        console.print(f"  {e}", markup=False, highlight=False, soft_wrap=True)


def split_impls(spec: str) -> list:
    """``ref,jax`` -> ``["ref", "jax"]``; a ``cmd:...`` or ``MODULE:CLASS`` spec is never split (it may
    contain commas)."""
    if ":" in spec:
        return [spec]
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    return parts or [spec]


def _run_one(args, impl: str, cases: list, many: bool):
    """Run the cases on one implementation; returns (exit status, results or None, adapter name, the
    implementation's version or None)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .adapters import ImplSpecError, make_adapter_factory
    from .divergences import DivergenceFileError, for_impl, load_divergences
    from .protocol import ProtocolError
    from .report import print_summary
    from .runner import is_unexpected, run_cases

    try:
        all_divs = load_divergences(args.divergences)
    except DivergenceFileError as err:
        _err(str(err))
        return 2, None, impl, None
    try:
        factory = make_adapter_factory(impl, mode=args.mode, timeout=args.timeout)
        first = factory()
    except ImplSpecError as err:
        _err(str(err))
        return 2, None, impl, None
    except (ProtocolError, ImportError, OSError) as err:
        _err(f"cannot start the adapter for --impl {impl!r}: {err}")
        return 2, None, impl, None
    except Exception as err:  # noqa: BLE001 - an in-process adapter's constructor failed
        _err(f"cannot start the adapter for --impl {impl!r}: {type(err).__name__}: {err}")
        return 2, None, impl, None
    adapter_name = getattr(first, "name", impl)
    version = getattr(first, "version", None)
    # the entries for the release that runs (divergences.py: a version-less adapter gets them all)
    divs = for_impl(all_divs, (args.divergence_key if not many else None) or impl, version)
    console = Console(stderr=True)
    with Progress(TextColumn("[b]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.fields[last]}"), console=console, transient=True,
                  disable=args.quiet) as progress:
        task = progress.add_task(f"{impl}", total=len(cases), last="")

        def tick(res) -> None:
            progress.update(task, advance=1, last=f"{res.result:<16} {res.case_id}")

        results = run_cases(cases, factory, jobs=max(1, args.jobs), divergences=divs, progress=tick,
                            first_adapter=first)
    print_summary(results, impl, adapter_name, console=Console(), max_details=args.max_details)
    return (1 if any(is_unexpected(r) for r in results) else 0), results, adapter_name, version


def _write_reports(args, runs: list, versions: Optional[dict] = None) -> int:
    """``--json`` / ``--junit``: one file each, whatever the number of implementations (a JSON file of
    several holds ``{"runs": [...]}``, a JUnit file one testsuite per implementation and category)."""
    from .report import write_json, write_json_runs, write_junit_runs

    malformed = getattr(args, "malformed", [])
    try:
        if args.json:
            if len(runs) == 1:
                impl, name, results = runs[0]
                write_json(args.json, results, impl, name, malformed=malformed, version=(versions or {}).get(impl))
            else:
                write_json_runs(args.json, runs, malformed=malformed, versions=versions)
        if args.junit:
            write_junit_runs(args.junit, runs, malformed=malformed)
    except OSError as err:
        _err(f"cannot write the report: {err}")
        return 2
    for path in (args.json, args.junit):
        if path:
            print(f"wrote {path} ({', '.join(impl for impl, _, _ in runs)})", file=sys.stderr)
    return 0


def _print_overall(per_impl: list) -> None:
    from collections import Counter

    from rich.console import Console
    from rich.table import Table

    from .runner import is_unexpected

    table = Table(title="relax-conformance: all implementations")
    cols = ["pass", "fail", "error", "known-divergence", "skip"]
    table.add_column("impl")
    for c in cols:
        table.add_column(c, justify="right")
    table.add_column("unexpected", justify="right")
    table.add_column("total", justify="right")
    for impl, results in per_impl:
        if results is None:
            table.add_row(impl, *[""] * len(cols), "could not run", "")
            continue
        counts = Counter(r.result for r in results)
        table.add_row(impl, *[str(counts.get(c, 0)) for c in cols],
                      str(sum(1 for r in results if is_unexpected(r))), str(len(results)))
    Console().print(table)


def cmd_run(args) -> int:
    if not args.timeout > 0:
        _err(f"--timeout must be a positive number of seconds, got {args.timeout}")
        return 2
    if args.jobs is not None and args.jobs < 1:
        _err(f"-j must be at least 1, got {args.jobs}")
        return 2
    args.jobs = args.jobs or default_jobs()
    cases, errors = _load(args)
    args.malformed = errors
    _report_malformed(errors)
    if not cases:
        _err("no case matched" if not errors else "no readable case to run")
        return 2
    impls = split_impls(args.impl)
    many = len(impls) > 1
    status = 0
    per_impl = []
    runs, versions = [], {}
    for impl in impls:
        code, results, adapter_name, version = _run_one(args, impl, cases, many)
        per_impl.append((impl, results))
        if results is not None:
            runs.append((impl, adapter_name, results))
            versions[impl] = version
        status = max(status, code)
    if many:
        _print_overall(per_impl)
    if runs:
        status = max(status, _write_reports(args, runs, versions))
    if errors:
        from rich.console import Console

        _report_malformed(errors, Console())
        status = 2
    return status


def default_jobs() -> int:
    """Worker processes per implementation when ``-j`` is not given: the CPUs, at most 4."""
    return max(1, min(4, os.cpu_count() or 1))


def cmd_list(args) -> int:
    cases, errors = _load(args)
    for c in cases:
        kind = f" ({c.error_kind})" if c.error_kind else ""
        print(f"{c.id}\t{c.expect}{kind}\t{len(c.runs)} run(s)\t{','.join(c.tags)}")
    print(f"{len(cases)} case(s)", file=sys.stderr)
    _report_malformed(errors)
    return 2 if errors else 0


def cmd_regen(args) -> int:
    from .regen import check_current, regenerate

    try:
        if args.check:
            problems = check_current(args.generators, args.root)
            for p in problems:
                print(p)
            if problems:
                _err(f"{len(problems)} difference(s): run `relax-conformance regen` and commit the result")
                return 1
            print("cases are current")
            return 0
        produced = regenerate(args.generators, args.root)
    except (GenerationError, CaseFormatError) as err:
        _err(str(err))
        return 2
    for script, cats in produced.items():
        print(f"{script}: {', '.join(cats)}")
    return 0


def _check_or_write(path: Path, text: str, check: bool, what: str, how: str) -> int:
    if check:
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != text:
            _err(f"{path} is not current; run `{how}`")
            return 1
        print(f"{what} is current")
        return 0
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0


def cmd_coverage(args) -> int:
    from .coverage import default_path, render

    cases, errors = discover_cases([args.root or default_cases_root()])
    if errors:
        for e in errors:
            _err(str(e))
        return 2
    return _check_or_write(Path(args.out) if args.out else default_path(), render(cases), args.check,
                           "COVERAGE.md", "relax-conformance coverage")


def cmd_divergences(args) -> int:
    import json

    from .divergences import DivergenceFileError, default_path, load_divergences, record_behaviours, render_markdown

    if args.record:
        try:
            report = json.loads(Path(args.record).read_text(encoding="utf-8"))
            if not isinstance(report, dict):
                raise ValueError("not a report object")
        except (OSError, ValueError, RecursionError) as err:
            _err(f"cannot read the report {args.record}: {err}")
            return 2
        try:
            text, notes = record_behaviours(args.divergences, report, args.divergence_key)
        except DivergenceFileError as err:
            _err(str(err))
            return 2
        for n in notes:
            print(f"note: {n}")
        target = Path(args.divergences) if args.divergences else default_path()
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target}")
    try:
        divs = load_divergences(args.divergences)
    except DivergenceFileError as err:
        _err(str(err))
        return 2
    out = Path(args.out) if args.out else Path(__file__).resolve().parent.parent / "DIVERGENCES.md"
    return _check_or_write(out, render_markdown(divs), args.check, "DIVERGENCES.md",
                           "relax-conformance divergences")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="relax-conformance", description=__doc__.split("\n\n")[0])
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command")

    def case_opts(sp):
        sp.add_argument("--cases", action="append", type=Path, metavar="DIR",
                        help="a directory of cases (repeatable; default: the suite's own cases)")
        sp.add_argument("--filter", action="append", metavar="TAG",
                        help="keep cases with this tag, category, name or id glob (repeatable: any matches)")

    r = sub.add_parser("run", help="run the suite against an implementation")
    r.add_argument("--impl", default="ref", help="ref | jax | tvm | MODULE:CLASS | cmd:COMMAND, or a comma-separated list of built-in ones such as ref,jax (default: ref)")
    case_opts(r)
    r.add_argument("--json", metavar="OUT", help="write a JSON report")
    r.add_argument("--junit", metavar="OUT", help="write a JUnit XML report")
    r.add_argument("-j", "--jobs", type=int, default=None,
                   help="worker processes per implementation (default: the number of CPUs, at most 4)")
    where = r.add_mutually_exclusive_group()
    where.add_argument("--isolate", dest="mode", action="store_const", const="isolate",
                       help="a fresh worker process for every case (slower; default: long-lived workers, "
                            "restarted after a crash)")
    where.add_argument("--in-process", dest="mode", action="store_const", const="in-process",
                       help="run a Python adapter in this process (a crash of the implementation ends the run)")
    r.set_defaults(mode="worker")
    r.add_argument("--timeout", type=float, default=120.0,
                   help="seconds allowed for each request to a worker or cmd: program, start-up included "
                        "(default 120)")
    r.add_argument("--divergences", type=Path, metavar="FILE", help="divergence file (default: the suite's)")
    r.add_argument("--divergence-key", metavar="IMPL",
                   help="read the divergences listed for this implementation name (default: --impl)")
    r.add_argument("--max-details", type=int, default=60, help="failures listed in the summary (default 60)")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=cmd_run)

    ls = sub.add_parser("list", help="list the cases")
    case_opts(ls)
    ls.set_defaults(func=cmd_list)

    g = sub.add_parser("regen", help="regenerate the cases from conformance/generate")
    g.add_argument("--check", action="store_true", help="only check that the checked-in cases are current")
    g.add_argument("--generators", type=Path, help=argparse.SUPPRESS)
    g.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    g.set_defaults(func=cmd_regen)

    c = sub.add_parser("coverage", help="render conformance/COVERAGE.md")
    c.add_argument("--check", action="store_true", help="only check that COVERAGE.md is current")
    c.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    c.add_argument("--out", help=argparse.SUPPRESS)
    c.set_defaults(func=cmd_coverage)

    d = sub.add_parser("divergences", help="render conformance/DIVERGENCES.md from divergences.json")
    d.add_argument("--check", action="store_true", help="only check that DIVERGENCES.md is current")
    d.add_argument("--record", metavar="REPORT.json",
                   help="first copy the behaviours of the failing listed cases from a run's JSON report")
    d.add_argument("--divergence-key", metavar="IMPL", help="with --record: the implementation's entries "
                                                            "(default: the report's --impl)")
    d.add_argument("--divergences", type=Path, help=argparse.SUPPRESS)
    d.add_argument("--out", help=argparse.SUPPRESS)
    d.set_defaults(func=cmd_divergences)
    return p


def main(argv: Optional[list[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in SUBCOMMANDS and argv[0] not in ("-h", "--help", "--version")):
        argv = ["run"] + argv
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        _err("interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
