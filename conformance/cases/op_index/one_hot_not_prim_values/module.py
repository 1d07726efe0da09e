from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(i: R.Tensor((2,), "int64"), v: R.Prim("float32")) -> R.Tensor((2, 2), "float32"):
        y = R.one_hot(i, v, R.prim_value(0.0), depth=2)
        return y
