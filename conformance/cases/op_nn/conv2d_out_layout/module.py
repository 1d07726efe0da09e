from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4, 6, 5), "float32"), w: R.Tensor((6, 2, 3, 3), "float32")) -> R.Tensor((2, 4, 3, 6), "float32"):
        y = R.nn.conv2d(x, w, groups=2, out_layout="NHWC")
        return y
