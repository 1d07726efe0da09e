from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32")) -> R.Shape(ndim=2):
        n = T.int64()
        m = T.int64()
        y = R.match_cast(x, R.Tensor((n, m), "float32"))
        s = R.shape([n, m])
        return s
