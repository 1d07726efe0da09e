from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def liar(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        y = R.concat((x, x), axis=0)
        z = R.match_cast(y, R.Tensor(ndim=1, dtype="float32"))
        return z

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        cls = Module
        r = cls.liar(x)
        return r
