from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tensor(ndim=1, dtype="float32"), R.Tensor(ndim=1, dtype="float32"))) -> R.Tensor(ndim=1, dtype="float32"):
        n = T.int64()
        u = R.match_cast(t, R.Tuple(R.Tensor((n,), "float32"), R.Tensor((n,), "float32")))
        a = u[0]
        b = u[1]
        c = R.multiply(a, b)
        return c
