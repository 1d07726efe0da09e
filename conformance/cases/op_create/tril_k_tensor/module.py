from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 3), "float32"), k: R.Tensor((), "int64")) -> R.Tensor((3, 3), "float32"):
        y = R.tril(x, k)
        return y
