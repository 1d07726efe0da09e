from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Prim(value=T.float32(1.5))) -> R.Prim("float32"):
        return x
