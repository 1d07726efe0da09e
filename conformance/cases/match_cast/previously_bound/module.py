from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(ndim=1, dtype="float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        z = R.match_cast(y, R.Tensor((n,), "float32"))
        w = R.add(x, z)
        return w
