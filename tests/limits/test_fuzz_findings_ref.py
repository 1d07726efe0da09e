"""Findings of the third 30-minute fuzzing run (docs/FUZZING.md) on the reference's side -- the parser,
the inference of operator attributes, the reference kernels -- each a regression test on both
evaluators: a RelaxError of the kind the spec gives, never a Python exception or an exhausted machine."""

from __future__ import annotations

import time

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import RelaxError

relax_jax = pytest.importorskip("relax_jax")

HEAD = "from tvm.script import ir as I, relax as R, tirx as T\n\n\n@I.ir_module\nclass Module:\n"


def _main(params: str, body: str) -> str:
    return HEAD + f"    @R.function\n    def main({params}):\n" + "".join(
        f"        {line}\n" for line in body.strip().splitlines())


def _both(text, *args):
    """(kind, value) on the reference and on relax_jax; kind "value" when the call returns."""
    mod = relax_ref.parse(text)
    out = []
    for run in (lambda: relax_ref.evaluate(mod, "main", *args), lambda: relax_jax.compile(mod)("main", *args)):
        try:
            out.append(("value", run()))
        except RelaxError as err:
            out.append((err.kind, None))
    return out


def _parse_error(text) -> RelaxError:
    with pytest.raises(RelaxError) as info:
        relax_ref.parse(text)
    return info.value


def _mesh_module(devices: str, shape: str = "(2, 2)") -> str:
    return HEAD + (f'    I.module_global_infos({{"mesh": [R.device_mesh({shape}, {devices})]}})\n\n'
                   '    @R.function\n    def main(x: R.Tensor((2,), "float32")):\n        return x\n')


@pytest.mark.parametrize("end", ["2**31 - 1", "2**62"])
def test_a_device_range_larger_than_its_mesh_is_a_parse_error_at_once(end):
    """DIST.MESH.1: the mesh's extents and its id count are compared before any id is enumerated (the
    range of 2**31 - 1 ids was materialized first: a MemoryError at parse)."""
    start = time.perf_counter()
    err = _parse_error(_mesh_module(f"I.Range(0, {end})"))
    assert err.kind == "parse" and "holds 4 devices" in str(err) and str(eval(end)) in str(err)
    assert time.perf_counter() - start < 5


def test_a_device_range_beyond_int64_is_a_parse_error():
    """DIST.MESH.1, RUNTIME.LIMIT.1: I.Range(0, 2**64 + 3) raised OverflowError at parse."""
    err = _parse_error(_mesh_module("I.Range(0, 2**64 + 3)"))
    assert err.kind == "parse" and "does not fit in int64" in str(err) and str(2 ** 64 + 3) in str(err)


def test_a_mesh_of_2p40_devices_is_not_enumerated():
    mod = relax_ref.parse(_mesh_module("I.Range(0, 2**40)", shape="(2**20, 2**20)"))
    mesh = mod.global_infos["mesh"][0]
    assert mesh.size == 2 ** 40 and mesh.device_range == (0, 2 ** 40) and mesh.coords(2 ** 40 - 1) == (2 ** 20 - 1,) * 2
    assert relax_ref.structural_equal(relax_ref.parse(mod.script()), mod)
