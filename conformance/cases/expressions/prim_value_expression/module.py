from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Prim("int64"), R.Prim("int64")):
        n = T.int64()
        a = R.prim_value(n * 3 + 1)
        b = R.prim_value(T.max(n - 4, 0))
        return (a, b)
