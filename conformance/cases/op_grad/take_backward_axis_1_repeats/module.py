from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(g: R.Tensor((2, 5, 3), "float32"), x: R.Tensor((2, 4, 3), "float32"), i: R.Tensor((5,), "int32")) -> R.Tensor((2, 4, 3), "float32"):
        y = R.grad.take_backward(g, x, i, axis=1)
        return y
