from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32"), s: R.Shape([2, 3])) -> R.Tuple():
        u = R.print(x, s, format="x={} s={}")
        return u
