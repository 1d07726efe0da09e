from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(("n",), "int32"):
        y = R.bitwise_not(x)
        return y
