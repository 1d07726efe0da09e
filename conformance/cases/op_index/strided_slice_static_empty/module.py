from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((5,), "float32")) -> R.Tensor((0,), "float32"):
        y = R.strided_slice(x, [0], [4], [1])
        return y
