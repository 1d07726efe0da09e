from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def quiet(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        return x

    @R.function(pure=False)
    def loud(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        R.print(x, format="{}")
        return x

    @R.function
    def main(x: R.Tensor((3,), "float32"), c: R.Prim("bool")):
        cls = Module
        if c:
            f = cls.quiet
        else:
            f = cls.loud
        y = f(x)
        return y
