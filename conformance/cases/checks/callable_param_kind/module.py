from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(f: R.Callable((R.Tensor((2,), "float32"),), R.Tensor((2,), "float32")), x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = f(x)
        return y
