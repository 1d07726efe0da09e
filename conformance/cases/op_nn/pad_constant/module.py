from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")) -> R.Tensor((2, 6, 9), "float32"):
        y = R.nn.pad(x, [0, 0, 2, 1, 3, 2], pad_value=1.5)
        return y
