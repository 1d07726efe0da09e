from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32", ndim=3)) -> R.Tensor("float32", ndim=2):
        return x
