from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2,), "float32"), b: R.Tensor((2,), "int32")) -> R.Tensor((), "float32"):
        y = R.einsum((a, b), "i,i")
        return y
