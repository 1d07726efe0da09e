from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Prim("int64")) -> R.Tensor((1,), "float32"):
        y = R.reshape(x, (1,))
        return y
