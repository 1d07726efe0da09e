"""Measure how much of the TVMScript in a body of Python sources relax-ref reads (TEXT.DIALECT.*).

The intended corpus is TVM's own test suite (``tests/python/relax`` of an apache/tvm checkout the user
brings): every ``@I.ir_module`` / ``@R.function`` / ``@T.prim_func`` definition is cut out of the files
with Python's :mod:`ast` (the files are never imported or run), kept when it is *standalone* (it uses no
Python variable of its file other than the TVMScript namespaces and module-level symbolic-variable
declarations), and then

1. optionally handed to TVM's own parser (``--tvm``; in a worker process, since TVM can abort) to learn
   whether TVM accepts it;
2. parsed by :func:`relax_ref.parse`;
3. printed in every dialect and parsed back, the round trip compared with
   :func:`relax_ref.structural_equal`.

``python -m relax_ref.testing.tvm_corpus DIR [DIR ...] [--tvm] [--tvm-cache FILE] [--json OUT] [--causes N]
[--show CAUSE]`` prints the tally (definitions, standalone, accepted by TVM, parsed, round-tripped) and the
failure causes counted, each cause being the error message with names and numbers masked.

Each rejection is put in a category (:data:`CATEGORIES`): ``operator`` (an operator the registry does not
have yet), ``layout`` (a packed data layout), ``distributed`` (distributed Relax) -- other parts of the
project, counted apart --, ``python`` (the definition uses Python objects of TVM that a text cannot
express, e.g. ``topi`` functions or a ``BasePyModule``), ``ill-formed`` (a struct-info or well-formedness
error in a text that turns TVM's check off) and ``text`` (the reading of TVMScript itself). A tvm-0.27
round-trip failure of a module using what that dialect cannot write (``tir_vars``, ``R.Prim(value=...)``,
TEXT.DIALECT.5) is reported as *inexpressible*; the summary gives the round trip both strictly and "in
every dialect that can write the module".

TVM's answers are cached per TVM version and worker protocol (:data:`WORKER_PROTOCOL`): the worker hands
``tvm.script.from_source`` the definition alone, its file's imports and declarations as ``extra_vars``
and its decorator's ``check_well_formed`` / ``s_tir`` options, which is what the decorator does.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import hashlib
import json
import os
import re
import select
import subprocess
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

#: The last component of a decorator that starts a TVMScript definition, and its kind
_DECORATORS = {"ir_module": "module", "function": "function", "prim_func": "prim_func"}
#: The roots a TVMScript decorator is reached from (``I.ir_module``, ``tvm.script.ir_module`` ...)
_SCRIPT_ROOTS = {"tvm", "I", "R", "T", "ir", "relax", "tir", "tirx", "script"}
_BUILTINS = set(dir(builtins))
#: module-level ``n = T.int64()`` / ``n = TypeVar("n")`` / ``n = tir.Var("n", "int64")`` declarations
_DECL_CALLS = {"int64", "int32", "int16", "int8", "uint8", "bool", "TypeVar", "Var", "SizeVar"}


@dataclass
class Definition:
    """One TVMScript definition cut out of a source file."""

    file: str
    line: int
    name: str
    kind: str                       # "module" | "function" | "prim_func"
    text: str                       # header (imports, declarations) + the dedented definition
    standalone: bool
    free_names: Tuple[str, ...] = ()
    body: str = ""                  # the dedented definition alone
    #: the header as data, for TVM's parser (which reads no import statements): the imports as
    #: (module, name, alias) and the declarations as (name, constructor, dtype)
    imports: Tuple[Tuple[str, str, str], ...] = ()
    decls: Tuple[Tuple[str, str, str], ...] = ()

    @property
    def key(self) -> str:
        return hashlib.sha1(self.text.encode()).hexdigest()[:16]


@dataclass
class Result:
    """What happened to one standalone definition."""

    file: str
    line: int
    name: str
    kind: str
    tvm: Optional[str] = None       # None (not asked) | "ok" | "error" | "crash" | "timeout"
    tvm_message: str = ""
    parse: str = "ok"               # "ok" | error class name | "crash:<exception class>"
    message: str = ""
    roundtrip: Dict[str, str] = field(default_factory=dict)   # dialect -> "ok" | failure
    unchecked: bool = False         # the text turns TVM's well-formedness check off
    inexpressible: List[str] = field(default_factory=list)   # dialects that cannot write the module
    category: str = ""              # why it was rejected (see CATEGORIES), "" when it parsed

    @property
    def parsed(self) -> bool:
        return self.parse == "ok"

    @property
    def roundtrips(self) -> bool:
        return self.parsed and all(v == "ok" for v in self.roundtrip.values())

    @property
    def roundtrips_where_expressible(self) -> bool:
        """Round trip in every dialect that can write the module (TEXT.DIALECT.5)."""
        return self.parsed and all(v == "ok" or d in self.inexpressible for d, v in self.roundtrip.items())


# ---------------------------------------------------------------------------------------------------
# Extraction
# ---------------------------------------------------------------------------------------------------


def _dotted(node: ast.AST) -> Optional[str]:
    return dotted_name(node.func if isinstance(node, ast.Call) else node)


def dotted_name(node: ast.AST) -> Optional[str]:
    """``a.b.c`` for an attribute chain over a name (None for anything else)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _script_kind(node: ast.AST) -> Optional[str]:
    """The kind of TVMScript definition ``node`` is, from its decorators (None: not one)."""
    for dec in getattr(node, "decorator_list", ()):
        path = _dotted(dec)
        if not path or "." not in path:
            continue
        root, last = path.split(".", 1)[0], path.rsplit(".", 1)[1]
        if last in _DECORATORS and root in _SCRIPT_ROOTS:
            return _DECORATORS[last]
    return None


