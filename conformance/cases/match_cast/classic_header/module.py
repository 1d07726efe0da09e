from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(ndim=2, dtype="float32")) -> R.Shape(ndim=2):
        a = T.int64()
        b = T.int64()
        y = R.match_cast(x, R.Tensor((a, b), "float32"))
        s = R.shape([b, a])
        return s
