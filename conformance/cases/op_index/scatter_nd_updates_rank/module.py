from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor((4, 3), "float32"), i: R.Tensor((2, 1), "int64"), u: R.Tensor((2,), "float32")) -> R.Tensor((4, 3), "float32"):
        y = R.scatter_nd(d, i, u)
        return y
