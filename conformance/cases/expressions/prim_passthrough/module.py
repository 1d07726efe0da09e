from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Prim("int64"), b: R.Prim("float32")) -> R.Tuple(R.Prim("float32"), R.Prim("int64")):
        return (b, a)
