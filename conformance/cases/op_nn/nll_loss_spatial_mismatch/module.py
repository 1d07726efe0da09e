from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(p: R.Tensor((3, 4, 5), "float32"), t: R.Tensor((3, 6), "int64")):
        y = R.nn.nll_loss(p, t)
        return y
