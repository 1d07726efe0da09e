"""Measure how closely relax-ref's passes do what TVM's passes do, on TVM's own pass tests (PASS.FIDELITY.1).

``python -m relax_ref.testing.tvm_pass_pairs DIR [--pass NAME] [--show NAME] [--json OUT] [--tvm] [--check]
[--release R]``

``DIR`` is an apache/tvm checkout (or its ``tests/python/relax``) that the user brings; nothing of it is
stored in the project. The (input module, passes, expected module) triples of its
``test_transform_*.py`` files are extracted with :mod:`ast` (:mod:`relax_ref.testing.tvm_pass_extract`;
the files are never imported or run); for each pair relax-ref parses both modules, runs its passes of
the same names with the test's literal arguments (under the test's ``PassContext`` options) and
compares the result with the expected module under structural equality. Passes that write a TVM
release's form (``release=``, :mod:`relax_ref.ops.releases`) write the release of the tests read: the
tag named in ``DIR``'s path (``v0.25.0`` -> ``"0.25"``; a branch such as ``main`` -> the current
release), or ``--release`` (PASS.RELEASE.3). Per pass (the pass a pair is
about, :func:`~relax_ref.testing.tvm_pass_extract.primary_pass`) the table counts:

* ``pairs`` -- pairs extracted;
* ``equal`` / ``different`` -- relax-ref's output is / is not structurally equal to TVM's expectation;
* ``unreadable`` -- relax-ref cannot parse the input or the expected module;
* ``raised`` -- a relax-ref pass raised an error (or ran past the time limit);
* ``no pass`` -- relax-ref has no pass of one of the names in the chain.

With ``--tvm`` (TVM installed) every compared pair is compared again under TVM's own structural
equality: both modules are printed in the installed TVM's dialect and read by TVM in a worker process
(:func:`compare_with_tvm`); two more columns count the pairs TVM finds equal. Since relax-ref's
equality compares TIR block names and TVM's does not, the two columns can differ.

Each readable pair that is not equal (under TVM's equality when TVM compared it) is looked up in the
recorded divergences (:mod:`relax_ref.testing.tvm_pass_divergences`, PASS.FIDELITY.6); two more columns
count, per pass, the pairs not equal that are recorded and those that are not. ``--check`` exits with
status 1 when a pair is neither equal nor recorded, or a pass crashed (raised anything but a
:class:`~relax_ref.errors.RelaxError`).

It also lists the assertion sites that did not give a pair, by reason (a module built with Python, a
pass argument that is not a literal, an expected error). ``--show NAME`` prints, for every differing
pair of that pass, where the two modules first differ; ``--diff FILE:LINE`` prints both modules.
"""

from __future__ import annotations

from ..errors import RelaxError

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .oracle import TimeLimitExceeded, time_limit
from .tvm_pass_extract import Pair, PassCall, Site, extract_pairs

STATUSES = ("equal", "different", "unreadable", "raised", "no pass")


@dataclass
class Outcome:
    file: str
    line: int
    test: str
    pass_name: str
    chain: str
    status: str          # one of STATUSES
    detail: str = ""
    tvm: str = ""        # with --tvm: equal / different / unreadable under TVM's structural equality
    tvm_detail: str = ""
    crash: bool = False  # raised something other than a RelaxError (a crash, never a refusal)
    recorded: str = ""   # the spec rule of the recorded divergence that explains a difference

    @property
    def judged_equal(self) -> bool:
        """Equal under the judging equality: TVM's when TVM compared the pair, else relax-ref's."""
        if self.tvm in ("equal", "different"):
            return self.tvm == "equal"
        return self.status == "equal"

    @property
    def readable(self) -> bool:
        return self.status not in ("unreadable", "no pass")


class _Unreadable(Exception):
    """A TVMScript argument of a pass that relax-ref cannot read."""


def _first_line(msg: str) -> str:
    return (msg.splitlines() or [""])[0][:300]


