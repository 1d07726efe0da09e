from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n", "k"), "float32"), b: R.Tensor(("m", "j"), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
        y = R.concat((a, b))
        return y
