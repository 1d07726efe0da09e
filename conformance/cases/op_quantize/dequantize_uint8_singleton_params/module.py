from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((5,), "uint8"), s: R.Tensor((1,), "float32"), z: R.Tensor((1,), "int32")) -> R.Tensor((5,), "float32"):
        y = R.dequantize(x, s, z)
        return y