def load_definition(d, wrap: bool):
    """The module (or lone function) a definition denotes: ``@I.ir_module`` classes parse to modules;
    a lone ``@R.function`` / ``@T.prim_func`` is a function, or a module holding it as ``main`` when the
    test wrapped it with ``IRModule.from_expr``."""
    from ..ir.module import IRModule
    from ..script.parser import parse

    mod = parse(d.text)
    if d.kind == "module":
        return mod
    (name, func), = list(mod.functions_items())[:1] or [(None, None)]
    if wrap:
        from ..ir.expr import GlobalVar

        return IRModule({GlobalVar("main"): func}, mod.attrs, mod.global_infos)
    return func


def _has_pass(name: str) -> bool:
    from .. import transform

    return callable(getattr(transform, name, None))


def _resolve(v: Any, module) -> Any:
    """Parameter references of the test (``Before["main"].params[0]``) as the parsed module's variables."""
    from .tvm_pass_values import LambdaV, ParamRef, ParamSlice, Script

    if isinstance(v, Script):
        if not v.defn.standalone:
            raise _Unreadable(f"argument {v.defn.name}: uses Python names {', '.join(v.defn.free_names)}")
        try:
            return load_definition(v.defn, v.wrap)
        except Exception as e:  # noqa: BLE001 - an argument relax-ref cannot read
            raise _Unreadable(f"argument {v.defn.name}: {type(e).__name__}: {_first_line(str(e))}") from None
    if isinstance(v, LambdaV):
        from .tvm_pass_dpl import index_map_from_lambda

        return index_map_from_lambda(v.node)
    if isinstance(v, (ParamRef, ParamSlice)):
        if module is None or v.func not in module:
            raise LookupError(f"no function '{v.func}' to take a parameter from")
        params = module[v.func].params
        return params[v.index] if isinstance(v, ParamRef) else list(params[v.start:v.stop])
    if isinstance(v, list):
        return [_resolve(x, module) for x in v]
    if isinstance(v, tuple):
        return tuple(_resolve(x, module) for x in v)
    if isinstance(v, dict):
        return {_resolve(k, module): _resolve(x, module) for k, x in v.items()}
    return v


def build_pass(p: PassCall, module=None, release: Optional[str] = None):
    """relax-ref's pass of the same name with the test's literal arguments (None: relax-ref has none);
    parameter references are resolved against ``module``, the parsed input. A pass that writes a TVM
    release's form gets ``release`` (PASS.RELEASE.3)."""
    import inspect

    from .. import transform

    cls = getattr(transform, p.name, None)
    if cls is None or not callable(cls):
        return None
    args, kwargs = p.python_args()
    kwargs = {k: _resolve(v, module) for k, v in kwargs.items()}
    if release is not None and isinstance(cls, type) and "release" in inspect.signature(cls).parameters:
        kwargs.setdefault("release", release)
    return cls(*[_resolve(a, module) for a in args], **kwargs)


def release_of_root(root: Path) -> str:
    """(PASS.RELEASE.3) The TVM release whose tests ``root`` holds: the innermost component of its
    path that names a release tag (``v0.25.0`` -> ``"0.25"``), else the current release (a branch such
    as ``main``)."""
    import re

    from ..ops.releases import CURRENT, release_of_tag

    for part in reversed(Path(root).resolve().parts):
        if re.fullmatch(r"v\d+\.\d+(\.\d+)?", part):
            return release_of_tag(part)
    return CURRENT.name


def _context(chain: Sequence[PassCall]):
    """A PassContext with the options a chain's last pass was created under."""
    from ..transform import PassContext

    opts: Dict[str, Any] = {}
    for p in chain[-1:]:
        for k, v in p.context:
            if k in ("opt_level", "config", "required_pass", "disabled_pass") and hasattr(v, "value"):
                opts[k] = v.value
    config = opts.pop("config", None) or {}
    from ..transform.pass_infra import config_options

    known = config_options()
    opts["config"] = {k: v for k, v in config.items() if k in known}
    try:
        return PassContext(**opts)
    except Exception:  # noqa: BLE001 - an option relax-ref does not take: run under the default context
        return PassContext()


