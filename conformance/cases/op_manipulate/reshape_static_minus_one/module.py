from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")) -> R.Tensor((4, 6), "float32"):
        y = R.reshape(x, (4, -1))
        return y
