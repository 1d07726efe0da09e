from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), i: R.Tensor(("k",), "int32")) -> R.Tensor(("k", 4), "float32"):
        y = R.take(x, i, axis=0)
        return y
