from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def describe(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tuple(R.Shape(["n", "n + 1"]), R.Prim(value="n * 2"))):
        n = T.int64()
        y = R.negative(x)
        t = (y, (R.shape([n, n + 1]), R.prim_value(n * 2)))
        return t

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Tuple(R.Shape(["m", "m + 1"]), R.Prim(value="m * 2"), R.Tensor(("m",), "float32")):
        m = T.int64()
        cls = Module
        d = cls.describe(x)
        inner = d[1]
        s = inner[0]
        p = inner[1]
        y = d[0]
        z = R.add(y, x)
        r = (s, p, z)
        return r
