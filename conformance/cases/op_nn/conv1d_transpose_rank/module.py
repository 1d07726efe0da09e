from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 5, 1), "float32"), w: R.Tensor((4, 2, 3), "float32")):
        y = R.nn.conv1d_transpose(x, w)
        return y
