from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def outer(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n * n",), "float32")) -> R.Tensor(("n", "n"), "float32"):
        n = T.int64()
        a = R.reshape(y, R.shape([n, n]))
        b = R.reshape(x, R.shape([n, 1]))
        c = R.add(a, b)
        return c

    @R.function
    def main(x: R.Tensor(("p",), "float32"), y: R.Tensor(("q",), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
        cls = Module
        r = cls.outer(x, y)
        return r
