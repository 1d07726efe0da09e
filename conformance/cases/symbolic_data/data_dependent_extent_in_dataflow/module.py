from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        k = T.int64()
        with R.dataflow():
            u = R.unique(x)
            v = R.match_cast(u, R.Tensor((k,), "float32"))
            w = R.multiply(v, v)
            R.output(w)
        return w
