from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((3,), "float32"), s: R.Shape([3])) -> R.Tensor((3,), "float32"):
        y = R.minimum(a, s)
        return y
