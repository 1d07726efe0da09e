from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "int32")) -> R.Tensor((1, 1), "int64"):
        y = R.argmax(x, keepdims=True)
        return y
