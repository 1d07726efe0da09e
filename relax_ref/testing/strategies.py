"""Hypothesis strategies for well-formed Relax programs and their inputs.

* :func:`programs(config=None, **overrides)` -- generated :class:`~relax_ref.testing.program.Program`
  objects (module + what is known about the entry's parameters);
* :func:`modules(...)` -- the same, mapped to the ``IRModule`` alone;
* :func:`inputs(program, sizes=(1, 3))` -- lists of argument lists, one per size, drawn inside the
  generator's value ranges (:mod:`relax_ref.testing.inputs`).

The generator draws every decision through Hypothesis (:class:`~relax_ref.testing.source.HypothesisSource`),
and its smallest choice is always the simplest program, so Hypothesis shrinks failures to a few
bindings. Overrides are :class:`~relax_ref.testing.program.GenConfig` fields, e.g.
``programs(max_bindings=4, ops=("relax.add", "relax.exp"), features=frozenset({"dataflow"}))``.

A ``Program`` prints compactly in Hypothesis' "Falsifying example" line; use ``program.script()``
(or the report of :func:`relax_ref.testing.check_pass`) for the TVMScript text.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional, Sequence

from hypothesis import strategies as st

from .inputs import inputs_for
from .program import GenConfig, Program, generate
from .source import HypothesisSource


def _config(config: Optional[GenConfig], overrides) -> GenConfig:
    cfg = config if config is not None else GenConfig()
    if overrides:
        if "features" in overrides and not isinstance(overrides["features"], frozenset):
            overrides = dict(overrides, features=frozenset(overrides["features"]))
        if "ops" in overrides and overrides["ops"] is not None:
            overrides = dict(overrides, ops=tuple(overrides["ops"]))
        cfg = replace(cfg, **overrides)
    return cfg


def programs(config: Optional[GenConfig] = None, **overrides) -> st.SearchStrategy[Program]:
    """Random well-formed programs (see :mod:`relax_ref.testing.program`)."""
    cfg = _config(config, overrides)

    @st.composite
    def _programs(draw) -> Program:
        return generate(HypothesisSource(draw), cfg)

    return _programs()


def modules(config: Optional[GenConfig] = None, **overrides) -> st.SearchStrategy:
    """Random well-formed IRModules (entry function ``main``)."""
    return programs(config, **overrides).map(lambda p: p.mod)


def inputs(program: Program, sizes: Sequence[int] = (1, 3)) -> st.SearchStrategy:
    """A list with one argument list per size for ``program``'s entry function."""
    return st.integers(0, 2 ** 16).map(lambda seed: [inputs_for(program, s, seed) for s in sizes])


__all__ = ["programs", "modules", "inputs"]
