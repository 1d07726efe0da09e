from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def helper(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        b = R.multiply(a, a)
        return b

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = cls.helper(x)
        return y
