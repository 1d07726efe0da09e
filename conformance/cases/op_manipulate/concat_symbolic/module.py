from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, "n"), "float32"), b: R.Tensor((2, "m"), "float32")) -> R.Tensor((2, "n + m"), "float32"):
        y = R.concat((a, b), axis=1)
        return y
