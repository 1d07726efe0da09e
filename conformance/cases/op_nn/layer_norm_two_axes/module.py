from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4, 5), "float32"), g: R.Tensor((4, 5), "float32"), b: R.Tensor((4, 5), "float32")) -> R.Tensor((2, 3, 4, 5), "float32"):
        y = R.nn.layer_norm(x, g, b, axes=[2, 3], epsilon=1e-3)
        return y
