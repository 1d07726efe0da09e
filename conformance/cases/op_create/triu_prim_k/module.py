from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), "int32"), k: R.Prim("int64")) -> R.Tensor((3, 4), "int32"):
        y = R.triu(x, k)
        return y
