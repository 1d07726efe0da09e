from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 5, 6), "float32")) -> R.Tensor((2, 3, 5, 3), "float32"):
        y = R.image.resize2d(x, (5, 3), method="nearest_neighbor")
        return y
