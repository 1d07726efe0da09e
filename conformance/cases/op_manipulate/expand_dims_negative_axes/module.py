from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 3), "float32")) -> R.Tensor((1, "n", 3, 1), "float32"):
        y = R.expand_dims(x, axis=[0, -1])
        return y
