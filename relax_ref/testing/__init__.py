"""Property-based testing of passes: random well-formed programs, oracles, failure bundles.

Public API::

    check_pass(pass_, *, seconds=None, max_examples=None, shrink_seconds=None, seed=None, profile=None,
               sizes=(1, 3), strategy=None, config=None, prepare=(), signature=True, tolerances=None,
               timeout=60.0, bundle_dir=None, settings=None, dialect="tvm", guided=True,
               poison=True) -> SearchStats | None
    check_pass_sequence(passes, *, max_length=4, <the same budget arguments>, stop_on_failure=True,
                        ...) -> SequenceReport | None
    pass_test(pass_, **check_pass_kwargs)               # a pytest test function
    tvm_pass(name_or_pass_object, ...)                  # a TVM pass as a relax-ref pass
    strategies.programs(config=None, **overrides) / strategies.modules(...) / strategies.inputs(program, sizes)
    generate(source, config) -> Program                 # the generator without Hypothesis
    GenConfig, Program, RULES, active_rules(), check_case(...), Outcome, PassCheckError
    write_bundle / load_bundle, mutants.ZOO / mutants.drop_binding / mutants.swap_operands

Modules: :mod:`.source` (choice sources), :mod:`.domain` (true dims, value ranges), :mod:`.rules`
(per-operator generator rules), :mod:`.tir_gen` (random kernels), :mod:`.program` (the generator),
:mod:`.inputs`, :mod:`.compare`, :mod:`.oracle`, :mod:`.check`, :mod:`.engine` (the search loop),
:mod:`.schedule` and :mod:`.coverage` (coverage-guided settings), :mod:`.profiles`, :mod:`.reduce`,
:mod:`.bundle`, :mod:`.passes` (the catalog), :mod:`.mutants` (the zoo), :mod:`.shrink`,
:mod:`.pytest_plugin`, :mod:`.tvm_bridge` and :mod:`.campaign`
(differential testing of TVM's passes: ``python -m relax_ref.testing.campaign``).
Names are loaded lazily so that importing the package does not import Hypothesis. Hypothesis is not a
dependency of relax-ref itself: ``pip install "relax-ref[testing]"`` installs it.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "check_pass": "check", "check_pass_sequence": "check", "SequenceReport": "check",
    "generate": "program", "GenConfig": "program", "Program": "program", "GenerationError": "program",
    "RULES": "rules", "active_rules": "rules", "OpRule": "rules",
    "check_case": "oracle", "Outcome": "oracle", "PassCheckError": "oracle", "InvalidCaseError": "oracle",
    "write_bundle": "bundle", "load_bundle": "bundle",
    "RandomSource": "source", "ReplaySource": "source", "HypothesisSource": "source",
    "compare": "compare", "TOLERANCES": "compare",
    "program_inputs": "inputs", "module_inputs": "inputs",
    "SearchStats": "engine", "Profile": "profiles", "register_profile": "profiles",
    "pass_test": "pytest_plugin", "tvm_pass": "tvm_bridge", "TvmPass": "tvm_bridge",
}


def _import(module: str):
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name != "hypothesis":
            raise
        raise ModuleNotFoundError(f"{module} needs Hypothesis, which relax-ref installs only with the extra "
                                  f"'testing': pip install \"relax-ref[testing]\"", name="hypothesis") from None


def __getattr__(name: str):
    if name == "strategies":
        return _import("relax_ref.testing.strategies")
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module 'relax_ref.testing' has no attribute '{name}'")
    return getattr(_import(f"relax_ref.testing.{mod}"), name)


__all__ = sorted(_EXPORTS) + ["strategies"]
