from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
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
