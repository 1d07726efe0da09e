from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4, 5), "float32"), g: R.Tensor((2, 2, 3), "float32")):
        y = R.image.grid_sample(x, g)
        return y
