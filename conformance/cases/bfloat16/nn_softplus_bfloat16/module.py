from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 16), "bfloat16")) -> R.Tensor((4, 16), "bfloat16"):
        y = R.nn.softplus(x, beta=0.7, threshold=1.5)
        return y
