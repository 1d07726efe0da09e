from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def f(p: R.Tuple(R.Tensor((2,), "float32"))) -> R.Tuple:
        return R.tuple()

    @R.function
    def main(a: R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32"))) -> R.Tuple:
        cls = Module
        r = cls.f(a)
        return r
