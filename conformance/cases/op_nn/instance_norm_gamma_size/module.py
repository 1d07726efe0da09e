from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4, 3), "float32"), c: R.Tensor((3,), "float32")):
        y = R.nn.instance_norm(x, c, c, channel_axis=1, axes=[2])
        return y
