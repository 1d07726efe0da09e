from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(ndim=1, dtype="float32"), c: R.Prim("bool")) -> R.Tensor(ndim=1, dtype="float32"):
        n = T.int64()
        if c:
            y = R.match_cast(x, R.Tensor((n,), "float32"))
            z = R.add(y, y)
        else:
            z = x
        return z
