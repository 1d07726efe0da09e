from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((7,), "int64"), b: R.Tensor((7,), "int64")) -> R.Tensor((7,), "int64"):
        y = R.floor_divide(a, b)
        return y
