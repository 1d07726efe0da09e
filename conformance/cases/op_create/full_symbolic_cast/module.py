from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "int32"), v: R.Tensor((), "float32")) -> R.Tensor((2, "n"), "int32"):
        n = T.int64()
        y = R.full((2, n), v, "int32")
        return y
