from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(p: R.Tensor((8, 5), "bfloat16"), t: R.Tensor((8,), "int64"), w: R.Tensor((5,), "bfloat16")) -> R.Tensor((), "bfloat16"):
        y = R.nn.nll_loss(p, t, w)
        return y
