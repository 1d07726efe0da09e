from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor((4,), "int32"):
        y = R.hamming_window(4, True, 0.5, 0.5, "int32")
        return y
