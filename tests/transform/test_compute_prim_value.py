"""ComputePrimValue: hand cases and a property test over random symbolic expressions (check_pass)."""

import numpy as np
from hypothesis import strategies as st

import relax_ref
from relax_ref.ir import tir
from relax_ref.testing import check_pass
from relax_ref.transform import ComputePrimValue

HEAD = "from tvm.script import ir as I, relax as R, tir as T\n"


def _mod(body):
    return relax_ref.parse(HEAD + body)


def test_branch_condition_is_computed_and_bound():
    before = _mod('''
@I.ir_module
class M:
    @R.function(pure=False)
    def main(A: R.Tensor(["N"], "float32")):
        N = T.int64()
        if R.prim_value(N % 16 == 0):
            out = R.call_packed("fast", A, sinfo_args=[R.Tensor((N,), "float32")])
        else:
            out = R.call_packed("slow", A, sinfo_args=[R.Tensor((N,), "float32")])
        return out
''')
    expected = _mod('''
@I.ir_module
class M:
    @R.function(pure=False)
    def main(A: R.Tensor(["N"], "float32")):
        N = T.int64()
        cond: R.Prim("bool") = M.compute_symbolic_expr(R.prim_value(N))
        if cond:
            out = R.call_packed("fast", A, sinfo_args=[R.Tensor((N,), "float32")])
        else:
            out = R.call_packed("slow", A, sinfo_args=[R.Tensor((N,), "float32")])
        return out

    @T.prim_func(private=True)
    def compute_symbolic_expr(N: T.int64) -> T.bool:
        T.func_attr({"tir.is_host_func": True, "s_tir": True})
        T.ret(N % T.int64(16) == T.int64(0))
''')
    relax_ref.assert_structural_equal(ComputePrimValue()(before), expected)


def test_functions_are_shared_and_named_in_order():
    before = _mod('''
@I.ir_module
class M:
    @R.function
    def main(_n: R.Prim(value="N"), _m: R.Prim(value="M"), x: R.Tensor(("K",), "float32")):
        N = T.int64()
        M = T.int64()
        K = T.int64()
        a = R.prim_value(M + N)
        b = R.prim_value(K + 1)
        c = R.prim_value(N + 1)
        d = R.prim_value(N)
        e = R.prim_value(3)
        f = R.prim_value(T.float32(1.5))
        return (a, b, c, d, e, f)
''')
    after = ComputePrimValue()(before)
    prims = {k: f for k, f in after.items() if isinstance(f, tir.PrimFunc)}
    assert sorted(prims) == ["compute_symbolic_expr", "compute_symbolic_expr1", "compute_symbolic_expr2"]
    assert [p.name for p in prims["compute_symbolic_expr"].params] == ["M", "N"]
    assert prims["compute_symbolic_expr2"].ret_type == "float32" and not prims["compute_symbolic_expr2"].params
    out = relax_ref.evaluate(after, "main", 4, 5, np.zeros(7, "float32"))
    assert [int(v) for v in out[:5]] == [9, 8, 5, 4, 3] and float(out[5]) == 1.5


def test_module_without_symbolic_prim_values_is_unchanged():
    before = _mod('''
@I.ir_module
class M:
    @R.function
    def main(_n: R.Prim(value="N")):
        N = T.int64()
        a = R.prim_value(N)
        return (a, R.prim_value(2))
''')
    assert ComputePrimValue()(before) is before


_OPS = ["+", "-", "*", "//", "%"]


@st.composite
def _prim_programs(draw):
    """Functions of two symbolic prim parameters returning random integer and bool expressions."""
    def expr(depth):
        if depth == 0 or draw(st.booleans()):
            return draw(st.sampled_from(["N", "M", "T.int64(%d)" % draw(st.integers(1, 7))]))
        op = draw(st.sampled_from(_OPS + ["max", "min"]))
        a, b = expr(depth - 1), expr(depth - 1)
        if op in ("max", "min"):
            return f"T.{op}({a}, {b})"
        if op in ("//", "%"):
            b = "T.int64(%d)" % draw(st.integers(1, 5))
        return f"({a} {op} {b})"
    n = draw(st.integers(1, 3))
    lines = []
    for i in range(n):
        e = expr(2)
        if draw(st.booleans()):
            e = f"{e} {draw(st.sampled_from(['<', '==', '>=']))} {expr(1)}"
        lines.append(f"        v{i} = R.prim_value({e})")
    fields = ", ".join(f"v{i}" for i in range(n))
    text = '''
@I.ir_module
class M:
    @R.function
    def main(_n: R.Prim(value="N"), _m: R.Prim(value="M")):
        N = T.int64()
        M = T.int64()
%s
        return (%s,)
''' % ("\n".join(lines), fields)
    return _mod(text)


def test_preserves_meaning_on_symbolic_expressions():
    check_pass(ComputePrimValue(), strategy=_prim_programs(), max_examples=25)


def test_literal_operator_arguments_stay():
    before = _mod('''
@I.ir_module
class M:
    @R.function(pure=False)
    def main(z: R.Tensor((4,), "float32"), _n: R.Prim(value="N")):
        N = T.int64()
        gv = R.clip(z, R.prim_value(T.float64(-1.0)), R.prim_value(T.float64(0.0)))
        _ = R.assert_op(R.prim_value(N > T.int64(0)))
        return gv
''')
    after = ComputePrimValue()(before)
    prims = [k for k, f in after.items() if isinstance(f, tir.PrimFunc)]
    assert prims == ["compute_symbolic_expr"] and after["compute_symbolic_expr"].ret_type == "bool"
