from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 2, 3), "float32")) -> R.Tensor(("n * 6",), "float32"):
        y = R.flatten(x)
        return y
