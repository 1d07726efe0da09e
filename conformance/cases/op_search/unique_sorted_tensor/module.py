from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), w: R.Tensor((2,), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        y = R.unique(x, w)
        return y
