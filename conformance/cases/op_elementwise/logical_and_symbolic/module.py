from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("m", "n"), "bool"), b: R.Tensor(("n",), "bool")) -> R.Tensor(("m", "n"), "bool"):
        y = R.logical_and(a, b)
        return y
