from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.hamming_window(4, True, a, 0.5, "float32")
        return y
