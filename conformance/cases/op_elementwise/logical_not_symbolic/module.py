from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "bool")) -> R.Tensor(("n",), "bool"):
        y = R.logical_not(x)
        return y
