from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "int8"), s: R.Tensor((), "float32"), z: R.Tensor((), "int8")) -> R.Tensor((2, 4), "float16"):
        y = R.dequantize(x, s, z, axis=0, out_dtype="float16")
        return y
