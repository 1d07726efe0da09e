from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((4,), "int32"), b: R.Tensor((4,), "int32")) -> R.Tensor((4,), "int32"):
        y = R.left_shift(a, b)
        return y
