from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n + 1", "m + 2"), "float32"):
        y = R.nn.pad(x, [1, 0, 0, 2])
        return y
