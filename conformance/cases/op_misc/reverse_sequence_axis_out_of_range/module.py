from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "float32"), l: R.Tensor((2,), "int32")):
        y = R.reverse_sequence(x, l, seq_axis=2)
        return y
