from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((1,), "float32"):
        y = R.strided_slice(x, [1], [0], [1])
        return y
