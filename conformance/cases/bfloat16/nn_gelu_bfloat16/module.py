from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 16), "bfloat16")) -> R.Tensor((4, 16), "bfloat16"):
        y = R.nn.gelu(x)
        return y
