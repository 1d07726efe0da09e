from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4, "l"), "float32"), c: R.Tensor((4,), "float32")) -> R.Tensor(("n", 4, "l"), "float32"):
        y = R.nn.instance_norm(x, c, c, channel_axis=1, axes=[2])
        return y
