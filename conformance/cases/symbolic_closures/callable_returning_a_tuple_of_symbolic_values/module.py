from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def describe(f: R.Callable((R.Tensor(("n",), "float32"),), R.Tuple(R.Tensor(("n",), "float32"), R.Shape(["n", "n"]))), x: R.Tensor(("m",), "float32")) -> R.Tuple(R.Tensor(("m",), "float32"), R.Shape(["m", "m"])):
        t = f(x)
        return t

    @R.function
    def square(v: R.Tensor("float32", ndim=1)) -> R.Tuple(R.Tensor("float32", ndim=1), R.Shape(ndim=2)):
        k = T.int64()
        u = R.match_cast(v, R.Tensor((k,), "float32"))
        w = R.multiply(u, u)
        t = (w, R.shape([k, k]))
        return t

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Tuple(R.Tensor(("m",), "float32"), R.Shape(["m", "m"])):
        cls = Module
        r = cls.describe(cls.square, x)
        return r
