from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        cls = Module
        y = cls.helper(x)
        z = R.add(y, y)
        return z

    @R.function
    def helper(x: R.Tensor((3,), "float32")):
        return x
