from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("b", 32), "float32")) -> R.Tensor(("b", 72), "float32"):
        y = R.reshape(x, (b, 72))
        return y
