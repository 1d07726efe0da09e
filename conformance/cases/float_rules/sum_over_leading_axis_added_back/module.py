from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 32, 128), "float32")) -> R.Tensor((2, 32, 128), "float32"):
        s = R.sum(x, axis=[0], keepdims=True)
        y = R.add(x, s)
        return y
