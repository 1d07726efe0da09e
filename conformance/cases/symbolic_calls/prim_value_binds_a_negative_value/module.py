from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def inc(k: R.Prim(value="n"), x: R.Tensor(("n + 1",), "float32")) -> R.Tensor(("n + 1",), "float32"):
        y = R.add(x, x)
        return y

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        m = T.int64()
        cls = Module
        r = cls.inc(R.prim_value(m - 1), x)
        return r
