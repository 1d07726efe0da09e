from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 5, 5), "float16")) -> R.Tensor((1, 2, 3, 3), "float16"):
        y = R.nn.avg_pool2d(x, 3)
        return y
