from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor((4,), "int32"):
        y = R.arange(4, dtype="int32")
        return y
