from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor((4, 3), "float32"), a: R.Tensor((2,), "int64"), v: R.Tensor((2,), "float32")) -> R.Tensor((4, 3), "float32"):
        y = R.index_put(d, (a,), v)
        return y
