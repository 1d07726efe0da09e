from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((6,), "float32"), b: R.Tensor((6,), "float32")) -> R.Tensor((6,), "float32"):
        y = R.mod(a, b)
        return y
