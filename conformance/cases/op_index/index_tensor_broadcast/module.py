from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4, 2), "float32"), i: R.Tensor((2, 1), "int64"), j: R.Tensor((3,), "int64")) -> R.Tensor((2, 3, 2), "float32"):
        y = R.index_tensor(x, (i, j))
        return y
