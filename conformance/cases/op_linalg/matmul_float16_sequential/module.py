from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((4, 64), "float16"), b: R.Tensor((64, 4), "float16")) -> R.Tensor((4, 4), "float16"):
        y = R.matmul(a, b)
        return y
