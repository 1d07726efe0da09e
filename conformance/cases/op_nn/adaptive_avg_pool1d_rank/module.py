from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 8, 1), "float32")):
        y = R.nn.adaptive_avg_pool1d(x, 4)
        return y
