from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tuple(R.Tensor(("n",), "float32"), R.Shape(["n"])), R.Prim("int64"))) -> R.Tuple(R.Prim("int64"), R.Tensor(("n",), "float32")):
        inner = t[0]
        x = inner[0]
        k = t[1]
        return (k, x)
