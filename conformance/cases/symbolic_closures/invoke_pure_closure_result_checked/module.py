from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def scaled(x: R.Tensor("float32", ndim=1), s: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
        k = T.int64()
        a = R.match_cast(x, R.Tensor((k,), "float32"))
        b = R.match_cast(s, R.Tensor((k,), "float32"))
        m = R.multiply(a, b)
        w = R.concat((m, b), axis=0)
        return w

    @R.function
    def main(x: R.Tensor(("n",), "float32"), s: R.Tensor(("p",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        c = R.make_closure(cls.scaled, (s,))
        r = R.invoke_pure_closure(c, (x,), sinfo_args=R.Tensor((n,), "float32"))
        return r
