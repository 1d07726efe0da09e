from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((6,), "float32")) -> R.Tensor((6,), "float16"):
        y = R.astype(x, "float16")
        return y
