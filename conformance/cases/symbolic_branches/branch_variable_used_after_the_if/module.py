from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Shape(ndim=1):
        n = T.int64()
        if c:
            y = R.match_cast(x, R.Tensor((n,), "float32"))
            s = R.shape([n])
        else:
            s = R.shape([1])
        t = R.shape([n + 1])
        return t
