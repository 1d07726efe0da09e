from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 7, 3), "float32")) -> R.Tensor((2, 4, 3), "float32"):
        y = R.nn.max_pool1d(x, 3, 2, 1, ceil_mode=True, layout="NWC")
        return y