def run_chain(mod, chain: Sequence[PassCall], release: Optional[str] = None):
    passes = []
    for p in chain:
        built = build_pass(p, mod, release)
        if built is None:
            raise NotImplementedError(f"relax-ref has no pass {p.name}")
        passes.append(built)
    with _context(chain):
        for p in passes:
            mod = p(mod)
    return mod


def _select(x, name: Optional[str]):
    if name is None:
        return x
    return x[name]


def check_pair(pair: Pair, timeout: float = 60.0, dialect: Optional[str] = None,
               texts: Optional[List[tuple]] = None, release: Optional[str] = None) -> Outcome:
    """Run one pair (see the module docstring) with the passes writing TVM ``release``'s form. With
    ``texts``, a compared pair's two modules are appended to it printed in ``dialect`` (for
    :func:`compare_with_tvm`)."""
    from ..analysis.structural_equal import first_difference

    chain = " -> ".join(p.describe() for p in pair.chain)
    out = Outcome(pair.file, pair.line, pair.test, pair.pass_name, chain, "equal")
    missing = [p.name for p in pair.chain + pair.expected_chain if not _has_pass(p.name)]
    if missing:
        out.status, out.detail = "no pass", missing[0]
        return out
    for side, d, wrap in (("input", pair.input, pair.input_wrap), ("expected", pair.expected, pair.expected_wrap)):
        if not d.standalone:
            out.status, out.detail = "unreadable", f"{side}: uses Python names {', '.join(d.free_names)}"
            return out
    try:
        before = load_definition(pair.input, pair.input_wrap)
        expected = load_definition(pair.expected, pair.expected_wrap)
    except Exception as e:  # noqa: BLE001 - counted as unreadable, the message kept
        out.status, out.detail = "unreadable", f"{type(e).__name__}: {_first_line(str(e))}"
        return out
    try:
        with time_limit(timeout):
            after = run_chain(before, pair.chain, release)
            if pair.expected_chain:
                expected = run_chain(expected, pair.expected_chain, release)
    except TimeLimitExceeded:
        out.status, out.detail = "raised", f"timeout after {timeout:.0f} s"
        return out
    except _Unreadable as e:
        out.status, out.detail = "unreadable", str(e)
        return out
    except Exception as e:  # noqa: BLE001 - counted as raised, the message kept
        out.status, out.detail = "raised", f"{type(e).__name__}: {_first_line(str(e))}"
        out.crash = not isinstance(e, RelaxError)
        return out
    try:
        a = _select(after, pair.select)
        b = _select(expected, pair.expected_select)
        diff = first_difference(a, b, map_free_vars=pair.map_free_vars)
    except Exception as e:  # noqa: BLE001
        out.status, out.detail = "raised", f"comparison: {type(e).__name__}: {_first_line(str(e))}"
        return out
    if diff is not None:
        out.status, out.detail = "different", _first_line(diff)
    if texts is not None:
        try:
            # a selected function is compared within its module (it may call the module's functions)
            texts.append((out, _script(after, dialect), _script(expected, dialect),
                          (pair.select if hasattr(after, "script") else None,
                           pair.expected_select if hasattr(expected, "script") else None), pair.map_free_vars))
        except Exception as e:  # noqa: BLE001 - counted, the message kept
            out.tvm, out.tvm_detail = "unprintable", f"{type(e).__name__}: {_first_line(str(e))}"
    return out


