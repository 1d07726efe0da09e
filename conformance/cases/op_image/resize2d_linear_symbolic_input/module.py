from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, "h", "w"), "float32")) -> R.Tensor((1, 2, 4, 7), "float32"):
        y = R.image.resize2d(x, (4, 7))
        return y
