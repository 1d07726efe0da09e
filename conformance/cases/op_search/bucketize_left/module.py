from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor(("n", 4), "int64"):
        y = R.bucketize(x, b)
        return y
