from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 2, 3, 2), "float32"), w: R.Tensor((3, 2, 2, 2, 2), "float32")):
        y = R.nn.conv3d_transpose(x, w)
        return y
