from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        if c:
            z = R.match_cast(y, R.Tensor((n,), "float32"))
            r = R.add(x, z)
        else:
            r = x
        return r
