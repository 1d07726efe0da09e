from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n", 1), "float32"), b: R.Tensor((1, "m"), "float32")) -> R.Tensor(("n", "m"), "float32"):
        y = R.subtract(a, b)
        return y
