from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor, y: R.Tensor):
        z = R.matmul(x, y)
        return z
