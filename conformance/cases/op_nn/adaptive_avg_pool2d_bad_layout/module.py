from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 8, 6), "float32")):
        y = R.nn.adaptive_avg_pool2d(x, 2, layout="NCHD")
        return y
