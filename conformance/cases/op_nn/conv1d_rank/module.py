from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2, 9, 1), "float32"), w: R.Tensor((4, 1, 3), "float32")):
        y = R.nn.conv1d(x, w)
        return y
