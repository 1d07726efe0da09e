from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4, 3), "int32"), c: R.Tensor((4,), "int32")):
        y = R.nn.group_norm(x, c, c, num_groups=2, channel_axis=1, axes=[2])
        return y
