from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        c = R.prim_value(T.float32(0.1))
        return c
