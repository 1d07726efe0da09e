from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 9, 9), "bfloat16")) -> R.Tensor((1, 2, 4, 4), "bfloat16"):
        y = R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2])
        return y
