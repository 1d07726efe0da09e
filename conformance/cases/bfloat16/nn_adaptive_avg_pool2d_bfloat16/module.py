from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 9, 9), "bfloat16")) -> R.Tensor((1, 2, 3, 3), "bfloat16"):
        y = R.nn.adaptive_avg_pool2d(x, output_size=[3, 3])
        return y
