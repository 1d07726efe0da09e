from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 2), "float32")) -> R.Tensor(("n", 2), "bool"):
        y = R.ones_like(x, "bool")
        return y
