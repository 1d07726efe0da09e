from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(k: R.Prim("int64"), b: R.Prim("bool")) -> R.Tuple(R.Prim("int64"), R.Prim("bool")):
        return (k, b)
