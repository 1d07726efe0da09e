from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8,), "int16")):
        y = R.memory.view(x, R.shape([2]), R.dtype("int16"), R.prim_value(T.int32(2)))
        return y
