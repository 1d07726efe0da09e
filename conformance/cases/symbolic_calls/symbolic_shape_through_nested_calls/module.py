from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def h(x: R.Tensor(("c",), "float32")) -> R.Tensor(("c + 1",), "float32"):
        z = R.zeros(R.shape([1]), "float32")
        y = R.concat((z, x), axis=0)
        return y

    @R.function
    def g(x: R.Tensor(("b",), "float32")) -> R.Tensor(("b + 2",), "float32"):
        cls = Module
        y = cls.h(x)
        w = cls.h(y)
        return w

    @R.function
    def main(x: R.Tensor(("a",), "float32")) -> R.Tensor(("a + 3",), "float32"):
        cls = Module
        y = cls.g(x)
        w = cls.h(y)
        return w
