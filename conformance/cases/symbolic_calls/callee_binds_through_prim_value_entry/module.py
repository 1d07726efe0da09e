from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def halves(x: R.Tensor(("n * 2",), "float32"), k: R.Prim(value="n")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        y = R.reshape(x, R.shape([2, n]))
        z = R.sum(y, axis=[0])
        return z

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        m = T.int64()
        cls = Module
        d = R.concat((x, x), axis=0)
        r = cls.halves(d, R.prim_value(m))
        return r
