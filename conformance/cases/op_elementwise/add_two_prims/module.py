from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(p: R.Prim("int64"), q: R.Prim("int64")) -> R.Prim("int64"):
        y = R.add(p, q)
        return y
