from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(private=True)
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        y = R.multiply(x, x)
        return y
