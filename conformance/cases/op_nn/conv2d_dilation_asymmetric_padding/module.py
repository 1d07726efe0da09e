from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4, 6, 5), "float32"), w: R.Tensor((6, 2, 3, 3), "float32")) -> R.Tensor((2, 6, 5, 1), "float32"):
        y = R.nn.conv2d(x, w, strides=(1, 2), padding=(1, 0, 2, 1), dilation=2, groups=2)
        return y
