from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), "bfloat16")) -> R.Tensor((4,), "bfloat16"):
        y = R.prod(x, axis=[1])
        return y
