from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 4, 4), "int8"), w: R.Tensor((3, 2, 3, 3), "int8")) -> R.Tensor((1, 3, 4, 4), "int32"):
        y = R.nn.conv2d(x, w, padding=1, out_dtype="int32")
        return y
