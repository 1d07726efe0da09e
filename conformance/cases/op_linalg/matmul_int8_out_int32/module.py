from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), "int8"), b: R.Tensor((3, 4), "int8")) -> R.Tensor((2, 4), "int32"):
        y = R.matmul(a, b, out_dtype="int32")
        return y
