from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def scaled(x: R.Tensor(("n",), "float32"), s: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        w = R.multiply(x, s)
        return w

    @R.function
    def main(x: R.Tensor(("n",), "float32"), s: R.Tensor(("p",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        c = R.make_closure(cls.scaled, (s,))
        r = R.invoke_pure_closure(c, (x,), sinfo_args=R.Tensor((n,), "float32"))
        return r
