from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 6), "float32"), s: R.Shape(["a", "b"])) -> R.Tensor(("a", "b"), "float32"):
        y = R.reshape(x, s)
        return y
