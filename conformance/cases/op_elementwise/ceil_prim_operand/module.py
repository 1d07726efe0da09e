from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Prim("float32")) -> R.Prim("float32"):
        y = R.ceil(x)
        return y
