from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(("n", 2), "float16"):
        n = T.int64()
        y = R.ones((n, 2), "float16")
        return y
