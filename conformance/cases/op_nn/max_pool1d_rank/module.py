from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 7, 1), "float32")):
        y = R.nn.max_pool1d(x, 2)
        return y
