from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), "int32"), b: R.Tensor((3, 4), "float32")) -> R.Tensor((2, 4), "float32"):
        y = R.matmul(a, b)
        return y
