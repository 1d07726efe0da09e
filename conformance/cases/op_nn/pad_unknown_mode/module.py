from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        y = R.nn.pad(x, [0, 0, 1, 1], pad_mode="edge")
        return y
