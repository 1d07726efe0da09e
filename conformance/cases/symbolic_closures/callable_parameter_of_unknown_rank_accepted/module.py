from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def apply(f: R.Callable((R.Tensor(("n",), "float32"),), R.Tensor(("n",), "float32")), x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        y = f(x)
        return y

    @R.function
    def absval(v: R.Tensor("float32")) -> R.Tensor("float32", ndim=1):
        k = T.int64()
        u = R.match_cast(v, R.Tensor((k,), "float32"))
        w = R.abs(u)
        return w

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        cls = Module
        r = cls.apply(cls.absval, x)
        return r
