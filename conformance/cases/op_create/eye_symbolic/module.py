from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n", "n"), "float32"):
        n = T.int64()
        y = R.eye(n, k=1)
        return y