def compare_with_tvm(texts: Sequence[tuple], timeout: float = 60.0,
                     progress: bool = False) -> str:
    """(PASS.FIDELITY.2) Set ``tvm`` of each outcome: whether the installed TVM, reading both modules
    as relax-ref prints them, finds them structurally equal (TVM's own ``assert_structural_equal``, in a
    worker process). Returns TVM's version."""
    from .tvm_bridge import TvmPassRunner

    with TvmPassRunner(timeout=timeout) as runner:
        for i, (out, a, b, select, map_free_vars) in enumerate(texts):
            r = runner.compare(a, b, select, map_free_vars)
            out.tvm = {"equal": "equal", "different": "different"}.get(r.status, "unreadable")
            out.tvm_detail = "" if r.status == "equal" else _first_line(r.message)
            if progress and (i + 1) % 100 == 0:
                print(f"  {i + 1} pairs compared by TVM", file=sys.stderr)
        return runner.version


def measure(root: Path, passes: Optional[Sequence[str]] = None, timeout: float = 60.0,
            progress: bool = False, with_tvm: bool = False,
            release: Optional[str] = None) -> Tuple[List[Outcome], List[Site]]:
    """Every pair of ``root`` (only those about ``passes``); ``with_tvm`` also compares each compared
    pair under the installed TVM's structural equality (:func:`compare_with_tvm`). The passes write
    the form of ``release`` (None: :func:`release_of_root`)."""
    if release is None:
        release = release_of_root(root)
    dialect = None
    texts: Optional[List[tuple]] = None
    if with_tvm:
        from ..script.dialect import installed_tvm_dialect

        dialect, texts = installed_tvm_dialect(), []
    pairs, sites = extract_pairs(root)
    seen = set()
    outcomes = []
    for pair in pairs:
        if passes and pair.pass_name not in passes:
            continue
        key = (pair.file, pair.line, pair.input.key, pair.expected.key, tuple(p.describe() for p in pair.chain),
               tuple(p.describe() for p in pair.expected_chain), pair.select)
        if key in seen:
            continue
        seen.add(key)
        outcomes.append(check_pair(pair, timeout, dialect, texts, release))
        if progress and len(outcomes) % 100 == 0:
            print(f"  {len(outcomes)} pairs", file=sys.stderr)
    if texts:
        compare_with_tvm(texts, timeout, progress)
    apply_records(outcomes)
    if passes:
        sites = [s for s in sites if s.pass_name in passes]
    return outcomes, sites


def apply_records(outcomes: Sequence[Outcome]) -> None:
    """(PASS.FIDELITY.6) Mark each readable pair that is not equal under the judging equality with the
    recorded divergence that explains it (the rule of :data:`~relax_ref.testing.tvm_pass_divergences.RECORDED`)."""
    from .tvm_pass_divergences import find

    for o in outcomes:
        o.recorded = ""
        if o.readable and not o.judged_equal and not o.crash:
            r = find(Path(o.file).name, o.test, o.pass_name)
            if r is not None:
                o.recorded = r.rule


def unrecorded(outcomes: Sequence[Outcome]) -> List[Outcome]:
    """The readable pairs that are neither equal (under the judging equality) nor a recorded divergence,
    and every crash."""
    return [o for o in outcomes if o.crash or (o.readable and not o.judged_equal and not o.recorded)]


def stale_records(outcomes: Sequence[Outcome]) -> list:
    """Recorded divergences that explain no pair of this measurement (fixed, or of another TVM tag)."""
    from .tvm_pass_divergences import RECORDED

    used = {(Path(o.file).name, o.test, o.pass_name) for o in outcomes if o.recorded}
    files = {Path(o.file).name for o in outcomes}
    return [r for r in RECORDED if r.file in files and (r.file, r.test, r.pass_name) not in used]


