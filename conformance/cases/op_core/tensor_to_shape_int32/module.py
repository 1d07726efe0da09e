from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(t: R.Tensor((2,), "int32")) -> R.Shape(ndim=2):
        s = R.tensor_to_shape(t)
        return s
