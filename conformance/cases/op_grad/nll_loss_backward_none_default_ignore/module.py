from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(g: R.Tensor((3,), "float32"), p: R.Tensor((3, 4), "float32"), t: R.Tensor((3,), "int64")) -> R.Tensor((3, 4), "float32"):
        y = R.grad.nll_loss_backward(g, p, t, reduction="none")
        return y
