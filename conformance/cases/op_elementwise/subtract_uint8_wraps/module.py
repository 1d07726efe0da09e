from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((3,), "uint8"), b: R.Tensor((3,), "uint8")) -> R.Tensor((3,), "uint8"):
        y = R.subtract(a, b)
        return y
