from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float16")) -> R.Prim("uint8"):
        y = R.inspect.tensor_dtype_bits(x)
        return y
