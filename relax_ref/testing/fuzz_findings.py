"""Findings of the fuzzer: what counts as one, its signature, deduplication and minimization.

A program's outcomes (:class:`~relax_ref.testing.fuzz_worker.Response` of the reference, and of
relax_jax when it runs) become findings of these kinds:

* ``crash`` -- an exception that is not a ``RelaxError`` (ERR.*: bad input gets a clear error), in
  parsing or evaluating, on either implementation; signature: implementation, stage, exception class
  and the innermost frame of the project's code;
* ``abort`` / ``hang`` -- the worker process died or did not answer in time;
* ``roundtrip`` -- an accepted module whose print the parser rejects or reads differently (TEXT.RT.1);
* ``error-kind`` -- both raise, with different error classes; ``error-vs-value`` -- one raises, the
  other returns; ``value`` -- both return, and the results differ beyond the tolerances of
  :mod:`relax_ref.testing.compare`. Signatures name both sides and the operator the messages name;
* ``unsupported`` -- relax_jax says it does not support what the reference evaluates (a gap, listed
  apart from the disagreements).

Findings with the same signature are one finding (with a count); its first example is minimized by
deleting lines (ddmin over the text) as long as the signature still appears.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from .fuzz_worker import Digest, Outcome, Response

_OPNAME = re.compile(r"\b(?:R|relax)\.((?:nn\.|image\.|memory\.|builtin\.|vm\.)?[a-z_0-9]+)")
_DIGITS = re.compile(r"\d+")


@dataclass
class Finding:
    """One signature: how often it was seen and its first example (minimized when asked)."""

    signature: str
    kind: str
    detail: str
    origin: str
    mutations: List[str]
    text: str
    run: str = ""
    inputs: str = ""
    count: int = 1
    minimized: Optional[str] = None
    minimize_steps: int = 0

    def to_json(self) -> Dict[str, Any]:
        return {"signature": self.signature, "kind": self.kind, "count": self.count, "detail": self.detail,
                "origin": self.origin, "mutations": self.mutations, "run": self.run, "inputs": self.inputs,
                "text": self.minimized if self.minimized is not None else self.text,
                "minimized": self.minimized is not None, "original_lines": self.text.count("\n") + 1,
                "minimize_steps": self.minimize_steps}


def describe_value(v: Any, depth: int = 0) -> str:
    """A short description of an argument (dtype and shape of arrays, small values as they are)."""
    import numpy as np

    if isinstance(v, np.ndarray):
        if v.dtype == object or v.size > 8:
            return f"array({v.dtype}, shape={v.shape})"
        return f"np.array({v.tolist()!r}, {str(v.dtype)!r})"
    if isinstance(v, (list, tuple)) and depth < 2:
        inner = ", ".join(describe_value(x, depth + 1) for x in list(v)[:6])
        return ("[" + inner + "]") if isinstance(v, list) else ("(" + inner + ")")
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."


def describe_inputs(resp: Response, label: str) -> str:
    for lab, args in resp.inputs:
        if lab == label:
            return describe_value(list(args))
    return ""


def _hint(*outcomes: Optional[Outcome]) -> str:
    for o in outcomes:
        if o is not None and o.message:
            m = _OPNAME.search(o.message)
            if m:
                return m.group(1)
    return "-"


def _side(o: Outcome) -> str:
    return "value" if o.kind == "value" else o.cls


def _has_digest(v: Any) -> bool:
    return isinstance(v, Digest) or isinstance(v, tuple) and any(_has_digest(x) for x in v)


def _digests_equal(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_digests_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, Digest) or isinstance(b, Digest):
        return a == b
    return _compare(a, b) is None


def _compare(a: Any, b: Any) -> Optional[str]:
    from .compare import compare

    if _has_digest(a) or _has_digest(b):
        return None if _digests_equal(a, b) else "results differ (digests of large results)"
    try:
        return compare(a, b)
    except Exception as e:  # noqa: BLE001 - results of different kinds
        return f"results not comparable: {type(e).__name__}"


def classify(ref: Response, jax: Optional[Response], ref_name: str = "ref",
             other_name: str = "jax") -> List[Tuple[str, str, str, str]]:
    """``(kind, signature, detail, run label)`` of every finding in one program's outcomes (``ref`` of
    the reference, ``jax`` of the implementation compared with it, ``None`` when none ran)."""
    out: List[Tuple[str, str, str, str]] = []

    def solo(impl: str, stage: str, o: Outcome, run: str) -> bool:
        if stage == "parse" and o.kind in ("abort", "hang"):
            stage = "program"           # the whole request: parsing, compiling or one of the runs
        elif o.kind == "crash" and o.message.startswith("harness:"):
            stage = "harness"           # the worker's own failure (making arguments), not the program's
        if o.kind == "crash":
            out.append(("crash", f"crash|{impl}|{stage}|{o.cls}|{o.where}", o.message, run))
        elif o.kind in ("abort", "hang"):
            out.append((o.kind, f"{o.kind}|{impl}|{stage}|{o.cls}", o.message, run))
        else:
            return False
        return True

    if solo(ref_name, "parse", ref.parse, ""):
        return out
    if ref.roundtrip is not None:
        o = ref.roundtrip
        out.append(("roundtrip", f"roundtrip|{o.cls}|{_DIGITS.sub('N', o.message[:60])}", o.message, ""))
    jax_runs = None
    if jax is not None and not solo(other_name, "parse", jax.parse, ""):
        jax_runs = jax.runs
    for i, (label, _) in enumerate(ref.inputs):
        r = ref.runs[i] if i < len(ref.runs) else None
        j = jax_runs[i] if jax_runs is not None and i < len(jax_runs) else None
        bad_r = r is not None and solo(ref_name, "run", r, label)
        bad_j = j is not None and solo(other_name, "run", j, label)
        if r is None or j is None or bad_r or bad_j:
            continue
        if j.kind == "error" and j.cls == "UnsupportedError" and not (r.kind == "error" and r.cls == j.cls):
            out.append(("unsupported", f"unsupported|{other_name}|{_hint(j)}", j.message, label))
        elif r.kind == "value" and j.kind == "value":
            diff = _compare(r.value, j.value)
            if diff:
                out.append(("value", f"value|{other_name}|{_hint(r, j)}", diff, label))
        elif r.kind != j.kind:
            out.append(("error-vs-value", f"error-vs-value|{ref_name}={_side(r)}|{other_name}={_side(j)}|{_hint(r, j)}",
                        f"{ref_name}: {r.message or 'value'} / {other_name}: {j.message or 'value'}", label))
        elif r.cls != j.cls:
            out.append(("error-kind", f"error-kind|{ref_name}={r.cls}|{other_name}={j.cls}|{_hint(r, j)}",
                        f"{ref_name}: {r.message} / {other_name}: {j.message}", label))
    return out


@dataclass
class FindingSet:
    """Findings by signature, in the order first seen."""

    by_signature: Dict[str, Finding] = field(default_factory=dict)

    def add(self, kind: str, signature: str, detail: str, run: str, origin: str, mutations: List[str],
            text: str, inputs: str = "") -> bool:
        """Record one occurrence; True when the signature is new."""
        f = self.by_signature.get(signature)
        if f is not None:
            f.count += 1
            return False
        self.by_signature[signature] = Finding(signature, kind, detail, origin, list(mutations), text, run, inputs)
        return True

    def counts_by_kind(self) -> Dict[str, int]:
        out: Dict[str, int] = {}
        for f in self.by_signature.values():
            out[f.kind] = out.get(f.kind, 0) + 1
        return out


def ddmin_lines(text: str, still_fails: Callable[[str], bool], seconds: float) -> Tuple[str, int]:
    """The smallest text (by lines) found within ``seconds`` for which ``still_fails`` holds: chunks of
    lines are deleted, halving the chunk size when no deletion of that size keeps the failure (Zeller's
    ddmin, complement steps only). Returns the text and the number of checks made."""
    lines = text.split("\n")
    deadline = time.monotonic() + seconds
    n, steps = 2, 0
    while len(lines) >= 2 and time.monotonic() < deadline:
        chunk = max(1, len(lines) // n)
        removed = False
        for start in range(0, len(lines), chunk):
            if time.monotonic() >= deadline:
                break
            cand = lines[:start] + lines[start + chunk:]
            steps += 1
            if cand and still_fails("\n".join(cand)):
                lines = cand
                n = max(n - 1, 2)
                removed = True
                break
        if not removed:
            if chunk == 1:
                break
            n = min(len(lines), n * 2)
    return "\n".join(lines), steps


__all__ = ["Finding", "FindingSet", "classify", "ddmin_lines"]
