from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(g: R.Tensor((4,), "float32"), x: R.Tensor((2, 3), "float32"), i: R.Tensor((2, 2), "int64")):
        y = R.grad.take_backward(g, x, i)
        return y
