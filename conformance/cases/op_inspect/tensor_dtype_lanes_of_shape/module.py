from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape([2, 3])):
        y = R.inspect.tensor_dtype_lanes(s)
        return y
