from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(g: R.Tensor((2, 3, 2, 3), "float32"), x: R.Tensor((2, 3, 5, 6), "float32")) -> R.Tensor((2, 3, 5, 6), "float32"):
        y = R.grad.avg_pool2d_backward(g, x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])
        return y
