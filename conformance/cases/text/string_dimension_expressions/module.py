from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n * 2 + 1",), "float32"), z: R.Tensor(("T.max(n, 4) // 2",), "float32")) -> R.Tensor(("n * 2 + 1",), "float32"):
        return y
