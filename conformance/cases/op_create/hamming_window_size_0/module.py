from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor((0,), "float32"):
        y = R.hamming_window(0, True, 0.5, 0.5, "float32")
        return y
