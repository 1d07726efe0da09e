from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def twice(f: R.Callable((R.Tensor(("n",), "float32"),), R.Tensor(("n + 1",), "float32")), x: R.Tensor(("m",), "float32")) -> R.Tensor(("m + 2",), "float32"):
        a = f(x)
        b = f(a)
        return b

    @R.function
    def pad(v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
        k = T.int64()
        u = R.match_cast(v, R.Tensor((k,), "float32"))
        z = R.zeros(R.shape([1]), "float32")
        w = R.concat((z, u), axis=0)
        return w

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m + 2",), "float32"):
        cls = Module
        r = cls.twice(cls.pad, x)
        return r
