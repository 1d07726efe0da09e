from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((3, 1), "float32"), b: R.Tensor((1, 4), "float32")) -> R.Tensor((3, 4), "float32"):
        y = R.add(a, b)
        return y
