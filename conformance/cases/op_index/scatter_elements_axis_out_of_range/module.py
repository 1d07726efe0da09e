from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor((2, 2), "float32"), i: R.Tensor((2, 2), "int64"), u: R.Tensor((2, 2), "float32")) -> R.Tensor((2, 2), "float32"):
        y = R.scatter_elements(d, i, u, axis=2)
        return y
