from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def f(p: R.Shape(ndim=3)) -> R.Tuple:
        return R.tuple()

    @R.function
    def main(a: R.Shape(ndim=2)) -> R.Tuple:
        cls = Module
        r = cls.f(a)
        return r
