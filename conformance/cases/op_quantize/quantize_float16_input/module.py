from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4), "float16"), s: R.Tensor((), "float32"), z: R.Tensor((), "int8")) -> R.Tensor((1, 4), "int8"):
        y = R.quantize(x, s, z)
        return y
