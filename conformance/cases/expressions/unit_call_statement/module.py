from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def show(x: R.Tensor((2,), "float32")) -> R.Tuple:
        R.print(x, format="{}")
        return R.tuple()

    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        cls = Module
        cls.show(x)
        y = R.multiply(x, x)
        return y
