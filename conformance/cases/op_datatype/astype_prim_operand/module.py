from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(p: R.Prim("float32")) -> R.Tensor((), "int32"):
        y = R.astype(p, "int32")
        return y
