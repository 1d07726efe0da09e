from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "int32"), y: R.Tensor(("p",), "int32")) -> R.Tensor(ndim=1, dtype="int32"):
        k = T.int64()
        u = R.unique(x)
        a = R.match_cast(u, R.Tensor((k,), "int32"))
        w = R.unique(y)
        b = R.match_cast(w, R.Tensor((k,), "int32"))
        d = R.subtract(a, b)
        return d
