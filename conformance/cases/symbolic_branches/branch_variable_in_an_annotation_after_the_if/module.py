from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Tensor("float32", ndim=1):
        n = T.int64()
        if c:
            y = R.match_cast(x, R.Tensor((n,), "float32"))
        else:
            y = R.match_cast(x, R.Tensor((n,), "float32"))
        z: R.Tensor((n,), "float32") = R.add(y, y)
        return z
