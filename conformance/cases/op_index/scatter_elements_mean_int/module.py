from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor((2,), "int32"), i: R.Tensor((3,), "int32"), u: R.Tensor((3,), "int32")) -> R.Tensor((2,), "int32"):
        y = R.scatter_elements(d, i, u, reduction='mean')
        return y
