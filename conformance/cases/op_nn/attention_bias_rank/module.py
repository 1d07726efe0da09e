from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((2, 3, 2, 4), "float32"), k: R.Tensor((2, 5, 2, 4), "float32"), b: R.Tensor((2, 3, 5), "float32")):
        y = R.nn.attention(q, k, k, b)
        return y
