from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(p: R.Tensor((4, 5, 3), "float32"), t: R.Tensor((4, 3), "int64"), w: R.Tensor((5,), "float32")) -> R.Tensor((4, 3), "float32"):
        y = R.nn.nll_loss(p, t, w, reduction="none", ignore_index=3)
        return y
