from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def pair(a: R.Tensor(("k",), "float32"), b: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
        r = R.subtract(a, b)
        return r

    @R.function
    def main(x: R.Tensor(("n",), "float32"), u: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Tensor(ndim=1, dtype="float32"):
        cls = Module
        m = T.int64()
        if c:
            y = R.match_cast(u, R.Tensor((m,), "float32"))
            z = R.multiply(y, y)
        else:
            z = x
        r = cls.pair(z, x)
        return r
