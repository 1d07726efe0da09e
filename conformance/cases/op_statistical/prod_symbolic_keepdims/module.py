from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor((1, "m"), "float32"):
        y = R.prod(x, axis=[0], keepdims=True)
        return y
