from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 3, "m"), "float32")):
        r0 = R.inspect.tensor_stride_i(x, 0)
        r1 = R.inspect.tensor_stride_i(x, 1)
        r2 = R.inspect.tensor_stride_i(x, 2)
        y = (r0, r1, r2)
        return y
