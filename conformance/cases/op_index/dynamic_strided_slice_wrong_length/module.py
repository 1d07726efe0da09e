from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32"), b: R.Tensor((2,), "int64")) -> R.Tensor(ndim=3, dtype="float32"):
        y = R.dynamic_strided_slice(x, b, b, b)
        return y
