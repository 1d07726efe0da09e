from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n",), "int32"), b: R.Tensor(("n",)), c: R.Tensor(("n",), "int32")) -> R.Tensor(("n",), "int32"):
        y = R.ewise_fma(a, b, c)
        return y
