from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, "n"), "int32"), y: R.Tensor((4,), "int32")):
        z = R.floor_mod(x, y)
        return z
