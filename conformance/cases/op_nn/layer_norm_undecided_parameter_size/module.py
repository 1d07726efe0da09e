from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "k"), "float32"), g: R.Tensor(("m",), "float32"), b: R.Tensor(("m",), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
        y = R.nn.layer_norm(x, g, b, axes=[1])
        return y
