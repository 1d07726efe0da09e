from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(g: R.Tensor((), "float32"), p: R.Tensor(("n", "c"), "float32"), t: R.Tensor(("n",), "int64"), w: R.Tensor(("k",), "float32")) -> R.Tensor(("n", "c"), "float32"):
        y = R.grad.nll_loss_backward(g, p, t, w, reduction="sum")
        return y
