from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 6, 5, 4), "float32"), w: R.Tensor((3, 3, 2, 6), "float32")) -> R.Tensor((2, 6, 5, 6), "float32"):
        y = R.nn.conv2d(x, w, padding=1, groups=2, data_layout="NHWC", kernel_layout="HWIO")
        return y
