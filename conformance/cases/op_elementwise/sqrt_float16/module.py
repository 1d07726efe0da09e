from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((5,), "float16")) -> R.Tensor((5,), "float16"):
        y = R.sqrt(x)
        return y
