from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2,), "float32"), b: R.Tensor((2, 1), "float32")) -> R.Tensor((2, 2), "float32"):
        y = R.stack((a, b))
        return y
