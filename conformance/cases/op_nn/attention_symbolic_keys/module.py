from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 3, 2, 4), "float32"), k: R.Tensor((1, "s", 2, 4), "float32")) -> R.Tensor((1, 3, 2, 4), "float32"):
        y = R.nn.attention(q, k, k)
        return y
