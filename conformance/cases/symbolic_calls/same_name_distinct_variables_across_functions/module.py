from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def inner(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        y = R.multiply(x, x)
        return y

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n + 1",), "float32"):
        n = T.int64()
        cls = Module
        one = R.zeros(R.shape([1]), "float32")
        g = R.concat((x, one), axis=0)
        r = cls.inner(g)
        return r
