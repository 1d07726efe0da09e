from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4, "h", 3), "float32"), w: R.Tensor((4, 3, 3, 3), "float32")) -> R.Tensor(ndim=4, dtype="float32"):
        y = R.nn.conv2d_transpose(x, w, strides=2)
        return y
