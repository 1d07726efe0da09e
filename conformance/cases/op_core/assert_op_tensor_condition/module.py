from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(a: R.Tensor((), "float32"), b: R.Tensor((), "float32")) -> R.Tensor((), "float32"):
        c = R.less(a, b)
        u = R.assert_op(c, [a, b], format="{} is not below {}")
        d = R.subtract(b, a)
        return d
