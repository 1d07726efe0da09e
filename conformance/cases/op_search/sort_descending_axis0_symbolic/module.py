from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 3), "int32")) -> R.Tensor(("n", 3), "int32"):
        y = R.sort(x, axis=0, descending=True)
        return y