def table(outcomes: Sequence[Outcome]) -> Dict[str, Counter]:
    rows: Dict[str, Counter] = defaultdict(Counter)
    for o in outcomes:
        rows[o.pass_name]["pairs"] += 1
        rows[o.pass_name][o.status] += 1
        if o.tvm:
            rows[o.pass_name]["tvm " + o.tvm] += 1
            rows[o.pass_name]["tvm compared"] += 1
        if o.readable and not o.judged_equal:
            rows[o.pass_name]["recorded" if o.recorded and not o.crash else "unrecorded"] += 1
    return dict(rows)


def format_table(rows: Dict[str, Counter]) -> str:
    """The per-pass table; with TVM's comparison (``--tvm``) two more columns: the pairs TVM finds
    equal, and their share of the readable pairs."""
    with_tvm = any(r["tvm compared"] for r in rows.values())
    head = "| pass | pairs | equal | different | unreadable | raised | no pass | equal of readable |"
    if with_tvm:
        head += " TVM: equal | TVM: equal of readable |"
    head += " not equal: recorded | not equal: unrecorded |"
    lines = [head, "|" + "---|" * (12 if with_tvm else 10)]
    total: Counter = Counter()
    for name in sorted(rows, key=lambda n: (-rows[n]["pairs"], n)):
        r = rows[name]
        total.update(r)
        lines.append(_row(name, r, with_tvm))
    lines.append(_row("**total**", total, with_tvm))
    return "\n".join(lines)


def _row(name: str, r: Counter, with_tvm: bool = False) -> str:
    readable = r["pairs"] - r["unreadable"] - r["no pass"]
    pct = f"{100.0 * r['equal'] / readable:.0f}%" if readable else "-"
    row = (f"| {name} | {r['pairs']} | {r['equal']} | {r['different']} | {r['unreadable']} | {r['raised']} | "
           f"{r['no pass']} | {pct} |")
    if with_tvm:
        tpct = f"{100.0 * r['tvm equal'] / readable:.0f}%" if readable else "-"
        row += f" {r['tvm equal']} | {tpct} |"
    row += f" {r['recorded']} | {r['unrecorded']} |"
    return row


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m relax_ref.testing.tvm_pass_pairs",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path, help="an apache/tvm checkout, or its tests/python/relax")
    ap.add_argument("--pass", dest="passes", action="append", help="only pairs about this pass (repeatable)")
    ap.add_argument("--all", action="store_true", help="list passes relax-ref does not have too")
    ap.add_argument("--show", metavar="PASS", help="print the differing, unreadable and raising pairs of PASS")
    ap.add_argument("--diff", metavar="FILE:LINE", help="print both modules of the pair at FILE:LINE")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per pair (default 60)")
    ap.add_argument("--json", type=Path, help="write every outcome as JSON")
    ap.add_argument("--tvm", action="store_true",
                    help="also compare under the installed TVM's structural equality (both modules printed in "
                         "its dialect and read by TVM in a worker process)")
    ap.add_argument("--release", help="the TVM release whose pass output form relax-ref writes (0.25, 0.27; "
                                      "default: the tag in ROOT's path, else the current release)")
    ap.add_argument("--check", action="store_true",
                    help="exit with status 1 when a readable pair is neither equal nor a recorded divergence, "
                         "or a pass crashed (PASS.FIDELITY.6)")
    args = ap.parse_args(argv)
    t0 = time.time()
    if args.diff:
        return _print_diff(args.root, args.diff, args.release)
    release = args.release or release_of_root(args.root)
    outcomes, sites = measure(args.root, args.passes, args.timeout, progress=True, with_tvm=args.tvm,
                              release=release)
    tvm_version = _tvm_version() if args.tvm else ""
    rows = table(outcomes)
    if not args.all:
        rows = {k: v for k, v in rows.items() if v["pairs"] != v["no pass"]}
    print(format_table(rows))
    missing = sorted({o.pass_name for o in outcomes if o.status == "no pass"} - set(rows))
    if missing and not args.all:
        print(f"\npairs of passes relax-ref does not have: "
              + ", ".join(f"{n} ({sum(o.pass_name == n for o in outcomes)})" for n in missing))
    reasons = Counter(s.reason for s in sites)
    if reasons:
        print(f"\nassertion sites that gave no pair ({len(sites)}):")
        for r, n in reasons.most_common():
            print(f"  {n:4d}  {r}")
    if args.show:
        print(f"\n{args.show}: pairs not equal")
        for o in outcomes:
            if o.pass_name == args.show and (o.status != "equal" or o.tvm not in ("", "equal")):
                tvm = f" [TVM: {o.tvm}] {o.tvm_detail}" if o.tvm else ""
                print(f"  {Path(o.file).name}:{o.line} {o.test} [{o.status}] {o.detail}{tvm}")
    if args.json:
        args.json.write_text(json.dumps({"outcomes": [asdict(o) for o in outcomes],
                                         "sites": [asdict(s) for s in sites]}, indent=1))
    judge = f"TVM {tvm_version}'s" if tvm_version else "relax-ref's"
    print(f"\njudged under {judge} structural equality; passes in TVM {release}'s output form")
    low = [n for n, r in sorted(rows.items()) if _share(r) is not None and _share(r) < 0.9]
    if low:
        print("passes with less than 90% of their readable pairs equal: " + ", ".join(low))
    bad = unrecorded(outcomes)
    for o in bad:
        what = "crash" if o.crash else "not equal, no recorded divergence"
        print(f"  {what}: {Path(o.file).name}:{o.line} {o.test} [{o.pass_name}] {o.tvm_detail or o.detail}")
    stale = stale_records(outcomes) if not args.passes else []
    if stale:
        print(f"recorded divergences that explain no pair here ({len(stale)}): "
              + ", ".join(f"{r.file}::{r.test}" for r in stale))
    print(f"\n({time.time() - t0:.0f} s)", file=sys.stderr)
    return 1 if args.check and bad else 0


