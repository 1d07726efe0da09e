"""The JAX lowerings are organised like the operators: the lowering of an operator lives in the module of
``relax_jax.ops`` named as the family module of ``relax_ref.ops`` that defines the operator."""

from pathlib import Path

import relax_jax  # noqa: F401  (loads the lowerings)
from relax_jax.lowering import LOWERINGS
from relax_ref.ops import registry

JAX_OPS = Path(relax_jax.__file__).parent / "ops"
#: modules of relax_jax.ops that hold helpers shared by several families, not lowerings
HELPERS = {"__init__", "common", "nn_common", "reduce_util"}


def _family(name: str) -> str:
    for family in registry.FAMILIES:
        if any(d.name == name for d in family.OPS):
            return family.__name__.rsplit(".", 1)[1]
    raise AssertionError(name)


def test_each_lowering_lives_in_its_family_module():
    bad = []
    for name, low in LOWERINGS.items():
        if registry.lookup(name) is None:
            continue                                   # executor-only built-ins (no registry entry)
        module = low.fn.__module__
        expected = f"relax_jax.ops.{_family(name)}"
        if module != expected:
            bad.append(f"{name}: lowered in {module}, defined in relax_ref.ops.{_family(name)}")
    assert not bad, "\n".join(bad)


def test_jax_op_modules_are_families():
    families = {f.__name__.rsplit(".", 1)[1] for f in registry.FAMILIES}
    modules = {p.stem for p in JAX_OPS.glob("*.py")} - HELPERS
    assert modules <= families, sorted(modules - families)
