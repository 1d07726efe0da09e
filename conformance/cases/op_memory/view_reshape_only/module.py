from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8,), "int16")) -> R.Tensor((2, 4), "int16"):
        y = R.memory.view(x, [2, 4])
        return y
