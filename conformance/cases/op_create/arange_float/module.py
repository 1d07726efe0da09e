from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor((5,), "float32"):
        y = R.arange(0.5, 3.0, 0.5)
        return y
