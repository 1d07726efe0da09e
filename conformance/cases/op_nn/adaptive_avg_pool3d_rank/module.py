from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 4, 6), "float32")):
        y = R.nn.adaptive_avg_pool3d(x, 2)
        return y
