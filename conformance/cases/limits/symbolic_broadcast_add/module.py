from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, "n"), "float32"), y: R.Tensor((4,), "float32")):
        z = R.add(x, y)
        return z
