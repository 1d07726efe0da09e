from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 7, 6), "float32")) -> R.Tensor((2, 3, 3, 2), "float32"):
        y = R.nn.max_pool2d(x, pool_size=2, strides=3, padding=(1, 0, 0, 1), ceil_mode=True, count_include_pad=True)
        return y
