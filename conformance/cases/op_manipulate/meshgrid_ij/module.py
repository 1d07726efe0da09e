from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n",), "int64"), b: R.Tensor((2,), "int64")) -> R.Tuple(R.Tensor(("n", 2), "int64"), R.Tensor(("n", 2), "int64")):
        y = R.meshgrid((a, b))
        return y
