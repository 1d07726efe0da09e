from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((6, 16), "bfloat16")) -> R.Tensor((6, 16), "bfloat16"):
        y = R.nn.log_softmax(x, axis=-1)
        return y
