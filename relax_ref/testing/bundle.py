"""Failure bundles: everything needed to reproduce one failure, in one directory.

A bundle directory ``<root>/<symptom>-<pass>-<hash>/`` holds

``meta.json``      symptom, failing pass, the whole pass sequence, message, entry, size, seed,
                   the relax-ref version, the generator's choice list (when known) and extra fields
                   (e.g. the TVM version for differential findings);
``input.py``       the input module as TVMScript (classic spelling; ``input_tvm.py``: TVM 0.25's);
``output.py``      the failing pass's output when there is one;
``inputs.npz``     the arguments (``arg0``, ``arg1`` ...);
``expected.npz``   the original program's result, ``actual.npz`` the transformed one's when it ran
                   (tuples flattened: ``out.0.1`` is field 1 of field 0).

The directory name is stable for a (symptom, pass, message kind) triple, so writing the same kind
of failure again (Hypothesis replays its minimal example last) overwrites the bundle with the
smallest reproducer. :func:`load_bundle` reads one back.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np

from .oracle import Outcome

VERSION_KEY = "relax_ref_version"


def _flatten(prefix: str, v: Any, out: Dict[str, np.ndarray]) -> None:
    if isinstance(v, tuple) and not hasattr(v, "_fields") and type(v).__name__ != "ShapeValue":
        for i, x in enumerate(v):
            _flatten(f"{prefix}.{i}", x, out)
    elif v is None:
        return
    else:
        out[prefix] = np.asarray(v)


def failure_signature(outcome: Outcome) -> str:
    """What identifies a kind of failure: symptom, pass and the message with numbers removed."""
    msg = re.sub(r"[-+]?\d[\d.e+-]*", "#", outcome.message.split("\n")[0])
    msg = re.sub(r"\b(lv|gv|k|d|p)\d*(_\d+)?\b", "_", msg)
    return f"{outcome.symptom}|{outcome.failed_pass}|{msg}"


def bundle_name(outcome: Outcome) -> str:
    h = hashlib.sha1(failure_signature(outcome).encode()).hexdigest()[:8]
    safe = re.sub(r"[^A-Za-z0-9_]+", "_", outcome.failed_pass or "none")
    return f"{outcome.symptom}-{safe}-{h}"


def _script(mod, dialect: str) -> Optional[str]:
    try:
        return mod.script(dialect=dialect)
    except Exception:  # noqa: BLE001 - a module the printer rejects is still bundled in the other spelling
        return None


def portable_paths(text: str) -> str:
    """Tracebacks without this machine's directories: site-packages paths become
    ``<site-packages>/...`` and paths inside the project become relative, so that a bundle can be
    shared or checked in."""
    import site
    import sysconfig

    roots = {sysconfig.get_paths().get("purelib"), sysconfig.get_paths().get("platlib")}
    try:
        roots.update(site.getsitepackages())
    except AttributeError:  # pragma: no cover - virtualenv without getsitepackages
        pass
    for root in sorted((r for r in roots if r), key=len, reverse=True):
        text = text.replace(root.rstrip("/") + "/", "<site-packages>/")
    project = str(Path(__file__).resolve().parents[2])
    return text.replace(project.rstrip("/") + "/", "")


def write_bundle(root, outcome: Outcome, *, seed: Optional[int] = None, choices=None,
                 extra: Optional[Dict[str, Any]] = None, name: Optional[str] = None) -> Path:
    """Write ``outcome`` as a bundle under ``root``; returns the bundle directory."""
    from .. import __version__

    d = Path(root) / (name or bundle_name(outcome))
    d.mkdir(parents=True, exist_ok=True)
    meta = {
        "symptom": outcome.symptom,
        "pass": outcome.failed_pass,
        "passes": list(outcome.passes),
        "message": outcome.message,
        "entry": outcome.entry,
        "size": outcome.size,
        "seed": seed,
        VERSION_KEY: __version__,
        "choices": list(choices) if choices is not None else None,
        "signature": failure_signature(outcome),
    }
    meta.update(extra or {})
    (d / "meta.json").write_text(json.dumps(meta, indent=2, default=str) + "\n")
    for fname, mod, dialect in (("input.py", outcome.before, "classic"), ("input_tvm.py", outcome.before, "tvm"),
                                ("output.py", outcome.after, "classic")):
        text = _script(mod, dialect) if mod is not None else None
        path = d / fname
        if text is not None:
            path.write_text(text)
        elif path.exists():
            path.unlink()
    if outcome.detail:
        (d / "detail.txt").write_text(portable_paths(outcome.detail))
    for fname, value, prefix in (("inputs.npz", outcome.inputs, "arg"), ("expected.npz", outcome.expected, "out"),
                                 ("actual.npz", outcome.actual, "out")):
        path = d / fname
        if value is None:
            if path.exists():
                path.unlink()
            continue
        arrays: Dict[str, np.ndarray] = {}
        if prefix == "arg":
            for i, v in enumerate(value):
                _flatten(f"arg{i}", v, arrays)
        else:
            _flatten("out", value, arrays)
        np.savez(path, **arrays)
    return d


def load_bundle(path) -> Dict[str, Any]:
    """The bundle at ``path`` as a dict: ``meta`` plus ``input``/``output`` texts and the arrays
    (``inputs`` as a list in argument order, ``expected``/``actual`` as flat dicts)."""
    d = Path(path)
    out: Dict[str, Any] = {"meta": json.loads((d / "meta.json").read_text())}
    for key, fname in (("input", "input.py"), ("input_tvm", "input_tvm.py"), ("output", "output.py")):
        p = d / fname
        out[key] = p.read_text() if p.exists() else None
    for key in ("inputs", "expected", "actual"):
        p = d / f"{key}.npz"
        if not p.exists():
            out[key] = None
            continue
        with np.load(p) as z:
            data = {k: z[k] for k in z.files}
        if key == "inputs":
            out[key] = [data[k] for k in sorted(data, key=lambda s: int(s[3:].split(".")[0]))]
        else:
            out[key] = data
    return out


def list_bundles(root) -> List[Path]:
    root = Path(root)
    return sorted(p.parent for p in root.glob("*/meta.json")) if root.exists() else []


__all__ = ["write_bundle", "load_bundle", "list_bundles", "bundle_name", "failure_signature"]
