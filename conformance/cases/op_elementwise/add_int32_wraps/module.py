from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((3,), "int32"), b: R.Tensor((3,), "int32")) -> R.Tensor((3,), "int32"):
        y = R.add(a, b)
        return y
