from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 3, 2, 4), "float32"), k: R.Tensor((1, 5, 2, 4), "float32"), v: R.Tensor((1, 5, 2, 3), "float32"), b: R.Tensor((1, 1, 3, 5), "float32")) -> R.Tensor((1, 3, 2, 3), "float32"):
        y = R.nn.attention(q, k, v, b, causal_mask="BottomRight")
        return y
