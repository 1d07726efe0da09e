from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Tensor(ndim=2, dtype="float32"):
        n = T.int64()
        if c:
            y = R.reshape(x, R.shape([n, 1]))
        else:
            y = x
        z = R.match_cast(y, R.Tensor(ndim=2, dtype="float32"))
        return z
