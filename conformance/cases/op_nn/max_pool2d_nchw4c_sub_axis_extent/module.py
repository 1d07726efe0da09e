from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 4, 4, "k"), "float32")):
        y = R.nn.max_pool2d(x, pool_size=(2, 2), strides=(2, 2), layout="NCHW4c")
        return y
