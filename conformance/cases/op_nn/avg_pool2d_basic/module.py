from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 7, 6), "float32")) -> R.Tensor((2, 3, 4, 3), "float32"):
        y = R.nn.avg_pool2d(x, pool_size=3, strides=2, padding=1)
        return y
