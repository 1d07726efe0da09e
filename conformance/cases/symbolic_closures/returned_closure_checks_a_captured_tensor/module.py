from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def make(s: R.Tensor("float32", ndim=1)) -> R.Callable((R.Tensor("float32", ndim=1),), R.Tensor("float32", ndim=1)):
        @R.function
        def add_s(v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
            k = T.int64()
            u = R.match_cast(v, R.Tensor((k,), "float32"))
            t = R.match_cast(s, R.Tensor((k,), "float32"))
            w = R.add(u, t)
            return w
        return add_s

    @R.function
    def main(s: R.Tensor(("n",), "float32"), x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        cls = Module
        f = cls.make(s)
        r = f(x)
        return r
