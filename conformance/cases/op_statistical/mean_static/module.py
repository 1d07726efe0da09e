from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")) -> R.Tensor((3,), "float32"):
        y = R.mean(x, axis=[-1, 0])
        return y
