from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), "int32"), b: R.Tensor((2, 3), "int32")) -> R.Tensor((2, 3), "bool"):
        y = R.less_equal(a, b)
        return y
