from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("(n + 1) // 3",), "int64"):
        n = T.int64()
        y = R.arange(1, n, 3)
        return y
