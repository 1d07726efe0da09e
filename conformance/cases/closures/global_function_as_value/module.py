from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def double(v: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        w = R.add(v, v)
        return w

    @R.function
    def apply(f: R.Callable((R.Tensor((3,), "float32"),), R.Tensor((3,), "float32")), v: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        w = f(v)
        return w

    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        cls = Module
        r = cls.apply(cls.double, x)
        return r
