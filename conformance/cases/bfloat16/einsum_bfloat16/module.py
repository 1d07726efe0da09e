from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((4, 64), "bfloat16"), b: R.Tensor((64, 5), "bfloat16")) -> R.Tensor((4, 5), "bfloat16"):
        y = R.einsum((a, b), "ij,jk->ik")
        return y
