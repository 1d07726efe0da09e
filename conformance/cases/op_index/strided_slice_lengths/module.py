from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), "float32")) -> R.Tensor((2, 4), "float32"):
        y = R.strided_slice(x, [0], [0, 1], [2])
        return y
