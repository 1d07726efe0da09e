from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "int32")) -> R.Tensor((4,), "int32"):
        y = R.clip(x, -1.5, 2.5)
        return y
