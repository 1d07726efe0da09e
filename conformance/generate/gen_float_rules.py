"""One rounding per float node (PRIM.FLOAT.1): cases that separate an implementation keeping the rule from
one that rewrites a division by a constant into a multiplication by its reciprocal, reassociates
constants across nodes or contracts a multiply and the subtract that consumes it into a fused
multiply-add. Each computation ends in ``round``/``floor``/``ceil`` so that a last-bit difference
becomes a whole unit, and each is written twice: with Relax operators (the graph path) and as a
TensorIR kernel (the loop path).

Oracles: NumPy float32 operations, one per node (NumPy rounds each operation once), compared exactly.
The inputs are the ones where the rewrites give other results (found by evaluating both forms):
``-38.25 / 0.3`` is ``-127.49999`` (the reciprocal gives ``-127.5``, which rounds to ``-128``);
``(1 + 0.5) * 0.6666667`` rounds to ``1.0`` (a fused ``(1.5 * 0.6666667) - 1`` is ``2.98e-8``, whose
ceiling is 1, not 0) -- the nearest-neighbour resize index that TVM's legalization of
``image.resize2d`` computes; ``x * y - round(x * y)`` is 0 when the product is rounded, the product's
rounding error when it is fused.
"""

import numpy as np

from relax_conformance.gen import Case, module_text

F = np.float32
SPEC = ["PRIM.FLOAT.1"]

# quantize: x / 0.3, rounded to the nearest integer (ties to even)
QX = np.array([-38.25, -37.350002, -35.25, 38.25, 0.45, -0.45, 12.0, 0.0], "float32")
# resize-nearest index with scale 2/3 and 4/7: ceil((x + 0.5) * c - 0.5 - 0.5)
RX = np.arange(8, dtype="float32")


def _quantize(x, s):
    return np.rint(F(x) / F(s)).astype("float32")


def _resize_index(x, c):
    a = (x + F(0.5)).astype("float32")
    p = (a * F(c)).astype("float32")
    return np.ceil(((p - F(0.5)).astype("float32") - F(0.5)).astype("float32"))


def _residual_inputs():
    rng = np.random.default_rng(20261205)
    x = rng.standard_normal(16).astype("float32")
    y = rng.standard_normal(16).astype("float32")
    z = (x * y).astype("float32")
    return x, y, z


def graph_cases():
    out = []
    quant = module_text('''
        @R.function
        def main(x: R.Tensor((8,), "float32")) -> R.Tuple(R.Tensor((8,), "float32"), R.Tensor((8,), "float32")):
            q = R.divide(x, R.const(0.3, "float32"))
            r = R.round(q)
            return (q, r)
    ''')
    q = (QX / F(0.3)).astype("float32")
    out.append(Case(
        "divide_by_constant_then_round", quant, runs=[([QX], (q, _quantize(QX, 0.3)))], rtol=0.0, atol=0.0,
        spec=SPEC + ["OP.ELEMWISE.EVAL.1"], tags=["float", "rounding"], oracle="numpy-formula",
        description="a division by a constant is a division: -38.25 / 0.3 is -127.49999 and rounds to -127 "
                    "(a reciprocal multiplication gives -127.5 and -128)"))
    resize = module_text('''
        @R.function
        def main(x: R.Tensor((8,), "float32")) -> R.Tuple(R.Tensor((8,), "float32"), R.Tensor((8,), "float32")):
            a = R.add(x, R.const(0.5, "float32"))
            b = R.multiply(a, R.const(0.6666667, "float32"))
            c = R.subtract(b, R.const(0.5, "float32"))
            d = R.subtract(c, R.const(0.5, "float32"))
            e = R.ceil(d)
            b2 = R.multiply(a, R.const(0.5714286, "float32"))
            c2 = R.subtract(b2, R.const(0.5, "float32"))
            d2 = R.subtract(c2, R.const(0.5, "float32"))
            e2 = R.ceil(d2)
            return (e, e2)
    ''')
    out.append(Case(
        "multiply_subtract_chain_then_ceil", resize,
        runs=[([RX], (_resize_index(RX, 0.6666667), _resize_index(RX, 0.5714286)))], rtol=0.0, atol=0.0,
        spec=SPEC, tags=["float", "rounding"], oracle="numpy-formula",
        description="each multiply and subtract is rounded: ceil((1 + 0.5) * 0.6666667 - 0.5 - 0.5) is 0, "
                    "not 1 (no fused multiply-add, no folding of the two subtractions)"))
    x, y, z = _residual_inputs()
    fused = module_text('''
        @R.function
        def main(x: R.Tensor((16,), "float32"), y: R.Tensor((16,), "float32"), z: R.Tensor((16,), "float32")) -> R.Tuple(R.Tensor((16,), "float32"), R.Tensor((16,), "float32")):
            p = R.multiply(x, y)
            d = R.subtract(p, z)
            f = R.floor(d)
            return (d, f)
    ''')
    zero = np.zeros(16, "float32")
    out.append(Case(
        "multiply_then_subtract_not_fused", fused, runs=[([x, y, z], (zero, zero))], rtol=0.0, atol=0.0,
        spec=SPEC, tags=["float", "rounding"], oracle="numpy-formula",
        description="z holds the rounded products x * y, so x * y - z is exactly 0 and its floor 0; a fused "
                    "multiply-add leaves the products' rounding errors (floor -1 where negative)"))
    lead = module_text('''
        @R.function
        def main(x: R.Tensor((2, 32, 128), "float32")) -> R.Tensor((2, 32, 128), "float32"):
            s = R.sum(x, axis=[0], keepdims=True)
            y = R.add(x, s)
            return y
    ''')
    xl = np.random.default_rng(20261206).standard_normal((2, 32, 128)).astype("float32")
    out.append(Case(
        "sum_over_leading_axis_added_back", lead, runs=[([xl], (xl + (xl[0] + xl[1])[None]).astype("float32"))],
        rtol=0.0, atol=0.0, spec=SPEC + ["OP.ELEMWISE.EVAL.1", "OP.sum.C2"], tags=["float", "reduction"],
        oracle="numpy-formula",
        description="x + sum(x, axis=0, keepdims=True) on a (2, 32, 128) tensor: the sum of two floats and the "
                    "add, each rounded once; an XLA compilation with the algebraic simplifier off and its "
                    "YNN library fusions added sum[t, 0] to every channel of row t"))
    return out


