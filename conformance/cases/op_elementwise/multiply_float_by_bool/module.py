from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((3,), "float32"), b: R.Tensor((3,), "bool")) -> R.Tensor((3,), "float32"):
        y = R.multiply(a, b)
        return y
