from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8, 2, 3), "float32")) -> R.Tensor((2, 2, 4, 6), "float32"):
        y = R.nn.pixel_shuffle(x, 2)
        return y
