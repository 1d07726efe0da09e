from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 5), "float32")) -> R.Tensor((3,), "int64"):
        y = R.argmax(x, axis=1)
        return y
