from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Prim("int64")):
        y = R.inspect.tensor_ndim(x)
        return y
