from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 3, 4, 5), "float32")) -> R.Tensor((2, 3, 5, 6, 7), "float32"):
        y = R.image.resize3d(x, (5, 6, 7))
        return y
