from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(g: R.Tensor((), "float32"), p: R.Tensor((3, 4, 2), "float32"), t: R.Tensor((3, 2), "int64"), w: R.Tensor((4,), "float32")) -> R.Tensor((3, 4, 2), "float32"):
        y = R.grad.nll_loss_backward(g, p, t, w, reduction="mean", ignore_index=1)
        return y
