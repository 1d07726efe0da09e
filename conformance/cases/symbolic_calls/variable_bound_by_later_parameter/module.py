from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def pairs(x: R.Tensor(("n * 2",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        a = R.reshape(x, R.shape([n, 2]))
        b = R.sum(a, axis=[1])
        c = R.multiply(b, y)
        return c

    @R.function
    def main(x: R.Tensor(("a",), "float32"), y: R.Tensor(("b",), "float32")) -> R.Tensor(("b",), "float32"):
        cls = Module
        r = cls.pairs(x, y)
        return r
