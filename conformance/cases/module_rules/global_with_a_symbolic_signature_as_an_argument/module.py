from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def neg(v: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
        w = R.negative(v)
        return w

    @R.function
    def apply(f: R.Callable((R.Tensor(("n",), "float32"),), R.Tensor(("n",), "float32")), x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        y = f(x)
        return y

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        cls = Module
        r = cls.apply(cls.neg, x)
        return r
