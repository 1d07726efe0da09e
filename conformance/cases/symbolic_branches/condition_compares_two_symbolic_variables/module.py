from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        n = T.int64()
        m = T.int64()
        c = R.prim_value(n < m)
        if c:
            r = R.concat((x, y), axis=0)
        else:
            r = R.concat((y, x), axis=0)
        return r
