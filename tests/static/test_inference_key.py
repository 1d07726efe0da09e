"""NORM.INFER.1: ``inference_key``, what an operator's own struct info depends on (the JAX executor infers
a call's struct info once per key): equal for calls whose inference reads the same struct info and
values, different otherwise -- tuple literals (``concat``'s tensors, ``strided_slice``'s axes) included."""

from __future__ import annotations

import relax_ref
from relax_ref.ir import expr as rx
from relax_ref.static.inference import inference_key, operator_struct_info

_SRC = '''
from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n", 4), "float32"), b: R.Tensor(("n", 4), "float32"),
             c: R.Tensor((2, 4), "float32")):
        x0 = R.concat((a, b), axis=0)
        x1 = R.concat((b, a), axis=0)
        x2 = R.concat((a, c), axis=0)
        x3 = R.concat((a, b), axis=1)
        s0 = R.strided_slice(a, axes=[1], begin=[0], end=[2])
        s1 = R.strided_slice(b, axes=[1], begin=[0], end=[2])
        s2 = R.strided_slice(a, axes=[1], begin=[1], end=[3])
        return (x0, x1, x2, x3, s0, s1, s2)
'''


def _calls():
    mod = relax_ref.parse(_SRC)
    f = mod["main"]
    calls = {b.var.name_hint: b.value for blk in f.body.blocks for b in blk.bindings
             if isinstance(b.value, rx.Call)}
    return mod, calls


def test_tuple_arguments_are_keyed_by_their_fields():
    mod, c = _calls()
    keys = {k: inference_key(v) for k, v in c.items()}
    assert all(k is not None for k in keys.values())
    # the same struct info in the fields (a and b are both (n, 4) float32): one key
    assert keys["x0"] == keys["x1"]
    assert keys["s0"] == keys["s1"]
    # another field struct info, another attribute, other slice values: other keys
    assert len({keys["x0"], keys["x2"], keys["x3"]}) == 3
    assert keys["s0"] != keys["s2"]


def test_equal_keys_infer_equal_struct_info():
    mod, c = _calls()
    by_key = {}
    for name, call in c.items():
        s = operator_struct_info(call, mod)
        prev = by_key.setdefault(inference_key(call), s)
        assert relax_ref.structural_equal(prev, s), name
