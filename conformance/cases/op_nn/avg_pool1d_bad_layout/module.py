from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 7), "float32")):
        y = R.nn.avg_pool1d(x, 2, layout="NCH")
        return y
