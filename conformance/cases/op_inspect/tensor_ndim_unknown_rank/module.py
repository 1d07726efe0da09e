from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=-1)):
        y = R.inspect.tensor_ndim(x)
        return y
