from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "int32"), b: R.Tensor((3,), "int32")) -> R.Tensor((2, 4), "int32"):
        y = R.bucketize(x, b, out_int32=True, right=True)
        return y
