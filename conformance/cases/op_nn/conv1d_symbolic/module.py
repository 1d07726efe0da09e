from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 2, "l"), "float32"), w: R.Tensor((4, 1, 3), "float32")) -> R.Tensor(ndim=3, dtype="float32"):
        y = R.nn.conv1d(x, w, padding=1, groups=2)
        return y
