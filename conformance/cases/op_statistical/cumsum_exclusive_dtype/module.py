from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 2), "int32")) -> R.Tensor((3, 2), "int64"):
        y = R.cumsum(x, axis=0, dtype="int64", exclusive=True)
        return y
