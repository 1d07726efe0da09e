from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def f(p: R.Prim("float32")) -> R.Tuple:
        return R.tuple()

    @R.function
    def main(a: R.Prim("int64")) -> R.Tuple:
        cls = Module
        r = cls.f(a)
        return r