class _Names(ast.NodeVisitor):
    """Names read and names bound anywhere inside a definition."""

    def __init__(self) -> None:
        self.loaded: Set[str] = set()
        self.bound: Set[str] = set()

    def visit_Name(self, node: ast.Name) -> None:
        (self.loaded if isinstance(node.ctx, ast.Load) else self.bound).add(node.id)

    def visit_arg(self, node: ast.arg) -> None:
        self.bound.add(node.arg)
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.bound.add(node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.bound.add(node.name)
        self.generic_visit(node)

    def visit_alias(self, node: ast.alias) -> None:
        self.bound.add((node.asname or node.name).split(".")[0])


def _is_tvm_import(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Import):
        return all(a.name == "tvm" or a.name.startswith("tvm.") for a in stmt.names)
    if isinstance(stmt, ast.ImportFrom):
        return bool(stmt.module) and (stmt.module == "tvm" or stmt.module.startswith("tvm.")
                                      or stmt.module == "typing")
    return False


def _module_context(tree: ast.Module, lines: Sequence[str]) -> Tuple[Dict[str, tuple], Dict[str, str]]:
    """The file's TVM imports (bound name -> (statement, (module, name, alias))) and its
    symbolic-variable declarations (name -> statement)."""
    imports: Dict[str, tuple] = {}
    decls: Dict[str, str] = {}
    for stmt in tree.body:
        if _is_tvm_import(stmt):
            for a in stmt.names:
                bound = (a.asname or a.name).split(".")[0]
                alias = f"{a.name} as {a.asname}" if a.asname else a.name
                if isinstance(stmt, ast.ImportFrom):
                    imports.setdefault(bound, (f"from {stmt.module} import {alias}", (stmt.module, a.name, bound)))
                else:
                    imports.setdefault(bound, (f"import {alias}", (a.name if a.asname else bound, "", bound)))
        elif (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
              and isinstance(stmt.value, ast.Call)):
            callee = (_dotted(stmt.value) or "").rsplit(".", 1)[-1]
            if callee in _DECL_CALLS:
                decls[stmt.targets[0].id] = "\n".join(lines[stmt.lineno - 1:stmt.end_lineno]).strip()
    return imports, decls


def _decl_data(name: str, stmt: str) -> Tuple[str, str, str]:
    """``n = T.int64()`` -> ("n", "int64", ""); ``n = TypeVar("n")`` -> ("n", "TypeVar", "");
    ``n = tir.Var("n", "int64")`` -> ("n", "Var", "int64")."""
    call = ast.parse(stmt).body[0].value
    callee = (_dotted(call) or "").rsplit(".", 1)[-1]
    strs = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return name, callee, strs[1] if callee in ("Var", "SizeVar") and len(strs) > 1 else ""


def _cut(node: ast.AST, lines: Sequence[str]) -> str:
    """The definition's text with its decorators, dedented by its own indentation."""
    first = min([d.lineno for d in node.decorator_list] + [node.lineno])
    indent = node.col_offset
    out = []
    for raw in lines[first - 1:node.end_lineno]:
        out.append(raw[indent:] if raw[:indent].strip() == "" else raw.lstrip())
    return "\n".join(out) + "\n"


def _definitions(tree: ast.AST) -> Iterator[ast.AST]:
    """Outermost TVMScript definitions (those nested in another one belong to it)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef)) and _script_kind(child):
                yield child
            else:
                stack.append(child)


def extract_file(path: Path) -> List[Definition]:
    """Every TVMScript definition of one Python file (never imported or run)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    lines = text.splitlines()
    imports, decls = _module_context(tree, lines)
    out = []
    for node in sorted(_definitions(tree), key=lambda n: n.lineno):
        names = _Names()
        names.visit(node)
        for dec in node.decorator_list:
            names.visit(dec)
        free = names.loaded - names.bound - set(imports) - _BUILTINS - set(decls)
        used = sorted(names.loaded & set(decls))
        needed = {n for n in names.loaded if n in imports}
        for n in used:  # the declarations' own namespaces (T.int64(), TypeVar)
            needed.update(m.id for m in ast.walk(ast.parse(decls[n])) if isinstance(m, ast.Name) and m.id in imports)
        body = _cut(node, lines)
        header = "\n".join([imports[n][0] for n in sorted(needed)] + [decls[n] for n in used])
        out.append(Definition(str(path), node.lineno, node.name, _script_kind(node) or "",
                              (header + "\n\n" if header else "") + body, not free, tuple(sorted(free)),
                              body, tuple(imports[n][1] for n in sorted(needed)),
                              tuple(_decl_data(n, decls[n]) for n in used)))
    return out


def extract(paths: Iterable[Path], recursive: bool = False) -> List[Definition]:
    """Definitions of every ``*.py`` file under the given files or directories."""
    out: List[Definition] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            files = sorted(p.rglob("*.py") if recursive else p.glob("*.py"))
        else:
            files = [p]
        for f in files:
            out.extend(extract_file(f))
    return out


# ---------------------------------------------------------------------------------------------------
# relax-ref side
# ---------------------------------------------------------------------------------------------------


def _mask(msg: str) -> str:
    """An error message with names and numbers masked, so that messages group into causes."""
    msg = msg.splitlines()[0] if msg else ""
    msg = re.sub(r"'[^']*'", "'_'", msg)
    msg = re.sub(r'"[^"]*"', '"_"', msg)
    msg = re.sub(r"\b\d+\b", "N", msg)
    msg = re.sub(r"<string>:N:N: ?", "", msg)
    return msg[:160]


#: why a definition TVM accepts is rejected, tried in order: (category, pattern of the message); the
#: first three are other parts of the project (operators and their layouts, distributed Relax)
CATEGORIES = (
    ("operator", r"unknown Relax operator|derive function|R\.inspect\."),
    ("layout", r"packed data layout"),
    ("distributed", r"R\.dist\.|device_mesh|DTensor"),
    ("python", r"undefined name '(topi|te|np|numpy)'|BasePyModule|tvm\.testing|runtime_builtin"),
    ("ill-formed", None),   # a StructInfo / well-formedness error where the text turns TVM's check off
    ("text", None),         # everything else: the reading of TVMScript itself
)
OTHER_WORK = ("operator", "layout", "distributed")


def categorize(res: "Result") -> str:
    """The category of a rejected definition (:data:`CATEGORIES`)."""
    msg = res.message
    for name, pattern in CATEGORIES:
        if pattern is not None and re.search(pattern, msg):
            return name
    if res.unchecked and res.parse in ("StructInfoError", "WellFormedError"):
        return "ill-formed"
    return "text"


_UNCHECKED = re.compile(r"check_well_formed\s*=\s*False")


def check_definition(d: Definition, dialects: Sequence[str]) -> Result:
    """Parse ``d`` with relax-ref, then print it in each dialect and parse it back."""
    from ..analysis.structural_equal import structural_equal
    from ..errors import RelaxError
    from ..script.parser import parse

    res = Result(d.file, d.line, d.name, d.kind, unchecked=bool(_UNCHECKED.search(d.text)))
    try:
        mod = parse(d.text)
    except RelaxError as e:
        res.parse, res.message = type(e).__name__, str(e)
        res.category = categorize(res)
        return res
    except RecursionError as e:
        res.parse, res.message, res.category = "crash:RecursionError", str(e), "crash"
        return res
    except Exception as e:  # noqa: BLE001 - measured and reported as a crash, never hidden
        res.parse, res.message, res.category = f"crash:{type(e).__name__}", str(e), "crash"
        return res
    texts = {}
    for dialect in dialects:
        try:
            text = texts[dialect] = mod.script(dialect=dialect)
        except Exception as e:  # noqa: BLE001 - reported
            res.roundtrip[dialect] = f"print {type(e).__name__}: {_mask(str(e))}"
            continue
        try:
            # an ill-formed module (the text turned the check off) is read back the same way
            back = parse(text, check_well_formed=not res.unchecked)
        except Exception as e:  # noqa: BLE001 - reported
            res.roundtrip[dialect] = f"reparse {type(e).__name__}: {_mask(str(e))}"
            continue
        res.roundtrip[dialect] = "ok" if structural_equal(mod, back) else "not equal"
    res.inexpressible = sorted(d for d, v in res.roundtrip.items() if v != "ok" and _inexpressible(d, texts, v))
    return res


def _inexpressible(dialect: str, texts: Dict[str, str], failure: str) -> bool:
    """A tvm-0.27 round-trip failure of a module that uses what tvm-0.27 cannot write
    (TEXT.DIALECT.5): ``call_tir(..., tir_vars=...)``, or an ``R.Prim(value=...)`` other than a scalar
    parameter's symbol (seen in its tvm-0.25 text)."""
    if dialect != "tvm-0.27":
        return False
    if "tir_vars" in failure or "R.Prim(value" in failure:
        return True
    other = texts.get("tvm-0.25", "")
    return "tir_vars=" in other or "R.Prim(value=" in other


# ---------------------------------------------------------------------------------------------------
# TVM side (a worker process: TVM can abort on bad input)
# ---------------------------------------------------------------------------------------------------


#: bump when the worker's way of asking TVM changes: cached answers of older workers are ignored
WORKER_PROTOCOL = 2


def decorator_options(body: str) -> Dict[str, bool]:
    """The literal ``check_well_formed=`` / ``s_tir=`` keywords of a definition's decorator: what the
    decorator passes to TVM's parser, so the worker passes them too."""
    tree = ast.parse(body)
    options: Dict[str, bool] = {}
    node = next((n for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))), None)
    for dec in getattr(node, "decorator_list", ()):
        if isinstance(dec, ast.Call):
            for kw in dec.keywords:
                if kw.arg in ("check_well_formed", "s_tir") and isinstance(kw.value, ast.Constant) \
                        and isinstance(kw.value.value, bool):
                    options[kw.arg] = kw.value.value
    return options


