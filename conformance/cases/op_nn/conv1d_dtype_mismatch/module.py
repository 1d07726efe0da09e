from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 8), "float32"), w: R.Tensor((6, 4, 3), "int32")):
        y = R.nn.conv1d(x, w)
        return y
