from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Prim("float32"), i: R.Tensor((1, 1), "int64")) -> R.Tensor((1,), "float32"):
        y = R.gather_nd(x, i)
        return y
