from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(t: R.Tensor((3,), "int64")) -> R.Shape(ndim=3):
        s = R.tensor_to_shape(t)
        return s
