from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3000,), "float16")) -> R.Tensor((), "float16"):
        y = R.sum(x)
        return y
