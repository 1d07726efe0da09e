from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "int32"), l: R.Tensor((2,), "int64")) -> R.Tensor((2, 4), "int32"):
        y = R.reverse_sequence(x, l)
        return y
