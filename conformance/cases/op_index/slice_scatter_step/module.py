from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor(("n", 3), "float32"), s: R.Tensor(("n", 2), "float32")) -> R.Tensor(("n", 3), "float32"):
        y = R.slice_scatter(d, s, 0, 3, 2, axis=1)
        return y
