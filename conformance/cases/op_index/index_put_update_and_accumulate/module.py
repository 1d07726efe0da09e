from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor(("n", 3), "float32"), a: R.Tensor((4,), "int64"), b: R.Tensor((4,), "int64"), v: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor(("n", 3), "float32"), R.Tensor(("n", 3), "float32")):
        y = (R.index_put(d, (a, b), v), R.index_put(d, (a, b), v, accumulate=True))
        return y
