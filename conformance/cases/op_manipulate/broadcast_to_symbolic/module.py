from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, "n"), "float32")) -> R.Tensor((2, 4, "n"), "float32"):
        y = R.broadcast_to(x, R.shape([2, 4, n]))
        return y
