from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4, "h", 6), "float32"), w: R.Tensor((3, 4, 3, 3), "float32")) -> R.Tensor(ndim=4, dtype="float32"):
        y = R.nn.conv2d(x, w, strides=(2, 1), padding=(0, 1))
        return y
