from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor(ndim=1, dtype="int64"):
        y = R.arange(0, 5, 0)
        return y
