from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor((2,), "float32"), i: R.Tensor((1,), "int64"), v: R.Tensor((1,), "int32")) -> R.Tensor((2,), "float32"):
        y = R.index_put(d, (i,), v)
        return y
