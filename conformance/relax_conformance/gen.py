"""The generator library: describe cases in Python, write them as case directories.

A generator script (``conformance/generate/gen_<topic>.py``) defines ``generate()`` returning
``{category: [Case, ...]}``. Expected values must come from an independent oracle -- a NumPy formula
written in the script, hand-computed values, or a spec rule -- never from an implementation::

    import numpy as np
    from relax_conformance.gen import Case, Fails, Prim, Shape

    ADD = '''
    from tvm.script import ir as I, relax as R, tirx as T

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            y = R.add(x, x)
            return y
    '''

    def generate():
        rng = np.random.default_rng(0)
        x3, x5 = (rng.standard_normal(n).astype("float32") for n in (3, 5))
        return {"op_add": [
            Case("add_self", ADD, runs=[([x3], x3 + x3), ([x5], x5 + x5),
                                        Fails([x5.reshape(5, 1)], "ndim_mismatch")],
                 spec=["OP.SEM.1", "NORM.OP.BCAST.1"], tags=["op:add"], oracle="numpy-formula"),
        ]}

Run ``python conformance/generate/regen.py`` (or ``relax-conformance regen``) to rewrite every
category; ``--check`` verifies that the checked-in cases are exactly what the generators produce.
Writing is deterministic: fixed file names, fixed JSON layout, npz files without timestamps.
"""

from __future__ import annotations

import json
import re
import shutil
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

from . import vocab
from .case import DEFAULT_ATOL, DEFAULT_RTOL, META, MODULE, load_case
from .npz import write_npz
from .values import Prim, Shape, encode

__all__ = ["Case", "Run", "Fails", "Invalid", "Malformed", "Shape", "Prim", "write_cases", "default_cases_root",
           "GenerationError", "module_text", "TVM_IMPORT", "CLASSIC_IMPORT", "via_float64"]

_NO_VALUE = object()
_NAME = re.compile(r"^[a-z0-9][a-z0-9_]*$")


class GenerationError(ValueError):
    """A generator described an inconsistent case."""


@dataclass
class Run:
    """One run: positional ``inputs`` and either an ``expected`` value or an ``error_kind``."""

    inputs: Sequence
    expected: Any = _NO_VALUE
    error_kind: Optional[str] = None
    rtol: Optional[float] = None
    atol: Optional[float] = None
    note: str = ""

    @property
    def expect(self) -> str:
        return "return" if self.expected is not _NO_VALUE else "runtime_error"


def Fails(inputs: Sequence, error_kind: Optional[str], note: str = "") -> Run:  # noqa: N802 - reads as a value
    """A run that must fail at run time with ``error_kind`` (None: any run-time error)."""
    if error_kind is not None and error_kind not in vocab.EXPECTABLE_KINDS:
        raise GenerationError(f"Fails(): unknown error kind {error_kind!r}")
    if error_kind is not None and vocab.expect_for_kind(error_kind) not in ("runtime_error", None):
        raise GenerationError(f"Fails(): {error_kind!r} is not a run-time error kind")
    return Run(list(inputs), _NO_VALUE, error_kind, note=note)


@dataclass
class Case:
    """A case to write. ``runs`` holds ``(inputs, expected)`` pairs or :class:`Run` objects."""

    name: str
    module: str
    runs: Sequence = ()
    entry: str = "main"
    expect: Optional[str] = None
    error_kind: Optional[str] = None
    spec: Sequence[str] = ()
    tags: Sequence[str] = ()
    oracle: str = "numpy-formula"
    description: str = ""
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL
    requires: Sequence[str] = ()
    spelling: Optional[str] = None


def Invalid(name: str, module: str, error_kind: Optional[str], *, spec: Sequence[str], tags: Sequence[str] = (),
            description: str = "", oracle: str = "spec-rule", **kw) -> Case:  # noqa: N802
    """A case whose module must be rejected at load time as ill-formed (struct info or well-formedness)."""
    return Case(name, module, (), expect="invalid", error_kind=error_kind, spec=spec, tags=tags,
                oracle=oracle, description=description, **kw)


