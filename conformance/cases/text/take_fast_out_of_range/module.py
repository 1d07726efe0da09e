from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), i: R.Tensor((2,), "int64")):
        y = R.take(x, i, axis=0, mode="fast")
        return y