def tir_cases():
    out = []
    kernels = module_text('''
        @T.prim_func
        def quantize(A: T.Buffer((T.int64(8),), "float32"), Q: T.Buffer((T.int64(8),), "float32")):
            for i in range(T.int64(8)):
                with T.sblock("q"):
                    v = T.axis.spatial(T.int64(8), i)
                    Q[v] = T.round(A[v] / T.float32(0.3))

        @T.prim_func
        def resize_index(A: T.Buffer((T.int64(8),), "float32"), B: T.Buffer((T.int64(8),), "float32")):
            for i in range(T.int64(8)):
                with T.sblock("b"):
                    v = T.axis.spatial(T.int64(8), i)
                    B[v] = T.ceil((A[v] + T.float32(0.5)) * T.float32(0.6666667) - T.float32(0.5) - T.float32(0.5))

        @T.prim_func
        def residual(X: T.Buffer((T.int64(16),), "float32"), Y: T.Buffer((T.int64(16),), "float32"),
                     Z: T.Buffer((T.int64(16),), "float32"), D: T.Buffer((T.int64(16),), "float32")):
            for i in range(T.int64(16)):
                with T.sblock("d"):
                    v = T.axis.spatial(T.int64(16), i)
                    D[v] = T.floor(X[v] * Y[v] - Z[v])

        @R.function
        def main(a: R.Tensor((8,), "float32"), r: R.Tensor((8,), "float32"), x: R.Tensor((16,), "float32"), y: R.Tensor((16,), "float32"), z: R.Tensor((16,), "float32")) -> R.Tuple(R.Tensor((8,), "float32"), R.Tensor((8,), "float32"), R.Tensor((16,), "float32")):
            cls = Module
            q = R.call_tir(cls.quantize, (a,), out_sinfo=R.Tensor((8,), "float32"))
            b = R.call_tir(cls.resize_index, (r,), out_sinfo=R.Tensor((8,), "float32"))
            d = R.call_tir(cls.residual, (x, y, z), out_sinfo=R.Tensor((16,), "float32"))
            return (q, b, d)
    ''')
    x, y, z = _residual_inputs()
    out.append(Case(
        "tir_float_nodes_rounded_once", kernels,
        runs=[([QX, RX, x, y, z], (_quantize(QX, 0.3), _resize_index(RX, 0.6666667), np.zeros(16, "float32")))],
        rtol=0.0, atol=0.0, spec=SPEC + ["TIR.EXPR.1"], tags=["float", "rounding", "call_tir"],
        oracle="numpy-formula",
        description="the TensorIR forms of the quantize kernel, the resize-nearest index and a multiply-subtract: "
                    "each Div, Mul, Add and Sub node is rounded once"))
    return out


def generate():
    return {"float_rules": graph_cases() + tir_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_float_rules"])