def _serve() -> None:  # pragma: no cover - runs in the worker process
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    import importlib
    import typing

    import tvm
    from tvm.script import from_source
    from tvm.script.parser.core.entry import _default_globals

    tirx = getattr(tvm, "tirx", None) or tvm.tir  # TVM 0.27 has no tvm.tir

    def env(req: dict) -> dict:
        names = dict(_default_globals())
        for module, name, bound in req["imports"]:
            mod = importlib.import_module(module)
            names[bound] = getattr(mod, name) if name else mod
        for name, ctor, dtype in req["decls"]:
            if ctor == "TypeVar":
                names[name] = typing.TypeVar(name)
            elif ctor in ("Var", "SizeVar"):
                names[name] = getattr(tirx, ctor)(name, dtype or "int32")
            else:
                names[name] = tirx.Var(name, ctor)
        return names

    for line in sys.stdin:
        req = json.loads(line)
        try:
            from_source(req["text"], extra_vars=env(req), **decorator_options(req["text"]))
            reply = {"status": "ok"}
        except Exception as e:  # noqa: BLE001 - TVM's rejection is the answer
            reply = {"status": "error", "message": f"{type(e).__name__}: {str(e)[-400:]}"}
        proto.write(json.dumps(reply) + "\n")
        proto.flush()


