from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def measure(f: R.Callable((R.Tensor(("n",), "float32"),), R.Tensor(("n",), "float32")), x: R.Tensor(("m",), "float32")) -> R.Shape(["m"]):
        y = f(x)
        s = R.shape_of(y)
        return s

    @R.function
    def grow(v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
        k = T.int64()
        u = R.match_cast(v, R.Tensor((k,), "float32"))
        one = R.ones(R.shape([1]), "float32")
        w = R.concat((u, one), axis=0)
        return w

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Shape(["m"]):
        cls = Module
        r = cls.measure(cls.grow, x)
        return r
