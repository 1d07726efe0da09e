from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(ndim=2, dtype="float32")) -> R.Tuple(R.Tensor(ndim=2, dtype="float32"), R.Shape(ndim=2)):
        n = T.int64()
        m = T.int64()
        y = R.match_cast(x, R.Tensor((n, m), "float32"))
        s = R.shape([m, n * m])
        return (y, s)
