from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, "c"), "float32"), s: R.Tensor(ndim=1, dtype="float32"), z: R.Tensor(ndim=1, dtype="int8")) -> R.Tensor((2, "c"), "int8"):
        y = R.quantize(x, s, z)
        return y
