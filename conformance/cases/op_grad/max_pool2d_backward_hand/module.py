from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(g: R.Tensor((1, 1, 2, 2), "float32"), x: R.Tensor((1, 1, 4, 4), "float32")) -> R.Tensor((1, 1, 4, 4), "float32"):
        y = R.grad.max_pool2d_backward(g, x, pool_size=[2, 2], strides=[2, 2])
        return y
