from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "int8"):
        y = R.memory.view(x, dtype=R.dtype("int8"))
        return y
