from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 16), "bfloat16"), g: R.Tensor((16,), "bfloat16"), b: R.Tensor((16,), "bfloat16")) -> R.Tensor((4, 16), "bfloat16"):
        y = R.nn.layer_norm(x, g, b, axes=[1], epsilon=1e-05)
        return y
