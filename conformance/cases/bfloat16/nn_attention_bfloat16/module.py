from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 4, 2, 8), "bfloat16"), k: R.Tensor((1, 6, 2, 8), "bfloat16"), v: R.Tensor((1, 6, 2, 8), "bfloat16")) -> R.Tensor((1, 4, 2, 8), "bfloat16"):
        y = R.nn.attention(q, k, v)
        return y
