from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), "int32"), b: R.Tensor((4,), "int32")) -> R.Tensor(ndim=2, dtype="int32"):
        y = R.right_shift(a, b)
        return y
