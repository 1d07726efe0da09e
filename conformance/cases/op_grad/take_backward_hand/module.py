from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(g: R.Tensor((3,), "float32"), x: R.Tensor((4,), "float32"), i: R.Tensor((3,), "int64")) -> R.Tensor((4,), "float32"):
        y = R.grad.take_backward(g, x, i, axis=0)
        return y
