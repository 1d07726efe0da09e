from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def make_scaler(s: R.Tensor((3,), "float32")) -> R.Callable((R.Tensor((3,), "float32"),), R.Tensor((3,), "float32")):
        @R.function
        def scale(v: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            w = R.multiply(v, s)
            return w
        return scale

    @R.function
    def main(x: R.Tensor((3,), "float32"), s: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        cls = Module
        f = cls.make_scaler(s)
        r = f(x)
        return r
