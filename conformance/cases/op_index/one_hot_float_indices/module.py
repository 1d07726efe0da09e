from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(i: R.Tensor((2,), "float32")) -> R.Tensor((2, 3), "float32"):
        y = R.one_hot(i, R.prim_value(1.0), R.prim_value(0.0), depth=3)
        return y
