from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 64), "bfloat16")) -> R.Tensor((4, 64), "bfloat16"):
        y = R.cumsum(x, axis=1)
        return y
