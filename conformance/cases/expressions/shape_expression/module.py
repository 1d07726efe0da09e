from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Shape(ndim=5):
        n = T.int64()
        m = T.int64()
        s = R.shape([n * m, n + m, n // 2, m % 3, 7])
        return s