class TvmAcceptance:
    """Asks TVM (in a worker process, restarted after a crash) whether it accepts each text; answers
    are cached in a JSON file keyed by the TVM version and the text's hash."""

    def __init__(self, cache: Optional[Path] = None, timeout: float = 60.0) -> None:
        self.cache_path = cache
        self.timeout = timeout
        self.proc: Optional[subprocess.Popen] = None
        self.version = self._tvm_version()
        self.cache: Dict[str, dict] = {}
        if cache and cache.exists():
            self.cache = json.loads(cache.read_text()).get(self.version, {})

    @staticmethod
    def _tvm_version() -> str:
        out = subprocess.run([sys.executable, "-c", "import tvm; print(tvm.__version__)"],
                             capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise SystemExit("--tvm needs TVM installed (pip install apache-tvm)")
        return f"{out.stdout.strip().splitlines()[-1]}/worker{WORKER_PROTOCOL}"

    def _start(self) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "relax_ref.testing.tvm_corpus", "--worker"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True)

    def ask(self, d: Definition) -> dict:
        if d.key in self.cache:
            return self.cache[d.key]
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
        self.proc.stdin.write(json.dumps({"text": d.body, "imports": d.imports, "decls": d.decls}) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            status = "timeout" if not ready else "crash"
            self.proc.kill()
            self.proc.wait()
            self.proc = None
            reply = {"status": status}
        else:
            reply = json.loads(line)
        self.cache[d.key] = reply
        return reply

    def close(self) -> None:
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        if self.cache_path:
            data = json.loads(self.cache_path.read_text()) if self.cache_path.exists() else {}
            data[self.version] = self.cache
            self.cache_path.write_text(json.dumps(data))


# ---------------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------------


def measure(defs: Sequence[Definition], *, tvm: Optional[TvmAcceptance] = None,
            dialects: Sequence[str] = (), progress: bool = False) -> List[Result]:
    """Check every standalone definition (see the module docstring)."""
    if not dialects:
        from ..script.printer.dialect import DIALECTS

        dialects = tuple(DIALECTS)
    out = []
    todo = [d for d in defs if d.standalone]
    for i, d in enumerate(todo):
        res = check_definition(d, dialects)
        if tvm is not None:
            reply = tvm.ask(d)
            res.tvm, res.tvm_message = reply["status"], reply.get("message", "")
        out.append(res)
        if progress and (i + 1) % 200 == 0:
            print(f"  {i + 1}/{len(todo)}", file=sys.stderr)
    return out


def summarize(defs: Sequence[Definition], results: Sequence[Result]) -> dict:
    considered = [r for r in results if r.tvm in (None, "ok")]
    parsed = [r for r in considered if r.parsed]
    rejected = [r for r in results if r.tvm not in (None, "ok")]
    causes = Counter(f"[{r.category}] {r.parse}: {_mask(r.message)}" for r in considered if not r.parsed)
    categories = Counter(r.category for r in considered if not r.parsed)
    own = [r for r in considered if r.category not in OTHER_WORK]
    rt_causes = Counter(f"{dia}: {'[inexpressible] ' if dia in r.inexpressible else ''}{v}"
                        for r in parsed for dia, v in r.roundtrip.items() if v != "ok")
    return {
        "definitions": len(defs),
        "standalone": sum(d.standalone for d in defs),
        "tvm_asked": any(r.tvm is not None for r in results),
        "tvm_accepts": len(considered),
        "tvm_rejects": len(rejected),
        "parsed": len(parsed),
        "roundtrip": sum(r.roundtrips for r in parsed),
        "crashes": sum(r.parse.startswith("crash") for r in results),
        "categories": dict(categories.most_common()),
        "without_other_work": len(own),
        "parsed_without_other_work": sum(r.parsed for r in own),
        "roundtrip_without_other_work": sum(r.roundtrips for r in own),
        "roundtrip_where_expressible": sum(r.roundtrips_where_expressible for r in own),
        "inexpressible": sum(bool(r.inexpressible) and r.roundtrips_where_expressible for r in own),
        "rejected_by_both": sum(not r.parsed for r in rejected),
        "rejected_by_tvm_only": [f"{r.file}:{r.line} {r.name}" for r in rejected if r.parsed],
        "causes": causes.most_common(),
        "roundtrip_causes": rt_causes.most_common(),
    }


def _print_summary(s: dict, ncauses: int) -> None:
    base = s["tvm_accepts"]
    pct = (lambda k: f"{100.0 * k / base:.1f}%" if base else "n/a")
    print(f"definitions {s['definitions']}, standalone {s['standalone']}")
    if s["tvm_asked"]:
        print(f"TVM accepts {s['tvm_accepts']}, rejects {s['tvm_rejects']} "
              f"(relax-ref also rejects {s['rejected_by_both']}, accepts {len(s['rejected_by_tvm_only'])})")
    print(f"parsed {s['parsed']} / {base} ({pct(s['parsed'])}); round trip in every dialect "
          f"{s['roundtrip']} ({pct(s['roundtrip'])}); crashes {s['crashes']}")
    if s["categories"]:
        print("rejected by category: " + ", ".join(f"{k} {v}" for k, v in s["categories"].items()))
        own = s["without_other_work"]
        opct = (lambda k: f"{100.0 * k / own:.1f}%" if own else "n/a")
        print(f"without {'/'.join(OTHER_WORK)}: parsed {s['parsed_without_other_work']} / {own} "
              f"({opct(s['parsed_without_other_work'])}); round trip {s['roundtrip_without_other_work']} "
              f"({opct(s['roundtrip_without_other_work'])}); in every dialect that can write it "
              f"{s['roundtrip_where_expressible']} ({opct(s['roundtrip_where_expressible'])}; "
              f"{s['inexpressible']} not writable in tvm-0.27)")
    if s["causes"]:
        print("\nparse failure causes:")
        for cause, n in s["causes"][:ncauses]:
            print(f"  {n:5d}  {cause}")
    if s["roundtrip_causes"]:
        print("\nround-trip failure causes:")
        for cause, n in s["roundtrip_causes"][:ncauses]:
            print(f"  {n:5d}  {cause}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m relax_ref.testing.tvm_corpus", description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", type=Path, help="Python files or directories (e.g. tests/python/relax)")
    ap.add_argument("--recursive", action="store_true", help="descend into subdirectories")
    ap.add_argument("--tvm", action="store_true", help="ask the installed TVM which definitions it accepts")
    ap.add_argument("--tvm-cache", type=Path, help="JSON file caching TVM's answers between runs")
    ap.add_argument("--dialect", action="append", help="round-trip dialects (default: all)")
    ap.add_argument("--json", type=Path, help="write every result as JSON")
    ap.add_argument("--causes", type=int, default=40, help="how many failure causes to print")
    ap.add_argument("--show", metavar="TEXT", help="list the definitions whose failure message contains TEXT")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        _serve()
        return 0
    if not args.paths:
        ap.error("give at least one file or directory")
    t0 = time.time()
    defs = extract(args.paths, args.recursive)
    tvm = TvmAcceptance(args.tvm_cache) if args.tvm else None
    try:
        results = measure(defs, tvm=tvm, dialects=args.dialect or (), progress=True)
    finally:
        if tvm is not None:
            tvm.close()
    summary = summarize(defs, results)
    _print_summary(summary, args.causes)
    if args.show:
        print(f"\ndefinitions whose failure mentions {args.show!r}:")
        for r in results:
            msgs = [r.message] + list(r.roundtrip.values())
            if any(args.show in m for m in msgs):
                print(f"  {r.file}:{r.line} {r.name}: {r.parse} {r.message.splitlines()[0] if r.message else ''}")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "results": [asdict(r) for r in results]}, indent=1))
    print(f"\n({time.time() - t0:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
