from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor((3, 4), "int32"):
        y = R.eye(3, 4, -1, "int32")
        return y
