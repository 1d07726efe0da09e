from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4, 5), "float32"), i: R.Tensor(("k", 2), "int64")) -> R.Tensor(("k", 5), "float32"):
        y = R.gather_nd(x, i)
        return y
