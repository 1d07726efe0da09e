from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), "bool")) -> R.Tensor((2,), "bool"):
        y = R.prod(x, axis=[1])
        return y
