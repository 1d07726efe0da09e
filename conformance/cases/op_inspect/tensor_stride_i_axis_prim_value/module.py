from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(ndim=4, dtype="int8"), a: R.Prim("int64")) -> R.Prim("int64"):
        y = R.inspect.tensor_stride_i(x, a)
        return y
