from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 5), "float32"), g: R.Tensor((4,), "float32"), b: R.Tensor((5,), "float32")):
        y = R.nn.layer_norm(x, g, b, axes=[1])
        return y
