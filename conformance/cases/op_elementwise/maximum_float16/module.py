from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((3, 2), "float16"), b: R.Tensor((3, 2), "float16")) -> R.Tensor((3, 2), "float16"):
        y = R.maximum(a, b)
        return y
