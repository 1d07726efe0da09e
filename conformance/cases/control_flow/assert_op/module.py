from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((3,), "float32"):
        R.assert_op(c, x, format="x={}")
        y = R.add(x, x)
        return y
