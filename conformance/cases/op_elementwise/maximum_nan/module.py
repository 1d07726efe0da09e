from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((5,), "float32"), b: R.Tensor((5,), "float32")) -> R.Tensor((5,), "float32"):
        y = R.maximum(a, b)
        return y
