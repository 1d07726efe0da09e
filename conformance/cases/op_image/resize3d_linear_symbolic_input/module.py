from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, "d", "h", "w"), "float32")) -> R.Tensor((1, 2, 2, 4, 3), "float32"):
        y = R.image.resize3d(x, (2, 4, 3))
        return y
