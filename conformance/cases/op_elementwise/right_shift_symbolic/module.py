from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("m", "n"), "int32"), b: R.Tensor(("n",), "int32")) -> R.Tensor(("m", "n"), "int32"):
        y = R.right_shift(a, b)
        return y