def Malformed(name: str, module: str, *, spec: Sequence[str], tags: Sequence[str] = (), description: str = "",
              oracle: str = "spec-rule", **kw) -> Case:  # noqa: N802
    """A case whose text must be rejected by the parser."""
    return Case(name, module, (), expect="malformed", error_kind="parse", spec=spec, tags=tags, oracle=oracle,
                description=description, **kw)


TVM_IMPORT = "from tvm.script import ir as I, relax as R, tirx as T"
CLASSIC_IMPORT = "from tvm.script import ir as I, relax as R, tir as T"


def module_text(functions: str, spelling: str = "tvm", class_name: str = "Module") -> str:
    """A module text: the import line of ``spelling``, ``@I.ir_module class <class_name>:`` and the
    (dedented) ``functions`` indented into the class body."""
    header = {"tvm": TVM_IMPORT, "classic": CLASSIC_IMPORT}[spelling]
    body = textwrap.indent(textwrap.dedent(functions).strip("\n"), "    ")
    return f"{header}\n\n\n@I.ir_module\nclass {class_name}:\n{body}\n"


def vector_kernel(name: str, store: str, indent: int = 8) -> str:
    """The text of ``@T.prim_func name(a, b)`` over float32 buffers ``A`` and ``B`` of one symbolic
    length ``n`` whose loop over ``i`` runs the statement ``store``, indented by ``indent`` spaces (as
    the functions handed to :func:`module_text` are)."""
    return textwrap.indent(f"""@T.prim_func
def {name}(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        {store}
""", " " * indent)


def via_float64(fn, *arrays, dtype: Optional[str] = None):
    """``fn`` evaluated on float64 copies of ``arrays``, rounded once to ``dtype`` (default: the first
    array's dtype).

    Use it for expected values of float formulas that are not exactly rounded elementwise operations
    (reductions, matmul, transcendental functions): NumPy's float32 kernels differ in the last bit
    between CPUs (SIMD dispatch, BLAS summation order), and regenerated cases must be byte-identical
    on every machine."""
    import numpy as np

    out_dtype = dtype or str(np.asarray(arrays[0]).dtype)
    return np.asarray(fn(*[np.asarray(a).astype("float64") for a in arrays])).astype(out_dtype)


def default_cases_root() -> Path:
    """The shipped suite: package data of an installed wheel, ``conformance/cases`` in a checkout."""
    from relax_ref.resources import data_path

    return data_path("cases")


def _normalize_text(text: str) -> str:
    return textwrap.dedent(text).strip("\n") + "\n"


def _detect_spelling(text: str) -> str:
    m = re.search(r"^from tvm\.script import (.*)$", text, re.M)
    if m and re.search(r"\btir as T\b", m.group(1)):
        return "classic"
    return "tvm"


def _as_run(r: Any) -> Run:
    if isinstance(r, Run):
        return r
    if isinstance(r, tuple) and len(r) == 2:
        return Run(list(r[0]), r[1])
    raise GenerationError(f"a run must be (inputs, expected) or Run(...), got {type(r).__name__}")


