from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape(["n", 2])) -> R.Shape(ndim=2):
        t = R.shape_of(s)
        return t
