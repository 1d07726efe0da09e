from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4, 5), "float32"), i: R.Tensor((3, 2, 1), "int64")) -> R.Tensor((3, 2, 5), "float32"):
        y = R.gather_nd(x, i, batch_dims=1)
        return y
