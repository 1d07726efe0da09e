from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((10, 4), "float32")) -> R.Tensor((3, 3), "float32"):
        y = R.strided_slice(x, [0, 1], [1, -1], [100, 0], [3, -1])
        return y
