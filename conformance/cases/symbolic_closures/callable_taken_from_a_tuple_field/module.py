from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def run(t: R.Tuple(R.Callable((R.Tensor(("n",), "float32"),), R.Tensor(("n",), "float32")), R.Tensor(("m",), "float32"))) -> R.Tensor(("m",), "float32"):
        f = t[0]
        x = t[1]
        y = f(x)
        return y

    @R.function
    def sq(v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
        k = T.int64()
        u = R.match_cast(v, R.Tensor((k,), "float32"))
        w = R.multiply(u, u)
        return w

    @R.function
    def cut(v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
        k = T.int64()
        u = R.match_cast(v, R.Tensor((k,), "float32"))
        w = R.strided_slice(u, axes=[0], begin=[1], end=[k])
        return w

    @R.function
    def main(x: R.Tensor(("m",), "float32"), c: R.Prim("bool")) -> R.Tensor(("m",), "float32"):
        cls = Module
        if c:
            r = cls.run((cls.sq, x))
        else:
            r = cls.run((cls.cut, x))
        return r
