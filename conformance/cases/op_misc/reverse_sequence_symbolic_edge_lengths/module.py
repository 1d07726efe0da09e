from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("b", 6), "float32"), l: R.Tensor(("c",), "int32")):
        y = R.reverse_sequence(x, l)
        return y
