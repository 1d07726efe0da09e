from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((2, 3, 4), "float32")):
        y = R.nn.attention(q, q, q)
        return y
