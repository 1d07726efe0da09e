from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def doubler(v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
        k = T.int64()
        u = R.match_cast(v, R.Tensor((k,), "float32"))
        w = R.concat((u, u), axis=0)
        return w

    @R.function
    def apply(f: R.Callable((R.Tensor(("n",), "float32"),), R.Tensor(("n * 2",), "float32")), x: R.Tensor(("m",), "float32")) -> R.Tensor(("m * 2",), "float32"):
        y = f(x)
        return y

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m * 2",), "float32"):
        cls = Module
        r = cls.apply(cls.doubler, x)
        return r
