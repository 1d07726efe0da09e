from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(i: R.Tensor((2, 3), "int32")) -> R.Tensor((3, 2, 3), "int64"):
        y = R.one_hot(i, R.prim_value(T.int64(7)), R.prim_value(T.int64(-1)), depth=3, axis=0)
        return y
