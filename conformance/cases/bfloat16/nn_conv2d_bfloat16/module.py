from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 8, 6, 6), "bfloat16"), w: R.Tensor((3, 8, 3, 3), "bfloat16")) -> R.Tensor((1, 3, 4, 4), "bfloat16"):
        y = R.nn.conv2d(x, w)
        return y
