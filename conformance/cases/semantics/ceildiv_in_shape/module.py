from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Shape(ndim=3):
        n = T.int64()
        s = R.shape([T.ceildiv(n, 3), T.ceildiv(n + 1, 2), T.floordiv(n, 3)])
        return s
