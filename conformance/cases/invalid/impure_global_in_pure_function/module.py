from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def show(x: R.Tensor((3,), "float32")) -> R.Tuple:
        R.print(x, format="{}")
        return R.tuple()

    @R.function
    def main(x: R.Tensor((3,), "float32")):
        cls = Module
        u = cls.show(x)
        return x
