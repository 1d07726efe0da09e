from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 3, "h", "w"), "float32")) -> R.Tensor(ndim=4, dtype="float32"):
        y = R.nn.adaptive_avg_pool2d(x, 1)
        return y
