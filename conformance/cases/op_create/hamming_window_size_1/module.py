from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor((1,), "float32"):
        y = R.hamming_window(1, False, 0.54, 0.46, "float32")
        return y
