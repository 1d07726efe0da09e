from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def twice(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = R.add(x, x)
        return y

    @R.function(pure=False)
    def apply(f: R.Callable(ret=R.Tensor((3,), "float32"), purity=False), x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = f(x)
        return y

    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32")):
        cls = Module
        y = cls.apply(cls.twice, x)
        return y
