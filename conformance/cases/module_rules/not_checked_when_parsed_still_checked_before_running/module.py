from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module(check_well_formed=False)
class Module:

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        y = R.add(x, x)
        z = R.print(y, format="{}")
        return y
