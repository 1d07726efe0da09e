from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), "float32")):
        y = R.reshape(x, R.shape([5, 2]))
        return y
