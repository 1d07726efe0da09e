from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor((4, 3), "float32"), a: R.Tensor((2, 1), "int64"), b: R.Tensor((2,), "int64"), v: R.Tensor(("p", "q"), "float32")) -> R.Tensor((4, 3), "float32"):
        y = R.index_put(d, (a, b), v)
        return y
