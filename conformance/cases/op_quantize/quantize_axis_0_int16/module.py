from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 2), "float32"), s: R.Tensor((3,), "float32"), z: R.Tensor((3,), "int16")) -> R.Tensor((3, 2), "int16"):
        y = R.quantize(x, s, z, axis=0, out_dtype="int16")
        return y
