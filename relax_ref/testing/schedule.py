"""Coverage-guided choice of generator settings, one program at a time (swarm testing).

A single generator configuration spreads its programs thinly: with 120 operator rules and a dozen
constructs, an operator that a pass mishandles appears in a small fraction of programs, next to
others that may hide its effect. :class:`Scheduler` instead draws a configuration per program from
the user's base :class:`~relax_ref.testing.program.GenConfig`, looking at the
:class:`~relax_ref.testing.coverage.Coverage` so far:

* ``focus`` (about 45%) -- the two least covered operators (ties broken at random), drawn twelve
  and six times as often as each of one to five others, in a program of up to six more bindings
  than the base allows; parameter dtypes follow the first operator's operand kinds, so the program
  is mostly that operator applied to different operands and attributes;
* ``swarm`` (about 35%) -- a random subset of the operators (6 to 24) and of the constructs, with
  the constructs that feed the least covered program shape drawn more often;
* ``plain`` (about 20%) -- the base configuration unchanged.

Each program's configuration is returned with it, so a failure is replayed and shrunk under the
configuration that found it (its operator subset makes the shrunk reproducer smaller, too). The
choice depends only on the seed and on the programs generated so far, never on timing, so a run
with the same seed checks the same sequence of programs.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Tuple

from .coverage import Coverage
from .program import FEATURES, GenConfig
from .rules import active_rules

#: which generator feature and which step kind produce each program shape
CONSTRUCT_SOURCE: Dict[str, Tuple[Optional[str], Optional[str]]] = {
    "dataflow": ("dataflow", None), "dataflow_output": ("dataflow", None), "binding_block": (None, None),
    "call_tir:elementwise": ("call_tir", "call_tir"), "call_tir:broadcast": ("call_tir", "call_tir"),
    "call_tir:reduction": ("call_tir", "call_tir"), "call_tir:two_stage": ("call_tir", "call_tir"),
    "tuple": ("tuple", "tuple"), "tuple_get_item": ("tuple", "tuple"), "tuple_result": (None, None),
    "match_cast:same": ("match_cast", "match_cast"), "match_cast:fresh": ("match_cast", "match_cast"),
    "match_cast:weak": ("match_cast", "match_cast"), "match_cast:unused": ("match_cast", "match_cast"),
    "if:flag": ("if", "if"), "if:computed": ("if", "if"), "if:const": ("if", "if"),
    "helper": ("helper", "helper"), "helper_reused": ("helper", "helper"), "helper_tuple_param": ("helper", "helper"),
    "closure": ("closure", "closure"), "closure_capture": ("closure", "closure"),
    "closure_outer_symbolic": ("closure", "closure"),
    "symbolic:1": ("symbolic", None), "symbolic:2": ("symbolic", None),
    "dead_code": ("-return_all", None),  # reached by *not* returning every unread value
}

_KIND_DTYPES = {"float": (("float32", 6), ("float16", 1)), "int": (("int32", 6),), "bool": (("bool", 4),)}


class Scheduler:
    """Draws the configuration of each program (see the module docstring)."""

    def __init__(self, base: GenConfig, seed: int, guided: bool = True) -> None:
        self.base = base
        self.rng = random.Random(f"schedule:{seed}")
        self.guided = guided
        self.rules = active_rules(base.ops)
        self.ops: List[str] = sorted({r.op for r in self.rules})
        self.kinds: Dict[str, Tuple[str, ...]] = {}
        for r in self.rules:
            self.kinds[r.op] = tuple(sorted(set(self.kinds.get(r.op, ())) | set(r.kinds)))
        self.counts = {"plain": 0, "focus": 0, "swarm": 0}

    def next(self, cov: Coverage) -> GenConfig:
        if not self.guided or not self.ops:
            self.counts["plain"] += 1
            return self.base
        u = self.rng.random()
        if u < 0.45:
            self.counts["focus"] += 1
            return self.focus(cov)
        if u < 0.80:
            self.counts["swarm"] += 1
            return self.swarm(cov)
        self.counts["plain"] += 1
        return self.base

    def _least(self, cov: Coverage, prefix: str, among: Sequence[str]) -> str:
        items = list(among)
        low = min(cov.count(prefix + x) for x in items)
        return self.rng.choice([x for x in items if cov.count(prefix + x) == low])

    def focus(self, cov: Coverage) -> GenConfig:
        target = self._least(cov, "op:", self.ops)
        second = self._least(cov, "op:", [o for o in self.ops if o != target] or [target])
        others = self.rng.sample(self.ops, k=min(len(self.ops), self.rng.randint(1, 5)))
        ops = tuple(dict.fromkeys([target, second] + others))
        dtypes = self._dtypes_for(target)
        max_bindings = self.base.max_bindings + self.rng.randint(0, 6)
        return replace(self.base, ops=ops, dtypes=dtypes, op_weights=((target, 12), (second, 6)),
                       max_bindings=max_bindings)

    def _dtypes_for(self, op: str) -> Tuple[Tuple[str, int], ...]:
        base = dict(self.base.dtypes)
        out: Dict[str, int] = {}
        for kind in self.kinds.get(op, ("float",)):
            for d, w in _KIND_DTYPES[kind]:
                if not base or d in base:
                    out[d] = w
        # keep a little of every base dtype: operators mixing dtypes (where, astype) need them
        for d, w in base.items():
            out.setdefault(d, 1)
        return tuple(out.items())

    def swarm(self, cov: Coverage) -> GenConfig:
        n = min(len(self.ops), self.rng.randint(6, 24))
        ops = tuple(sorted(self.rng.sample(self.ops, k=n)))
        feats = {f for f in sorted(self.base.features) if self.rng.random() < 0.7}  # sorted: set order varies
        shapes = [c for c in CONSTRUCT_SOURCE if CONSTRUCT_SOURCE[c][0] is None or
                  CONSTRUCT_SOURCE[c][0].lstrip("-") in self.base.features]
        weights = None
        if shapes:
            want = self._least(cov, "construct:", shapes)
            feature, step = CONSTRUCT_SOURCE[want]
            if feature is not None and feature.startswith("-"):
                feats.discard(feature[1:])
            elif feature is not None:
                feats.add(feature)
            if step is not None:
                weights = ((step, 8),)
        max_bindings = self.rng.randint(2, max(2, self.base.max_bindings + 4))
        return replace(self.base, ops=ops, features=frozenset(f for f in feats if f in FEATURES),
                       max_bindings=max_bindings, construct_weights=weights)


__all__ = ["Scheduler", "CONSTRUCT_SOURCE"]
