"""Settings profiles of ``check_pass``: how long to search, how long to shrink, which seed.

========== ============ ============== ================ =========================================
profile    seconds      max_examples   shrink_seconds   seed
========== ============ ============== ================ =========================================
``quick``  20           200            60 attempts      0 (deterministic: bounded by the count)
``default`` 120         none           20               0 (deterministic sequence of programs)
``deep``   1800         none           120              new each run (printed with a failure)
========== ============ ============== ================ =========================================

``quick`` is for CI: the run stops after ``max_examples`` programs and shrinking after 60 attempts,
so on a machine fast enough to reach those counts within ``seconds`` (and 60 s of shrinking) it
checks exactly the same programs and reports the same reproducer every time (the seconds are a
safety net, not the bound). ``default`` searches for two minutes, which is thousands of programs
for most passes (and the time within which the mutant benchmark expects every catch); the
sequence of programs is fixed by the seed, so a failure it finds is found again by a run at least
as long. ``deep`` is for nightly jobs: half an hour, and a fresh seed each
run so that successive nights explore different programs (the seed is part of every failure report
and reproduces it with ``check_pass(..., seed=...)``).

Choosing a profile, first match wins:

1. ``check_pass(..., profile="deep")``;
2. the environment variable ``RELAX_REF_CHECK_PROFILE``;
3. ``quick`` when ``HYPOTHESIS_PROFILE=ci`` (the project's CI setting);
4. ``default``.

Explicit arguments (``seconds=``, ``max_examples=``, ``shrink_seconds=``, ``seed=``) override the
profile's values; without ``seed=``, the environment variable ``RELAX_REF_CHECK_SEED`` does.
:func:`register_profile` adds or replaces a profile.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace
from typing import Dict, Optional

from ..errors import UnsupportedError


@dataclass(frozen=True)
class Profile:
    """A ``check_pass`` budget. ``seed=None`` draws a new seed per run."""

    name: str
    seconds: float
    max_examples: Optional[int]
    shrink_seconds: float
    seed: Optional[int] = 0
    shrink_attempts: Optional[int] = None  # when set, shrinking is bounded by this many attempts


PROFILES: Dict[str, Profile] = {
    "quick": Profile("quick", seconds=20.0, max_examples=200, shrink_seconds=60.0, seed=0, shrink_attempts=60),
    "default": Profile("default", seconds=120.0, max_examples=None, shrink_seconds=20.0, seed=0),
    "deep": Profile("deep", seconds=1800.0, max_examples=None, shrink_seconds=120.0, seed=None),
}
ALIASES = {"ci": "quick", "nightly": "deep"}

ENV_VAR = "RELAX_REF_CHECK_PROFILE"
SEED_ENV_VAR = "RELAX_REF_CHECK_SEED"


def register_profile(profile: Profile) -> None:
    """Add (or replace) a profile under ``profile.name``."""
    PROFILES[profile.name] = profile


def get_profile(name: Optional[str] = None) -> Profile:
    """The profile called ``name`` (or the one chosen as the module docstring says)."""
    if name is None:
        name = os.environ.get(ENV_VAR) or ("quick" if os.environ.get("HYPOTHESIS_PROFILE") == "ci" else "default")
    key = ALIASES.get(name, name)
    if key not in PROFILES:
        raise UnsupportedError(f"unknown check_pass profile '{name}' (known: {', '.join(sorted(PROFILES))})")
    return PROFILES[key]


def resolve(profile: Optional[str] = None, *, seconds: Optional[float] = None, max_examples: Optional[int] = None,
            shrink_seconds: Optional[float] = None, seed: Optional[int] = None) -> Profile:
    """The profile with explicit arguments applied and a seed drawn when it has none."""
    p = get_profile(profile)
    changes = {}
    if seconds is not None:
        changes["seconds"] = float(seconds)
        if max_examples is None and p.max_examples is not None:
            changes["max_examples"] = None  # an explicit time budget is the bound
    if max_examples is not None:
        changes["max_examples"] = int(max_examples)
        if seconds is None:
            changes["seconds"] = max(p.seconds, 3600.0)  # an explicit count is the bound
    if shrink_seconds is not None:
        changes["shrink_seconds"] = float(shrink_seconds)
        changes["shrink_attempts"] = None  # an explicit time is the bound
    if seed is None and os.environ.get(SEED_ENV_VAR):
        seed = int(os.environ[SEED_ENV_VAR])
    if seed is not None:
        changes["seed"] = int(seed)
    p = replace(p, **changes) if changes else p
    if p.seed is None:
        p = replace(p, seed=int(time.time() * 1000) % (2 ** 31))
    if p.seconds <= 0 or (p.max_examples is not None and p.max_examples <= 0):
        raise UnsupportedError("check_pass needs a positive number of seconds and of examples")
    return p


__all__ = ["Profile", "PROFILES", "ENV_VAR", "SEED_ENV_VAR", "register_profile", "get_profile", "resolve"]
