from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 3), "int32")) -> R.Tensor(ndim=2, dtype="int64"):
        y = R.nonzero(x)
        return y
