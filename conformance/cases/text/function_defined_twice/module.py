from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((3,), "float32")):
        return x

    @R.function
    def f(x: R.Tensor((3,), "float32")):
        y = R.add(x, x)
        return y

    @R.function
    def main(x: R.Tensor((3,), "float32")):
        cls = Module
        y = cls.f(x)
        return y