def dump_meta(meta: dict) -> str:
    """meta.json text: one top-level key per line, one run per line (compact, diff-friendly)."""
    lines = []
    for key, value in meta.items():
        if key == "runs" and value:
            runs = ",\n".join("  " + json.dumps(r) for r in value)
            lines.append(f' "runs": [\n{runs}\n ]')
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _write_case(case: Case, cat_dir: Path, generator: Optional[str]) -> None:
    if not _NAME.match(case.name):
        raise GenerationError(f"case name {case.name!r} must match {_NAME.pattern}")
    if not case.spec:
        raise GenerationError(f"{case.name}: cite at least one spec rule ID")
    if case.oracle not in vocab.ORACLES:
        raise GenerationError(f"{case.name}: oracle must be one of {vocab.ORACLES}")
    runs = [_as_run(r) for r in case.runs]
    text = _normalize_text(case.module)
    spelling = case.spelling or _detect_spelling(text)
    requires = list(case.requires)
    if spelling == "classic" and "classic-spelling" not in requires:
        requires.append("classic-spelling")
    if case.expect is not None:
        expect = case.expect
    elif not runs:
        raise GenerationError(f"{case.name}: a case without runs needs expect='invalid' or 'malformed'")
    elif all(r.expect == "runtime_error" for r in runs):
        expect = "runtime_error"
    else:
        expect = "return"
    error_kind = case.error_kind
    if expect == "runtime_error" and error_kind is None:
        kinds = {r.error_kind for r in runs}
        if len(kinds) == 1:
            error_kind = kinds.pop()
    d = cat_dir / case.name
    d.mkdir(parents=True)
    (d / MODULE).write_text(text, encoding="utf-8")
    case_args = None
    case_outputs = None
    run_meta = []
    for i, r in enumerate(runs):
        arrays_in: dict = {}
        args = [encode(v, f"a{j}", arrays_in) for j, v in enumerate(r.inputs)]
        write_npz(d / f"run{i}.in.npz", arrays_in)
        entry: dict = {"inputs": f"run{i}.in.npz"}
        if case_args is None:
            case_args = args
        elif args != case_args:
            entry["args"] = args
        if r.expect == "return":
            arrays_out: dict = {}
            out_spec = encode(r.expected, "r", arrays_out)
            write_npz(d / f"run{i}.out.npz", arrays_out)
            entry["expected"] = f"run{i}.out.npz"
            if case_outputs is None:
                case_outputs = out_spec
            elif out_spec != case_outputs:
                entry["outputs"] = out_spec
        else:
            entry["expected"] = None
        if r.expect != expect:
            entry["expect"] = r.expect
        if r.expect == "runtime_error" and (r.error_kind != error_kind or r.expect != expect):
            entry["error_kind"] = r.error_kind
        if r.rtol is not None:
            entry["rtol"] = r.rtol
        if r.atol is not None:
            entry["atol"] = r.atol
        if r.note:
            entry["note"] = r.note
        run_meta.append(entry)
    meta: dict = {"format_version": vocab.FORMAT_VERSION}
    if case.description:
        meta["description"] = " ".join(case.description.split())
    meta["entry"] = case.entry
    meta["expect"] = expect
    meta["error_kind"] = error_kind
    meta["args"] = case_args or []
    if case_outputs is not None:
        meta["outputs"] = case_outputs
    meta["runs"] = run_meta
    if runs:
        meta["rtol"] = case.rtol
        meta["atol"] = case.atol
    meta["spec"] = list(case.spec)
    meta["tags"] = list(case.tags)
    meta["oracle"] = case.oracle
    meta["spelling"] = spelling
    if requires:
        meta["requires"] = requires
    if generator:
        meta["generator"] = generator
    (d / META).write_text(dump_meta(meta), encoding="utf-8")
    load_case(d)  # validate what was written


def write_cases(category: str, cases: Iterable[Case], root: Optional[Path] = None,
                generator: Optional[str] = None) -> Path:
    """Replace ``<root>/<category>/`` by the given cases; returns the category directory."""
    if not _NAME.match(category):
        raise GenerationError(f"category {category!r} must match {_NAME.pattern}")
    root = Path(root) if root is not None else default_cases_root()
    cat_dir = root / category
    cases = list(cases)
    names = [c.name for c in cases]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise GenerationError(f"{category}: duplicate case names {dup}")
    if cat_dir.exists():
        shutil.rmtree(cat_dir)
    cat_dir.mkdir(parents=True)
    for c in cases:
        try:
            _write_case(c, cat_dir, generator)
        except GenerationError as err:
            raise GenerationError(f"{category}/{c.name}: {err}") from None
    return cat_dir
