from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "int32"), s: R.Tensor((4,), "float32"), z: R.Tensor((4,), "int8")):
        y = R.quantize(x, s, z)
        return y
