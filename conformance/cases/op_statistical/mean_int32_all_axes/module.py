from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "int32")) -> R.Tensor((), "int32"):
        y = R.mean(x)
        return y
