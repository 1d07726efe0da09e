from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "int32")) -> R.Tensor((4,), "int8"):
        y = R.astype(x, "int8")
        return y
