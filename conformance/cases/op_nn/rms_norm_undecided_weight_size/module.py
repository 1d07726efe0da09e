from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "k"), "float32"), w: R.Tensor(("m",), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
        y = R.nn.rms_norm(x, w)
        return y