def _share(r: Counter) -> Optional[float]:
    readable = r["pairs"] - r["unreadable"] - r["no pass"]
    if not readable:
        return None
    return (r["tvm equal"] if r["tvm compared"] else r["equal"]) / readable


def _tvm_version() -> str:
    try:
        from importlib.metadata import version

        return version("apache-tvm")
    except Exception:  # noqa: BLE001 - not installed as a distribution
        return "(installed)"


def _print_func(f) -> str:
    from ..script.printer import print_function

    try:
        return print_function(f)
    except Exception:  # noqa: BLE001 - fall back to the repr
        return repr(f)


def _script(mod, dialect: Optional[str] = None) -> str:
    """The module in ``dialect``, by default in the newest dialect that can write it."""
    if dialect is not None:
        if hasattr(mod, "script"):
            return mod.script(dialect=dialect)
        from ..script.printer import print_function

        return print_function(mod, dialect=dialect)
    if not hasattr(mod, "script"):
        return _print_func(mod)
    for dialect in ("tvm", "tvm-0.25", "classic"):
        try:
            return mod.script(dialect=dialect)
        except RelaxError:
            continue
    return mod.script()


def _print_diff(root: Path, where: str, release: Optional[str] = None) -> int:
    fname, _, line = where.partition(":")
    release = release or release_of_root(root)
    pairs, _ = extract_pairs(root)
    found = [p for p in pairs if Path(p.file).name == Path(fname).name and str(p.line) == line]
    if not found:
        print(f"no pair at {where}")
        return 1
    for pair in found:
        print(f"=== {pair.test}: {' -> '.join(p.describe() for p in pair.chain)}")
        try:
            after = _select(run_chain(load_definition(pair.input, pair.input_wrap), pair.chain, release),
                            pair.select)
            print("--- relax-ref ---")
            print(_script(after))
        except Exception as e:  # noqa: BLE001 - shown
            print(f"--- relax-ref raised {type(e).__name__}: {e}")
        print("--- expected ---")
        print(pair.expected.body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
