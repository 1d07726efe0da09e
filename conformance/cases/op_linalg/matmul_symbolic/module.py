from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n", "k"), "float32"), b: R.Tensor(("k", "m"), "float32")) -> R.Tensor(("n", "m"), "float32"):
        y = R.matmul(a, b)
        return y
