from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor((0,), "int64"):
        y = R.arange(5, 0, 1)
        return y
