from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((6,), "float32")) -> R.Tensor((24,), "uint8"):
        y = R.memory.view(x, R.shape([24]), R.dtype("uint8"))
        return y
