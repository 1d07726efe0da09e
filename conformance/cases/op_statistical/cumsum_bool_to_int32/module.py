from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "bool")) -> R.Tensor((4,), "int32"):
        y = R.cumsum(x, axis=0, dtype="int32")
        return y
