from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("m", "n"), "float32"), b: R.Tensor(("n",), "float32")) -> R.Tensor(("m", "n"), "float32"):
        y = R.log_add_exp(a, b)
        return y
