from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 300), "bfloat16")) -> R.Tensor((3,), "bfloat16"):
        y = R.std(x, axis=[1])
        return y
