from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 5), "float32")) -> R.Tuple(R.Tensor((2, 5), "float32"), R.Tensor((2, 5), "float32"), R.Tensor((0, 5), "float32")):
        y = R.split(x, 3)
        return y
