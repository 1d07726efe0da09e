from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), i: R.Tensor(("n", 4), "int64")) -> R.Tensor(("n", 4), "float32"):
        y = R.gather_elements(x, i, axis=1)
        return y
