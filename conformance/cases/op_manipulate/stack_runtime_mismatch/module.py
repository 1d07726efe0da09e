from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n",), "float32"), b: R.Tensor(("m",), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
        y = R.stack((a, b))
        return y
