from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), w: R.Tensor((3,), "float32")):
        R.func_attr({"num_input": 1})
        y = R.add(x, w)
        return y
