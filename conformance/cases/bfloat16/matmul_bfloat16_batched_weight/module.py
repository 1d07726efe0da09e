from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3, 48), "bfloat16"), b: R.Tensor((48, 6), "bfloat16")) -> R.Tensor((2, 3, 6), "bfloat16"):
        y = R.matmul(a, b)
        return y
