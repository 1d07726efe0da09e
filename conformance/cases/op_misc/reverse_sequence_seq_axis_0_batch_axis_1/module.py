from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((5, 3, 2), "float32"), l: R.Tensor((3,), "int32")) -> R.Tensor((5, 3, 2), "float32"):
        y = R.reverse_sequence(x, l, seq_axis=0, batch_axis=1)
        return y
