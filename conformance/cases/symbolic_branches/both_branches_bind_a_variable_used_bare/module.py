from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Shape:
        n = T.int64()
        if c:
            y = R.match_cast(x, R.Tensor((n,), "float32"))
            s = R.shape([n])
        else:
            z = R.match_cast(x, R.Tensor((n,), "float32"))
            s = R.shape([n, n])
        return s
