from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(g: R.Tensor((), "float32"), p: R.Tensor((2, 6), "float32"), t: R.Tensor((2,), "int64"), w: R.Tensor((4,), "float32")):
        y = R.grad.nll_loss_backward(g, p, t, w, reduction="sum")
        return y
