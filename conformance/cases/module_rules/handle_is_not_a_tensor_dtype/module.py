from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "handle")) -> R.Tensor((2,), "handle"):
        return x
