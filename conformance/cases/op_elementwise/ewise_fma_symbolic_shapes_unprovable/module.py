from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n",), "float32"), b: R.Tensor(("m",), "float32"), c: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        y = R.ewise_fma(a, b, c)
        return y
