from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((4,), "bool"), b: R.Tensor((4,), "bool")) -> R.Tensor((4,), "bool"):
        y = R.bitwise_xor(a, b)
        return y
