from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((3, 6, 8), "float16"), b: R.Tensor((6, 8), "float16"), c: R.Tensor((8, 2), "float16")) -> R.Tensor((3, 2), "float16"):
        y = R.einsum((a, b, c), "ikj,kj,jl->il")
        return y
