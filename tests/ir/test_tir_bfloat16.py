"""The PrimFunc rewrite of TIR.BF16.1-3 (``relax_ref.ir.tir_bfloat16``): what it changes and what it
leaves alone. The values it gives are the conformance cases ``bfloat16/tir_*`` (witnessed on TVM)."""

import ml_dtypes
import numpy as np

import relax_jax
import relax_ref
from relax_ref.ir import tir
from relax_ref.ir.functor import post_order_visit_stmt
from relax_ref.ir.tir_bfloat16 import compute_in_float32

KERNEL = '''
from tvm.script import ir as I, relax as R, tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((T.int64(64),), "DT"), B: T.Buffer((T.int64(64),), "DT"), C: T.Buffer((T.int64(64),), "DT")):
        S = T.alloc_buffer((T.int64(64),), "DT")
        for i in range(T.int64(64)):
            S[i] = A[i] * B[i]
        for i in range(T.int64(64)):
            C[i] = S[i] + A[i] * A[i]

    @R.function
    def main(a: R.Tensor((64,), "DT"), b: R.Tensor((64,), "DT")) -> R.Tensor((64,), "DT"):
        cls = Module
        y = R.call_tir(cls.k, (a, b), out_sinfo=R.Tensor((64,), "DT"))
        return y
'''


def _kernel(mod) -> tir.PrimFunc:
    return next(f for _, f in mod.functions_items() if isinstance(f, tir.PrimFunc))


def _allocated_dtypes(func):
    out = []
    post_order_visit_stmt(func.body, lambda s: out.append(s.buffer.dtype) if isinstance(s, tir.AllocBuffer) else None)
    return out


def test_without_bfloat16_the_function_is_unchanged():
    for dt in ("float32", "float16"):
        f = _kernel(relax_ref.parse(KERNEL.replace("DT", dt)))
        assert compute_in_float32(f) is f


def test_scratch_buffers_become_float32_and_parameters_stay():
    f = _kernel(relax_ref.parse(KERNEL.replace("DT", "bfloat16")))
    g = compute_in_float32(f)
    assert g is not f and compute_in_float32(f) is g
    assert _allocated_dtypes(f) == ["bfloat16"] and _allocated_dtypes(g) == ["float32"]
    assert [b.dtype for _, b in g.buffer_map] == ["bfloat16"] * 3


def test_float16_still_rounds_every_operation_and_bfloat16_once():
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal(64).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    for dt, np_dt in (("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16)):
        a, b = x.astype(np_dt), y.astype(np_dt)
        af, bf = a.astype(np.float32), b.astype(np.float32)
        r = lambda v: np.asarray(v, np.float32).astype(np_dt).astype(np.float32)  # noqa: E731
        want = r(r(af * bf) + r(af * af)) if dt == "float16" else r(af * bf + af * af)
        mod = relax_ref.parse(KERNEL.replace("DT", dt))
        for got in (relax_ref.evaluate(mod, "main", a, b), relax_jax.compile(mod)("main", a, b)):
            np.testing.assert_array_equal(np.asarray(got).astype(np.float32), want)
