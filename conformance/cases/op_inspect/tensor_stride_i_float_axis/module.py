from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        y = R.inspect.tensor_stride_i(x, R.prim_value(T.float32(1)))
        return y
