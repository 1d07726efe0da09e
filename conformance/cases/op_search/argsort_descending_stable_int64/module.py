from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 6), "float32")) -> R.Tensor(("n", 6), "int64"):
        y = R.argsort(x, descending=True, dtype="int64")
        return y
