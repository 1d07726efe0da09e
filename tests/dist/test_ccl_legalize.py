"""LegalizeOps lowers the collectives to the runtime's collective library (PASS.LEGALIZE.CCL.1-2,
CALL.PACKED.9): the lowered calls, and the same values on simulated workers before and after the pass.
Expected values are NumPy restatements of what each collective does."""

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import OpRuntimeError
from relax_ref.interp.builtins import lookup_packed
from relax_ref.interp.workers import evaluate_local
from relax_ref.ir import expr as rx
from relax_ref.transform import LegalizeOps

HEAD = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n"

PROGRAM = HEAD + '''@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2))]})
    @R.function
    def main(x: R.DTensor((4,), "float32", "mesh[0]", "R"), t: R.Tensor((4, 6), "float32")):
        s = R.dist.redistribute_replica_to_shard(t, num_workers=2, axis=1)
        a = R.ccl.allreduce(s, op_type="OP")
        g = R.ccl.allgather(s, num_workers=2)
        b = R.ccl.broadcast_from_worker0(s)
        c = R.ccl.scatter_from_worker0(t, num_workers=2, axis=1)
        d = R.ccl.scatter_from_worker0(t, num_workers=2, axis=0)
        return (a, g, b, c, d)
'''

REDUCE = {"sum": lambda p, q: p + q, "prod": lambda p, q: p * q, "min": np.minimum, "max": np.maximum,
          "avg": lambda p, q: (p + q) / 2}


def _callees(mod):
    names = []

    def walk(e):
        if isinstance(e, rx.Call):
            if isinstance(e.op, rx.Op):
                names.append(e.op.name)
            if isinstance(e.op, rx.Op) and e.op.name in ("relax.call_dps_packed", "relax.call_pure_packed"):
                names.append(e.args[0].global_symbol)
    for b in mod["main"].body.blocks:
        for x in b.bindings:
            walk(x.value)
    return names


@pytest.mark.parametrize("op_type", sorted(REDUCE))
def test_legalized_collectives_keep_their_values(op_type):
    mod = relax_ref.parse(PROGRAM.replace('"OP"', f'"{op_type}"'))
    low = LegalizeOps()(mod)
    callees = _callees(low)
    assert not any(n.startswith("relax.ccl.") or n.startswith("relax.dist.") for n in callees)
    for name in ("runtime.disco.allreduce", "runtime.disco.allgather", "runtime.disco.broadcast_from_worker0",
                 "runtime.disco.scatter_from_worker0", "runtime.disco.worker_id"):
        assert name in callees
    x = np.zeros(4, "float32")
    t = (np.arange(24, dtype="float32").reshape(4, 6) - 7) / 4
    left, right = t[:, :3], t[:, 3:]
    expected = (REDUCE[op_type](left, right), np.concatenate([left, right]), left, left, t[:2])
    for m in (mod, low):
        got = evaluate_local(m, "main", x, t)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=1e-6)


def test_lowered_allreduce_names_its_reduction_by_code():
    mod = relax_ref.parse(PROGRAM.replace('"OP"', '"max"'))
    text = LegalizeOps()(mod).script(dialect="classic")
    assert 'R.call_dps_packed("runtime.disco.allreduce", (s, R.shape([3]), R.prim_value(T.bool(True)))' in text


def test_collective_library_checks_its_arguments():
    allreduce = lookup_packed("runtime.disco.allreduce")
    x = np.ones((2,), "float32")
    with pytest.raises(OpRuntimeError, match="code 0-4"):
        allreduce(x, relax_ref.values.ShapeValue((7,)), True, np.zeros(2, "float32"))
    with pytest.raises(OpRuntimeError, match="the output"):
        allreduce(x, relax_ref.values.ShapeValue((0,)), True, np.zeros(3, "float32"))
    scatter = lookup_packed("runtime.disco.scatter_from_worker0")
    with pytest.raises(OpRuntimeError, match="number of workers"):
        scatter(np.ones((3, 2), "float32"), True, np.zeros(2, "float32"))
    worker_id = lookup_packed("runtime.disco.worker_id")
    assert tuple(worker_id()) == (0,)
