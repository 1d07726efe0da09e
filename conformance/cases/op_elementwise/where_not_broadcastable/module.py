from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((2, 1), "bool"), a: R.Tensor((3,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor((2, 3), "float32"):
        y = R.where(c, a, b)
        return y
