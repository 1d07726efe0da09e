from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor((3,), "int64"):
        y = R.arange(2, 11, 3)
        return y
