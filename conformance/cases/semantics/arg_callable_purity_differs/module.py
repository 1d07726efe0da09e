from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def f(p: R.Callable((R.Tensor((2,), "float32"),), R.Tensor((2,), "float32"), purity=True)) -> R.Tuple:
        return R.tuple()

    @R.function
    def main(a: R.Callable((R.Tensor((2,), "float32"),), R.Tensor((2,), "float32"), purity=False)) -> R.Tuple:
        cls = Module
        r = cls.f(a)
        return r
