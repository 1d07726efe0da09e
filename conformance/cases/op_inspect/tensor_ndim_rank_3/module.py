from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(ndim=3, dtype="float32")) -> R.Prim("int32"):
        y = R.inspect.tensor_ndim(x)
        return y
