from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 5), "float32"), s: R.Tensor((), "float32"), z: R.Tensor((), "int32")) -> R.Tensor((3, 5), "uint8"):
        y = R.quantize(x, s, z, out_dtype="uint8")
        return y
