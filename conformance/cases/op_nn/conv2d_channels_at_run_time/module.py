from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, "c", 4, 4), "float32"), w: R.Tensor((2, "d", 3, 3), "float32")) -> R.Tensor((1, 2, 2, 2), "float32"):
        y = R.nn.conv2d(x, w)
        return y
