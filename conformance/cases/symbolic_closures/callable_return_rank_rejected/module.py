from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def apply(f: R.Callable((R.Tensor(("n",), "float32"),), R.Tensor(("n",), "float32")), x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        y = f(x)
        return y

    @R.function
    def column(v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=2):
        w = R.expand_dims(v, axis=[1])
        return w

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        cls = Module
        r = cls.apply(cls.column, x)
        return r
