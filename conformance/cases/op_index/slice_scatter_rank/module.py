from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor((4,), "float32"), s: R.Tensor((1, 1), "float32")) -> R.Tensor((4,), "float32"):
        y = R.slice_scatter(d, s, 0, 1, 1)
        return y
